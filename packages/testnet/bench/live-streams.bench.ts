import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import { freePort, startNodeProcess } from '../src/node-process.ts';
import { writeTable } from './report.ts';

// `pnpm bench live`: how much memory one node process needs to hold 1,000 open live-update
// streams (`GET /events`, issue #14: "< 100 MB extra"). The baseline, measured in the same run
// on the same process, is its RSS once signed-in pages have been served and it idled, before
// any stream is opened; the streams then stay open (each got its first snapshot) and the RSS is
// read again after the same idle time. One person holds them all (the per-person bound raised
// for the run): what is measured is the process, not the number of accounts.

const STREAMS = Number(process.env.BENCH_LIVE_STREAMS ?? 1_000);
const IDLE_MS = 5_000;
const ADMIN_TOKEN = 'bench-live-admin-token-0123456789';
const PASSWORD = 'correct horse battery staple';

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

const idle = () => new Promise((r) => setTimeout(r, IDLE_MS));

export async function benchLiveStreams(resultsDir: string, log: (line: string) => void) {
  const dataDir = await mkdtemp(join(tmpdir(), 'swarm-bench-live-'));
  const port = await freePort();
  const base = `http://localhost:${port}`;
  // BENCH_DATABASE_URL: an empty Postgres database instead of PGlite (it boots faster).
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const node = await startNodeProcess({
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    PORT: String(port),
    SWARM_DOMAIN: `localhost:${port}`,
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    SWARM_LIVE_STREAMS_PER_USER: String(STREAMS),
    SWARM_LIVE_STREAMS_MAX: String(STREAMS),
  });
  // One socket per stream, as browsers hold them.
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const held: { destroy(): void }[] = [];
  try {
    const created = await fetch(`${base}/api/swarm/admin/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ handle: 'alice', password: PASSWORD }),
    });
    if (created.status !== 201) throw new Error(`admin/users answered ${created.status}`);
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        origin: base,
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ handle: 'alice', password: PASSWORD }).toString(),
    });
    const cookie = login.headers
      .getSetCookie()
      .find((c) => c.startsWith('swarm_session='))
      ?.split(';', 1)[0];
    if (!cookie) throw new Error(`login answered ${login.status}`);
    // Warm: the pages a signed-in person opens, so the baseline holds what serving them loads.
    for (const path of ['/', '/notifications', '/messages', '/deliveries', '/', '/']) {
      await (await fetch(`${base}${path}`, { headers: { cookie } })).text();
    }
    await idle();
    const pid = node.child.pid!;
    const baseline = await rssMb(pid);
    log(`  baseline (no stream): ${baseline.toFixed(0)} MB`);

    const open = () =>
      new Promise<void>((resolve, reject) => {
        const req = request(
          `${base}/events`,
          { agent, headers: { cookie, accept: 'text/event-stream' } },
          (res) => {
            if (res.statusCode !== 200) {
              reject(new Error(`/events answered ${res.statusCode}`));
              res.resume();
              return;
            }
            let text = '';
            const onData = (chunk: Buffer) => {
              text += chunk.toString();
              if (text.includes('event: state')) {
                res.off('data', onData);
                res.resume();
                resolve();
              }
            };
            res.on('data', onData);
          },
        );
        req.on('error', reject);
        req.end();
        held.push(req);
      });
    const started = performance.now();
    for (let i = 0; i < STREAMS; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, STREAMS - i) }, open));
    }
    const openMs = performance.now() - started;
    await idle();
    const withStreams = await rssMb(pid);
    const extra = withStreams - baseline;
    log(
      `  ${STREAMS} streams open in ${Math.round(openMs)} ms: ${withStreams.toFixed(0)} MB (+${extra.toFixed(1)} MB)`,
    );
    const rows = [
      { case: 'baseline: signed-in pages served, no stream', rssMb: Math.round(baseline) },
      {
        case: `${STREAMS} open streams (each had its first snapshot)`,
        rssMb: Math.round(withStreams),
        extraMb: +extra.toFixed(1),
        perStreamKb: Math.round((extra * 1024) / STREAMS),
        openMs: Math.round(openMs),
        met: extra < 100,
      },
    ];
    await writeTable(resultsDir, 'live-streams', 'Open live-update streams in one process', {
      intro: `The embedded node (\`node apps/gateway/dist/main.js --with-web\`, ${databaseUrl ? 'Postgres' : 'PGlite'}), RSS from /proc after ${IDLE_MS / 1000} s idle; client on the same machine.`,
      columns: ['case', 'RSS MB', 'extra MB', 'per stream kB', 'opened in ms', '< 100 MB extra'],
      align: ['left', 'right', 'right', 'right', 'right', 'left'],
      rows: rows.map((r) => [
        r.case,
        String(r.rssMb),
        r.extraMb === undefined ? '' : r.extraMb.toFixed(1),
        r.perStreamKb === undefined ? '' : String(r.perStreamKb),
        r.openMs === undefined ? '' : String(r.openMs),
        r.met === undefined ? '' : r.met ? 'yes' : 'NO',
      ]),
      data: rows,
      notes: [
        'Extra = RSS with the streams open minus the baseline of the same process in the same run.',
      ],
    });
  } finally {
    for (const req of held) req.destroy();
    agent.destroy();
    await node.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
