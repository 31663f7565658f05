import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { createHttpServer } from '@swarm/gateway';
import { createTestNode } from '../test/harness.ts';
import type { BenchRow } from './report.ts';

const CONNECTIONS = 50;
const DURATION_S = 5;

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
 * a share of a bare Hono JSON route on the same machine. Target: ≥ 25 % of the baseline.
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
  try {
    const baseline = await load(bareUrl);
    const rows: BenchRow[] = [{ name: 'bare Hono JSON route (baseline)', ...baseline, ratio: 1 }];
    for (const [name, path] of [
      ['GET /api/swarm/info', '/api/swarm/info'],
      ['GET /api/swarm/timeline', '/api/swarm/timeline'],
      ['GET /api/swarm/users/alice', '/api/swarm/users/alice'],
      ['GET /api/swarm/posts/[id]', `/api/swarm/posts/${postId}`],
    ] as const) {
      try {
        const r = await load(`${base}${path}`);
        const ratio = r.perSecond / baseline.perSecond;
        rows.push({ name, ...r, ratio, target: '≥ 25 % of baseline', met: ratio >= 0.25 });
      } catch (error) {
        rows.push({
          name,
          perSecond: 0,
          note: String(error),
          target: '≥ 25 % of baseline',
          met: false,
        });
      }
    }
    return rows;
  } finally {
    server.close();
    bareServer.close();
    await t.close();
  }
}
