import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { freePort } from '../src/node-process.ts';
import type { BenchRow } from './report.ts';

// `pnpm bench pages`: server-rendered pages of the embedded node as `pnpm start` runs it (the
// compiled entry with its flags, PGlite, demo content, LOG_LEVEL=warn), a signed-out visitor,
// 10 connections; and that process's gateway timeline with 50 connections. The baseline, in the
// same run, is the read benchmark's bare Hono JSON route: compare ratios, not absolutes. BENCH_PAGES_BASELINE=<checkout> also runs the same cases
// against another built checkout (an older commit), alternating with this one.

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CONNECTIONS = 10;
const DURATION_S = Number(process.env.BENCH_PAGES_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_PAGES_ROUNDS ?? 2);
/** The targets: per page, on PGlite, 10 connections. */
const TARGET_PER_S = 150;
const TARGET_P99_MS = 150;
const PAGES = ['/public', '/@demo_ada'] as const;
/** The gateway's public timeline of the same process, as peers read it (50 connections). */
const GATEWAY_READ = '/api/swarm/timeline';
const GATEWAY_CONNECTIONS = 50;
const GATEWAY_TARGET_RATIO = 0.6;
const START_TIMEOUT_MS = 180_000;

interface Load {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Share of the bare route measured just before, where there is one. */
  ratio?: number;
}

async function load(url: string, connections = CONNECTIONS): Promise<Load> {
  const result = await autocannon({ url, connections, duration: DURATION_S });
  if (result.non2xx > 0 || result['2xx'] === 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return {
    perSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}

interface Running {
  base: string;
  stop(): Promise<void>;
}

/**
 * The node of `checkout` on a free port, started as `pnpm start` starts it (the compiled entry
 * with the same node flags); a checkout from before the compiled entry runs its source with tsx.
 */
async function startNode(checkout: string): Promise<Running> {
  const port = await freePort();
  const compiled = join(checkout, 'apps/gateway/dist/main.js');
  const [args, cwd] = existsSync(compiled)
    ? [['--max-semi-space-size=2', '--v8-pool-size=1', compiled, '--with-web'], checkout]
    : [['--import', 'tsx', 'src/main.ts', '--with-web'], join(checkout, 'apps/gateway')];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SWARM_DOMAIN: `localhost:${port}`,
      DATABASE_URL: 'pglite:memory',
      SWARM_DEMO_CONTENT: '1',
      SWARM_DEV: '1',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`node exited (${child.exitCode}): ${stderr}`);
    if (Date.now() - started > START_TIMEOUT_MS) {
      child.kill('SIGKILL');
      throw new Error(`node did not answer within ${START_TIMEOUT_MS} ms: ${stderr}`);
    }
    const ok = await fetch(`${base}${PAGES[0]}`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  // Warm-up: the first renders compile the page modules.
  for (const path of PAGES) for (let i = 0; i < 20; i++) await (await fetch(base + path)).text();
  return {
    base,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

const range = (values: number[], digits = 0) => {
  const lo = Math.min(...values).toFixed(digits);
  const hi = Math.max(...values).toFixed(digits);
  return lo === hi ? lo : `${lo}–${hi}`;
};

/** Per page: rounds alternating between this checkout and the baseline checkout, if any. */
export async function benchPages(log: (line: string) => void): Promise<BenchRow[]> {
  const bare = new Hono().get('/', (c) => c.json({ ok: true, at: new Date().toISOString() }));
  const bareServer = serve({
    fetch: bare.fetch,
    port: 0,
    hostname: '127.0.0.1',
    overrideGlobalObjects: false,
  });
  await new Promise((r) => bareServer.once('listening', r));
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/`;

  const other = process.env.BENCH_PAGES_BASELINE;
  const checkouts = [
    { name: 'this checkout', dir: ROOT },
    ...(other ? [{ name: `baseline checkout (${other})`, dir: resolve(other) }] : []),
  ];
  const nodes = [];
  try {
    for (const c of checkouts) nodes.push({ ...c, node: await startNode(c.dir) });
    const results = new Map<string, Load[]>();
    const add = (key: string, r: Load) => results.set(key, [...(results.get(key) ?? []), r]);
    for (let round = 1; round <= ROUNDS; round++) {
      const b = await load(bareUrl);
      add('bare', b);
      log(`round ${round}: bare Hono ${b.perSecond.toFixed(0)}/s`);
      const b50 = await load(bareUrl, GATEWAY_CONNECTIONS);
      log(
        `round ${round}: bare Hono, ${GATEWAY_CONNECTIONS} connections, ${b50.perSecond.toFixed(0)}/s`,
      );
      for (const n of nodes) {
        const r = await load(n.node.base + GATEWAY_READ, GATEWAY_CONNECTIONS);
        const ratio = r.perSecond / b50.perSecond;
        add(`${n.name} gateway`, { ...r, ratio });
        log(
          `round ${round}: ${n.name} ${GATEWAY_READ} ${r.perSecond.toFixed(0)}/s (${Math.round(ratio * 100)} %)`,
        );
      }
      for (const path of PAGES) {
        for (const n of nodes) {
          const r = await load(n.node.base + path);
          add(`${n.name} ${path}`, r);
          log(`round ${round}: ${n.name} ${path} ${r.perSecond.toFixed(0)}/s p99 ${r.p99Ms} ms`);
        }
      }
    }
    const bareRuns = results.get('bare')!;
    const bareMean = bareRuns.reduce((s, r) => s + r.perSecond, 0) / bareRuns.length;
    const rows: BenchRow[] = [
      {
        name: `bare Hono JSON route (baseline, ${CONNECTIONS} connections)`,
        perSecond: bareMean,
        ratio: 1,
        note: `${range(bareRuns.map((r) => r.perSecond))}/s over ${ROUNDS} rounds`,
      },
    ];
    for (const path of PAGES) {
      for (const n of nodes) {
        const runs = results.get(`${n.name} ${path}`)!;
        const perSecond = Math.min(...runs.map((r) => r.perSecond));
        const p99 = Math.max(...runs.map((r) => r.p99Ms));
        rows.push({
          name: `GET ${path} (${n.name})`,
          perSecond,
          p50Ms: Math.max(...runs.map((r) => r.p50Ms)),
          p99Ms: p99,
          ratio: perSecond / bareMean,
          target: `≥ ${TARGET_PER_S}/s, p99 ≤ ${TARGET_P99_MS} ms`,
          met: perSecond >= TARGET_PER_S && p99 <= TARGET_P99_MS,
          note: `${range(runs.map((r) => r.perSecond))}/s, p99 ${range(runs.map((r) => r.p99Ms))} ms (worst round shown)`,
        });
      }
    }
    for (const n of nodes) {
      const runs = results.get(`${n.name} gateway`)!;
      const ratios = runs.map((r) => r.ratio ?? 0);
      rows.push({
        name: `GET ${GATEWAY_READ} (${n.name}, ${GATEWAY_CONNECTIONS} connections)`,
        perSecond: runs.reduce((sum, r) => sum + r.perSecond, 0) / runs.length,
        p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
        ratio: ratios.reduce((a, b) => a + b, 0) / ratios.length,
        target: `≥ ${GATEWAY_TARGET_RATIO * 100} % of the bare route (${GATEWAY_CONNECTIONS} connections)`,
        met: Math.min(...ratios) >= GATEWAY_TARGET_RATIO,
        note: `per round ${range(ratios.map((r) => r * 100))} % of the bare route just before`,
      });
    }
    return rows;
  } finally {
    for (const n of nodes) await n.node.stop();
    bareServer.close();
  }
}
