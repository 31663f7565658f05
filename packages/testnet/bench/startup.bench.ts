import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../src/node-process.ts';
import { writeTable } from './report.ts';

// `pnpm bench startup`: how long `pnpm start` takes to serve its first page on an already built
// checkout, and how much memory the node then holds while idle (docs/benchmarks.md). The
// baseline, measured in the same run, is the floor of any Node server: spawning `node` and
// answering one request. Memory counts every process of the node (the pnpm CLI that `pnpm start`
// leaves as their parent is not counted, as the issue asks).

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 3);
/** After the first page: two more pages, then this long idle before memory is read. */
const IDLE_MS = 5_000;

interface Case {
  name: string;
  /** The command, from the repository root. */
  command: (port: number) => [string, string[]];
  /** Path of the first page. */
  path: string;
  /** A data directory that already holds a node (a restart) or a new one (a first start). */
  data: 'existing' | 'fresh' | 'none';
  /** Whether the spawned process is a wrapper whose own memory is not counted (pnpm). */
  wrapperNotCounted: boolean;
}

const CASES: Case[] = [
  {
    name: 'baseline: node -e (http server, one answer)',
    command: (port) => [
      process.execPath,
      [
        '-e',
        `require('node:http').createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1')`,
      ],
    ],
    path: '/',
    data: 'none',
    wrapperNotCounted: false,
  },
  {
    name: '`pnpm start`, restart (existing data)',
    command: () => ['pnpm', ['start']],
    path: '/',
    data: 'existing',
    wrapperNotCounted: true,
  },
  {
    name: '`pnpm start`, first start (new data dir)',
    command: () => ['pnpm', ['start']],
    path: '/',
    data: 'fresh',
    wrapperNotCounted: true,
  },
  {
    name: 'before: tsx src/main.ts --with-web, restart',
    command: () => [
      process.execPath,
      [createRequire(import.meta.url).resolve('tsx/cli'), 'apps/gateway/src/main.ts', '--with-web'],
    ],
    path: '/',
    data: 'existing',
    wrapperNotCounted: false,
  },
];

/** RSS in kB of a process, and its descendants' (from /proc). */
async function processTreeRss(rootPid: number, countRoot: boolean): Promise<number> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const tree = new Set([rootPid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!tree.has(pid) && tree.has(ppid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  if (!countRoot) tree.delete(rootPid);
  let kb = 0;
  for (const pid of tree) {
    try {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return kb;
}

async function firstAnswer(url: string, child: ChildProcess, deadline: number): Promise<void> {
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the process exited with ${child.exitCode}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no answer from ${url}`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  // pnpm leaves the node as its child: signal the whole group, as ^C in a terminal does.
  process.kill(-child.pid!, 'SIGTERM');
  const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 30_000);
  await exited;
  clearTimeout(killer);
}

interface Measurement {
  firstPageMs: number;
  idleRssMb: number;
}

async function measure(c: Case, existingDir: string): Promise<Measurement> {
  const port = await freePort();
  const fresh = c.data === 'fresh' ? await mkdtemp(join(tmpdir(), 'swarm-bench-start-')) : null;
  const dataDir = fresh ?? existingDir;
  const [cmd, args] = c.command(port);
  const started = performance.now();
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
    detached: true,
  });
  try {
    await firstAnswer(`http://127.0.0.1:${port}${c.path}`, child, started + 120_000);
    const firstPageMs = performance.now() - started;
    for (let i = 0; i < 2; i++) await (await fetch(`http://127.0.0.1:${port}${c.path}`)).text();
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const kb = await processTreeRss(child.pid!, !c.wrapperNotCounted);
    return { firstPageMs, idleRssMb: kb / 1024 };
  } finally {
    await stop(child);
    if (fresh) await rm(fresh, { recursive: true, force: true });
  }
}

const range = (values: number[], digits = 0) => {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return lo.toFixed(digits) === hi.toFixed(digits)
    ? lo.toFixed(digits)
    : `${lo.toFixed(digits)}–${hi.toFixed(digits)}`;
};

export async function benchStartup(resultsDir: string, log: (line: string) => void) {
  // "Already built": build what changed first, outside the clock.
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('the build failed');
  const existingDir = await mkdtemp(join(tmpdir(), 'swarm-bench-node-'));
  try {
    // The node the restarts find: created (and migrated) once.
    await measure(CASES[1]!, existingDir);
    const results = new Map<Case, Measurement[]>(CASES.map((c) => [c, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of CASES) {
        const m = await measure(c, existingDir);
        results.get(c)!.push(m);
        log(
          `  round ${round + 1}: ${c.name}: first page ${Math.round(m.firstPageMs)} ms, idle ${Math.round(m.idleRssMb)} MB`,
        );
      }
    }
    const baseline = results.get(CASES[0]!)!;
    const baseMs = baseline.reduce((s, m) => s + m.firstPageMs, 0) / baseline.length;
    const rows = CASES.map((c) => {
      const ms = results.get(c)!;
      const isStart = c.name.startsWith('`pnpm start`');
      const worstMs = Math.max(...ms.map((m) => m.firstPageMs));
      const worstMb = Math.max(...ms.map((m) => m.idleRssMb));
      return {
        case: c.name,
        firstPageMs: ms.map((m) => Math.round(m.firstPageMs)),
        idleRssMb: ms.map((m) => Math.round(m.idleRssMb)),
        vsBaseline: ms.map((m) => +(m.firstPageMs / baseMs).toFixed(1)),
        startTargetMet: isStart ? worstMs <= 3000 : undefined,
        memoryTargetMet: isStart ? worstMb <= 300 : undefined,
      };
    });
    await writeTable(resultsDir, 'startup', 'Start-up and idle memory', {
      intro: `${ROUNDS} rounds, cases alternating.`,
      columns: ['case', 'first page ms', '× baseline', 'idle RSS MB', '≤ 3 s', '≤ 300 MB'],
      align: ['left', 'right', 'right', 'right', 'left', 'left'],
      rows: rows.map((r) => [
        r.case,
        range(r.firstPageMs),
        range(r.vsBaseline, 1),
        range(r.idleRssMb),
        r.startTargetMet === undefined ? '' : r.startTargetMet ? 'yes' : 'NO',
        r.memoryTargetMet === undefined ? '' : r.memoryTargetMet ? 'yes' : 'NO',
      ]),
      data: rows,
      notes: [
        'Idle RSS: every process of the node after its first page, two more pages and 5 s idle ' +
          '(for `pnpm start`, the pnpm CLI parent not counted; for tsx, its CLI and node both).',
      ],
    });
  } finally {
    await rm(existingDir, { recursive: true, force: true });
  }
}
