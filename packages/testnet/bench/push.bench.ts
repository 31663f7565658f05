import { createECDH, randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { authServicesOf } from '@swarm/auth';
import { createPushWorker } from '@swarm/domain';
import { freePort } from '../src/node-process.ts';
import { createTestNode } from '../test/harness.ts';
import type { BenchRow } from './report.ts';

// Issue 25: "a push reaches a local endpoint within 2 s p95 of the favourite that caused it".
// One node (PGlite) with its real push worker (polling every 500 ms) and its real peer client;
// the push service is an HTTP server on loopback (the node runs in development mode, the only
// way it posts to loopback). Timed: from just before the like action (the service the web app's
// tRPC and the client API call) to the push's arrival at the endpoint, encrypted and signed.
// Two cases: likes one after another (each waits for its push), and 100 people liked at once
// (each with their own subscription, so each push is matched to the like that caused it).

const SEQUENTIAL = 60;
const BURST = 100;
const TARGET_MS = 2_000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function benchPush(log: (line: string) => void): Promise<BenchRow[]> {
  const port = await freePort();
  /** When each endpoint path last received a push. */
  const arrivals = new Map<string, number[]>();
  const waiting = new Set<() => void>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '/';
      arrivals.set(path, [...(arrivals.get(path) ?? []), performance.now()]);
      res.writeHead(201).end();
      for (const check of waiting) check();
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');

  const t = await createTestNode({ SWARM_DOMAIN: 'localhost:1', SWARM_DEV: '1' });
  const worker = createPushWorker({ node: t.node });
  try {
    const accounts = authServicesOf(t.node).accounts;
    const make = async (handle: string) => {
      const made = await accounts.createUser({
        handle,
        password: 'correct horse battery',
        isAdmin: false,
      });
      if (!made.ok) throw new Error(made.reason.message);
      return made.value.user.id;
    };
    /** A person with a browser's subscription (the web app's kind: it belongs to a session). */
    const subscribed = async (handle: string) => {
      const userId = await make(handle);
      const sessionId = randomUUID();
      await t.node.db.prisma.session.create({
        data: {
          id: sessionId,
          secretHash: randomBytes(32),
          userId,
          expiresAt: new Date(Date.now() + 3_600_000),
        },
      });
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const made = await t.node.push.subscriptions.subscribe(
        { kind: 'session', sessionId, userId },
        {
          endpoint: `http://127.0.0.1:${port}/push/${handle}`,
          keys: {
            p256dh: ecdh.getPublicKey().toString('base64url'),
            auth: randomBytes(16).toString('base64url'),
          },
          alerts: { favourite: true },
        },
      );
      if (!made.ok) throw new Error(made.reason.message);
      return { userId, path: `/push/${handle}` };
    };
    const post = async (userId: string, content: string) => {
      const made = await t.node.actions.posts.create(userId, { content });
      if (!made.ok) throw new Error(made.reason.message);
      return made.value.post.id;
    };
    const liker = await make('liker');
    const like = async (postId: string) => {
      const liked = await t.node.actions.interactions.like(liker, { postId });
      if (!liked.ok) throw new Error(liked.reason.message);
    };
    /** Resolves with the arrival time of push number `n` (0-based) at `path`. */
    const arrival = (path: string, n: number) =>
      new Promise<number>((resolve, reject) => {
        const timeout = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`no push at ${path} in 30 s`));
        }, 30_000);
        const check = () => {
          const at = arrivals.get(path)?.[n];
          if (at === undefined) return;
          clearTimeout(timeout);
          waiting.delete(check);
          resolve(at);
        };
        waiting.add(check);
        check();
      });

    const alice = await subscribed('alice');
    const alicePosts: string[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) alicePosts.push(await post(alice.userId, `Post ${i}`));
    const people = [];
    for (let i = 0; i < BURST; i++) {
      const person = await subscribed(`person${i}`);
      people.push({ ...person, postId: await post(person.userId, 'Like me') });
    }
    worker.start();

    // One like at a time, at random moments of the worker's polling cycle.
    const sequential: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) {
      const started = performance.now();
      await like(alicePosts[i]!);
      sequential.push((await arrival(alice.path, i)) - started);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 500));
    }
    log(`push: ${SEQUENTIAL} likes one by one done`);

    // A burst: 100 people each liked at once; each push timed from its own like's start.
    const burst = await Promise.all(
      people.map(async (person) => {
        const started = performance.now();
        await like(person.postId);
        return (await arrival(person.path, 0)) - started;
      }),
    );
    log(`push: a burst of ${BURST} likes done`);

    const row = (name: string, ms: number[], note: string): BenchRow => {
      const sorted = [...ms].sort((a, b) => a - b);
      const p95 = percentile(sorted, 95);
      return {
        name,
        perSecond: (1000 * ms.length) / ms.reduce((a, b) => a + b),
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        target: `p95 ≤ ${TARGET_MS} ms`,
        met: p95 <= TARGET_MS,
        note: `${note}; p95 ${p95.toFixed(0)} ms, max ${sorted[sorted.length - 1]!.toFixed(0)} ms`,
      };
    };
    return [
      row('like → push at the endpoint, one at a time', sequential, `${SEQUENTIAL} likes`),
      row(
        'like → push at the endpoint, 100 people liked at once',
        burst,
        `${BURST} likes at once, each timed from its own start`,
      ),
    ];
  } finally {
    await worker.stop();
    await t.close();
    server.close();
  }
}
