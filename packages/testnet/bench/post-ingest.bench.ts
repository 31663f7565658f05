import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import {
  SWARM_PATHS,
  formatTimestamp,
  signNodeRequest,
  signUserAction,
  verifyUserAction,
} from '@swarm/contract';
import { DEFAULT_POOL_SIZE, localActorKey } from '@swarm/db';
import { transportFromFetch } from '@swarm/domain';
import { createHttpServer } from '@swarm/gateway';
import {
  createLikeSenders,
  createManualClock,
  createTestNode,
  type LikeSender,
} from '../test/harness.ts';
import {
  CALIBRATION_REQUESTS,
  CONNECTIONS,
  MAX_REQUESTS,
  MIN_REQUESTS,
  SECONDS_PER_CASE,
  floorServer,
  send,
  type Prepared,
} from './ingest.bench.ts';
import type { BenchRow } from './report.ts';

// Ingest of pushed posts (`POST /api/swarm/inbox`, our dialect) through the gateway's front
// door, measured the way the `ingest` bench measures signed likes: alpha.bench receives on a
// real port; beta.bench's 20 users, each followed by someone on alpha, push new posts signed
// by their own keys and node-signed by beta. What is counted: HTTP, the rate limit, the body
// cap, both signatures (keys pinned in a warm-up), the follower check and the store's
// transaction. Baseline: the floor of the same requests on bare node:http (body read and
// hashed, both signatures verified, JSON parsed). PGlite, or Postgres with TEST_DATABASE_URL.

const ALPHA = 'alpha.bench';
const BETA = 'beta.bench';
const USERS = 20;

export async function benchPostIngest(log: (line: string) => void): Promise<BenchRow[]> {
  const clock = createManualClock();
  const env = { SWARM_RATE_LIMIT_PER_MIN: '1000000' };
  const beta = await createTestNode({ ...env, SWARM_DOMAIN: BETA }, { clock });
  const alpha = await createTestNode(
    { ...env, SWARM_DOMAIN: ALPHA },
    {
      clock,
      db: { poolSize: DEFAULT_POOL_SIZE },
      transport: transportFromFetch(async (request) => beta.app.fetch(request)),
      resolveHost: async () => ['93.184.216.34'],
    },
  );
  const server = createHttpServer({ fetch: alpha.app.fetch });
  try {
    const { prisma } = alpha.node.db;
    const senders = await createLikeSenders(beta, USERS);
    const dids = new Map<string, string>();
    for (const user of await beta.node.db.prisma.user.findMany({
      select: { handle: true, did: true },
    })) {
      if (user.did) dids.set(user.handle, user.did);
    }
    // Someone on alpha follows every sender: their pushes are wanted here.
    const reader = await prisma.user.create({
      data: { handle: 'reader', displayName: 'Reader', passwordHash: '!' },
    });
    for (const sender of senders) {
      const actor = await prisma.remoteActor.create({
        data: {
          actorUrl: `swarm://${BETA}/${sender.handle}`,
          handle: sender.handle,
          nodeDomain: BETA,
        },
      });
      await prisma.follow.create({
        data: {
          followerKey: localActorKey(reader.id),
          followerUserId: reader.id,
          followeeKey: actor.actorUrl,
          followeeRemoteActorId: actor.id,
          state: 'accepted',
        },
      });
    }

    let pushes = 0;
    const pushOf = async (sender: LikeSender): Promise<Prepared> => {
      const now = clock.now();
      const post = {
        id: randomUUID(),
        content: `post ${++pushes} by ${sender.handle}, with a few words like a real one`,
        createdAt: formatTimestamp(now),
        isNsfw: false,
        visibility: 'public' as const,
      };
      const postSignature = await signUserAction({
        privateKey: sender.privateKey,
        action: 'post',
        targetDomain: BETA,
        body: post,
      });
      const body = JSON.stringify({
        post,
        author: {
          handle: sender.handle,
          displayName: sender.handle,
          isNsfw: false,
          did: dids.get(sender.handle),
        },
        nodeDomain: BETA,
        timestamp: formatTimestamp(now),
        postSignature,
      });
      const headers = await signNodeRequest({
        privateKey: beta.node.keys.privateKey,
        method: 'POST',
        path: SWARM_PATHS.inbox,
        sourceDomain: BETA,
        targetDomain: ALPHA,
        body,
        now,
      });
      return { body, headers: { 'content-type': 'application/json', ...headers } };
    };
    const batch = async (count: number) => {
      const prepared: Prepared[] = [];
      for (let i = 0; i < count; i++) prepared.push(await pushOf(senders[i % USERS]!));
      return prepared;
    };

    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${SWARM_PATHS.inbox}`;
    // Warm-up, not measured: alpha pins beta's node key and every author's did.
    await send(url, await batch(USERS), USERS);
    const calibration = await send(url, await batch(CALIBRATION_REQUESTS), CONNECTIONS);
    const requests = Math.round(
      Math.min(MAX_REQUESTS, Math.max(MIN_REQUESTS, calibration.perSecond * SECONDS_PER_CASE)),
    );
    log(`  preparing ${requests} pushed posts (user + node signatures)…`);
    const prepared = await batch(requests);
    log('  sending them to the floor (bare node:http, signature checks only)…');
    const userKeys = new Map(senders.map((s) => [s.handle, s.publicKey]));
    const floor = await floorServer({
      path: SWARM_PATHS.inbox,
      nodeKey: beta.node.keys.publicKey,
      userSigned: async (body) => {
        const push = body as {
          post: Record<string, unknown>;
          author: { handle: string };
          postSignature: string;
        };
        const key = userKeys.get(push.author.handle);
        return (
          key !== undefined &&
          verifyUserAction({
            publicKey: key,
            action: 'post',
            targetDomain: BETA,
            body: { ...push.post, signature: push.postSignature },
          })
        );
      },
    });
    const floorRun = await send(floor.url, prepared, CONNECTIONS).finally(() =>
      floor.server.close(),
    );
    const before = await prisma.post.count({ where: { apId: { not: null } } });
    log(`  sending ${requests} pushed posts to alpha, ${CONNECTIONS} connections…`);
    const run = await send(url, prepared, CONNECTIONS);
    const stored = (await prisma.post.count({ where: { apId: { not: null } } })) - before;
    const database = alpha.node.db.kind === 'postgres' ? 'Postgres' : 'PGlite';
    return [
      {
        name: 'floor: the signature checks alone on bare node:http (baseline)',
        perSecond: floorRun.perSecond,
        p50Ms: floorRun.p50Ms,
        p99Ms: floorRun.p99Ms,
        ratio: 1,
        note: `the same ${requests} pushes: body read, SHA-256, node and author signatures verified, JSON parsed${floorRun.errors ? `; ${floorRun.errors}` : ''}`,
      },
      {
        name: `pushed posts stored, ${database}`,
        perSecond: run.perSecond,
        p50Ms: run.p50Ms,
        p99Ms: run.p99Ms,
        ratio: run.perSecond / floorRun.perSecond,
        target: database === 'Postgres' ? '≥ 60 % of the floor' : '≥ 40 % of the floor',
        met:
          run.errors === undefined &&
          run.perSecond / floorRun.perSecond >= (database === 'Postgres' ? 0.6 : 0.4),
        note: [
          `${requests} requests over a real port`,
          stored === requests
            ? `${stored} copies stored`
            : `WRONG: ${stored} of ${requests} stored`,
          ...(run.errors ? [run.errors] : []),
        ].join('; '),
      },
    ];
  } finally {
    server.close();
    await alpha.close();
    await beta.close();
  }
}
