import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { createHttpServer } from '@swarm/gateway';
import { createTestNode } from '../test/harness.ts';
import type { BenchRow } from './report.ts';

const CONNECTIONS = 50;
const DURATION_S = 5;
const ROUNDS = Number(process.env.BENCH_READS_ROUNDS ?? 3);
/** Public reads answered from the read cache: their share of the bare route (issue #24). */
const TARGET_RATIO = 0.6;
const TARGET = '≥ 60 % of baseline in every round';

async function load(url: string) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S });
  const ok = result['2xx'];
  if (result.non2xx > 0 || ok === 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return {
    perSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}

async function listen(server: ReturnType<typeof createHttpServer>): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * Reads over real HTTP (autocannon, 50 connections) against an embedded-database node, each as
 * a share of a bare Hono JSON route on the same machine, served the same way (the platform's
 * Request and Response). Target: ≥ 60 % of the baseline.
 */
export async function benchReads(): Promise<BenchRow[]> {
  const bare = new Hono().get('/', (c) => c.json({ ok: true, at: new Date().toISOString() }));
  // Served as the node's own server is (http-server.ts): the platform's Request and Response.
  const bareServer = serve({
    fetch: bare.fetch,
    port: 0,
    hostname: '127.0.0.1',
    overrideGlobalObjects: false,
  });
  await new Promise((r) => bareServer.once('listening', r));
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/`;

  const t = await createTestNode({ SWARM_DOMAIN: 'bench.test' });
  const { prisma } = t.node.db;
  const alice = await prisma.user.create({
    data: { handle: 'alice', displayName: 'Alice', passwordHash: '!', bio: 'benchmarks all day' },
  });
  let postId = '';
  for (let i = 0; i < 200; i++) {
    const post = await prisma.post.create({
      data: { authorId: alice.id, content: `post number ${i} with some words in it` },
    });
    postId = post.id;
  }
  await prisma.user.update({ where: { id: alice.id }, data: { postsCount: 200 } });

  const server = createHttpServer({ fetch: t.app.fetch });
  const base = await listen(server);
  const cases = [
    ['GET /api/swarm/info', '/api/swarm/info'],
    ['GET /api/swarm/timeline', '/api/swarm/timeline'],
    ['GET /api/swarm/users/alice', '/api/swarm/users/alice'],
    ['GET /api/swarm/posts/[id]', `/api/swarm/posts/${postId}`],
  ] as const;
  try {
    // Rounds alternate the baseline and the cases (the machine's speed drifts); each case's
    // share is taken against the baseline of its own round.
    const baselines: Awaited<ReturnType<typeof load>>[] = [];
    const runs = new Map<string, { r: Awaited<ReturnType<typeof load>>; ratio: number }[]>();
    const failures = new Map<string, string>();
    for (let round = 0; round < ROUNDS; round++) {
      const baseline = await load(bareUrl);
      baselines.push(baseline);
      for (const [name, path] of cases) {
        try {
          const r = await load(`${base}${path}`);
          runs.set(name, [
            ...(runs.get(name) ?? []),
            { r, ratio: r.perSecond / baseline.perSecond },
          ]);
        } catch (error) {
          failures.set(name, String(error));
        }
      }
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const pct = (values: number[]) =>
      `${Math.round(Math.min(...values) * 100)}–${Math.round(Math.max(...values) * 100)} %`;
    const rows: BenchRow[] = [
      {
        name: 'bare Hono JSON route (baseline)',
        perSecond: mean(baselines.map((b) => b.perSecond)),
        p50Ms: mean(baselines.map((b) => b.p50Ms)),
        p99Ms: Math.max(...baselines.map((b) => b.p99Ms)),
        ratio: 1,
        note: `${ROUNDS} rounds: ${baselines.map((b) => b.perSecond.toFixed(0)).join(', ')}/s`,
      },
    ];
    for (const [name] of cases) {
      const got = runs.get(name);
      if (!got || failures.has(name)) {
        rows.push({ name, perSecond: 0, note: failures.get(name), target: TARGET, met: false });
        continue;
      }
      const ratios = got.map((g) => g.ratio);
      rows.push({
        name,
        perSecond: mean(got.map((g) => g.r.perSecond)),
        p50Ms: mean(got.map((g) => g.r.p50Ms)),
        p99Ms: Math.max(...got.map((g) => g.r.p99Ms)),
        ratio: mean(ratios),
        target: TARGET,
        met: Math.min(...ratios) >= TARGET_RATIO,
        note: `per round ${pct(ratios)} of that round's baseline`,
      });
    }
    return rows;
  } finally {
    server.close();
    bareServer.close();
    await t.close();
  }
}
