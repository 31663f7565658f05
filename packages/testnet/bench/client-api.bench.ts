import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signUp, tokenFor, trpc } from '../src/app-tokens.ts';
import { freePort, nodeOnPort } from '../src/node-process.ts';
import type { BenchRow } from './report.ts';

// `pnpm bench client-api`: the home timeline through the client API (`GET /api/v1/timelines/
// home?limit=20`, a bearer token, Mastodon's Status entities) against the pages' own read of the
// same timeline (tRPC `timeline.home`, limit 20, the session cookie), on one embedded node as
// `pnpm start` runs it (PGlite), over HTTP from this process, one request at a time, the two
// alternating so that load on the machine falls on both alike. The viewer follows 10 people of
// the node who wrote 8 posts each; some are liked and reposted. Target (issue 25): p99 ≤ 50 ms.

const PEOPLE = 10;
const POSTS_EACH = 8;
const RUNS = Number(process.env.BENCH_CLIENT_API_RUNS ?? 300);
const TARGET_P99_MS = 50;

function stats(samples: number[]) {
  const sorted = [...samples].sort((x, y) => x - y);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const mean = samples.reduce((x, y) => x + y, 0) / samples.length;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1]!, mean };
}

async function timed(url: string, headers: Record<string, string>, expectItems: number) {
  const started = performance.now();
  const response = await fetch(url, { headers });
  const body = (await response.json()) as unknown;
  const elapsed = performance.now() - started;
  const items = Array.isArray(body)
    ? body.length
    : ((body as { result?: { data?: { posts?: unknown[] } } }).result?.data?.posts?.length ?? -1);
  if (!response.ok || items !== expectItems) {
    throw new Error(`${url}: ${response.status}, ${items} items (expected ${expectItems})`);
  }
  return elapsed;
}

export async function benchClientApi(log: (line: string) => void): Promise<BenchRow[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'swarm-bench-client-api-'));
  const node = nodeOnPort({
    dataDir,
    port: await freePort(),
    env: { ADDRESS_HEADER: 'X-Forwarded-For', XFF_DEPTH: '1', LOG_LEVEL: 'info' },
  });
  await node.start();
  try {
    const viewer = await signUp(node, 'viewer');
    const authors: string[] = [];
    for (let p = 0; p < PEOPLE; p++) {
      const cookie = await signUp(node, `author${p}`);
      authors.push(cookie);
      await trpc(node, viewer, 'interactions.follow', { address: `author${p}` });
    }
    const posts: string[] = [];
    for (let i = 0; i < POSTS_EACH; i++) {
      for (const cookie of authors) {
        const created = (await trpc(node, cookie, 'posts.create', {
          content: `post ${i}: words, a #tag and a link https://example.org/${i}`,
        })) as { post: { id: string } };
        posts.push(created.post.id);
      }
    }
    for (const id of posts.slice(-30)) {
      await trpc(node, viewer, 'interactions.like', { postId: id });
    }
    for (const id of posts.slice(-40, -30)) {
      await trpc(node, authors[0]!, 'interactions.repost', { postId: id });
    }
    const token = await tokenFor(node, viewer, 'read');
    log(`  seeded: ${PEOPLE} people followed, ${posts.length} posts`);

    const api = `${node.url}/api/v1/timelines/home?limit=20`;
    const page = `${node.url}/trpc/timeline.home?input=${encodeURIComponent(JSON.stringify({ limit: 20 }))}`;
    const apiHeaders = { authorization: `Bearer ${token}` };
    const pageHeaders = { cookie: viewer };
    for (let i = 0; i < 20; i++) {
      await timed(api, apiHeaders, 20);
      await timed(page, pageHeaders, 20);
    }
    const apiSamples: number[] = [];
    const pageSamples: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      apiSamples.push(await timed(api, apiHeaders, 20));
      pageSamples.push(await timed(page, pageHeaders, 20));
    }
    const client = stats(apiSamples);
    const pages = stats(pageSamples);
    return [
      {
        name: 'tRPC timeline.home (the pages’ read), 20 posts',
        perSecond: 1000 / pages.mean,
        p50Ms: pages.p50,
        p99Ms: pages.p99,
        note: `baseline; max ${pages.max.toFixed(0)} ms; ${RUNS} requests, one at a time`,
      },
      {
        name: 'GET /api/v1/timelines/home?limit=20, 20 statuses',
        perSecond: 1000 / client.mean,
        p50Ms: client.p50,
        p99Ms: client.p99,
        ratio: pages.mean / client.mean,
        target: `p99 ≤ ${TARGET_P99_MS} ms`,
        met: client.p99 <= TARGET_P99_MS,
        note: `max ${client.max.toFixed(0)} ms; p99 ${(client.p99 / pages.p99).toFixed(2)} × the tRPC read's`,
      },
    ];
  } finally {
    await node.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
