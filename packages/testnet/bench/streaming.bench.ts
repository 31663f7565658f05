import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { freePort, startNodeProcess } from '../src/node-process.ts';
import { writeTable } from './report.ts';

// `pnpm bench streaming`: how much memory one node process needs to hold 1,000 apps' streaming
// WebSockets (`/api/v1/streaming`, issue 25: "1,000 streaming clients < 100 MB extra"), and how
// long one post takes to reach all of them. Each client is a person's app: its token (one per 20
// sockets, the per-token bound), the `user` and `public:local` streams on one socket. The
// baseline, in the same run on the same process, is its RSS once the client API has been used
// (a socket opened and closed) and it idled; the sockets then stay open and the RSS is read
// again after the same idle time.

const CLIENTS = Number(process.env.BENCH_STREAMING_CLIENTS ?? 1_000);
const PER_TOKEN = 20;
const IDLE_MS = 5_000;
const PASSWORD = 'correct horse battery staple';
const OOB = 'urn:ietf:wg:oauth:2.0:oob';

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

const idle = () => new Promise((r) => setTimeout(r, IDLE_MS));

export async function benchStreaming(resultsDir: string, log: (line: string) => void) {
  const dataDir = await mkdtemp(join(tmpdir(), 'swarm-bench-streaming-'));
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const node = await startNodeProcess({
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    PORT: String(port),
    SWARM_DOMAIN: `localhost:${port}`,
    DATA_DIR: dataDir,
    // Each client its own address, as phones are (the per-address bound is not what is measured).
    ADDRESS_HEADER: 'X-Forwarded-For',
    XFF_DEPTH: '1',
  });
  const sockets: WebSocket[] = [];
  let address = 0;
  const nextAddress = () => {
    address += 1;
    return `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`;
  };
  try {
    const signup = await fetch(`${base}/signup`, {
      method: 'POST',
      redirect: 'manual',
      headers: { accept: 'text/html', origin: base, 'x-forwarded-for': nextAddress() },
      body: new URLSearchParams({ handle: 'alice', displayName: 'Alice', password: PASSWORD }),
    });
    const cookie = /swarm_session=([^;]+)/.exec(signup.headers.get('set-cookie') ?? '')?.[1];
    if (!cookie) throw new Error(`signup answered ${signup.status}`);
    const session = `swarm_session=${cookie}`;

    /** A token the way an app gets one: registration, consent (out of band), code. */
    const token = async () => {
      const app = (await (
        await fetch(`${base}/api/v1/apps`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': nextAddress() },
          body: JSON.stringify({ client_name: 'Bench', redirect_uris: OOB, scopes: 'read' }),
        })
      ).json()) as { client_id: string; client_secret: string };
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: app.client_id,
        redirect_uri: OOB,
        scope: 'read',
      });
      const page = await fetch(`${base}/oauth/authorize?${query}`, {
        method: 'POST',
        headers: {
          accept: 'text/html',
          origin: base,
          cookie: session,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ decision: 'allow' }),
      });
      const code = /data-testid="oauth-code">([^<]+)</.exec(await page.text())?.[1];
      if (!code) throw new Error(`consent answered ${page.status} without a code`);
      const issued = (await (
        await fetch(`${base}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            grant_type: 'authorization_code',
            code,
            client_id: app.client_id,
            client_secret: app.client_secret,
            redirect_uri: OOB,
          }),
        })
      ).json()) as { access_token: string };
      return issued.access_token;
    };
    const tokens: string[] = [];
    for (let i = 0; i < Math.ceil(CLIENTS / PER_TOKEN); i++) tokens.push(await token());

    const url = base.replace(/^http/, 'ws') + '/api/v1/streaming';
    const received = new Map<WebSocket, number>();
    const open = (accessToken: string) =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(`${url}?stream=user`, accessToken, {
          headers: { 'x-forwarded-for': nextAddress() },
          perMessageDeflate: false,
        });
        ws.once('open', () => {
          ws.send(JSON.stringify({ type: 'subscribe', stream: 'public:local' }));
          resolve(ws);
        });
        ws.once('unexpected-response', (_req, res) =>
          reject(new Error(`the upgrade answered ${res.statusCode}`)),
        );
        ws.once('error', reject);
        ws.on('message', () => received.set(ws, (received.get(ws) ?? 0) + 1));
      });

    // Warm: the client API and the streaming code loaded, one socket opened and closed.
    (await open(tokens[0]!)).close();
    await idle();
    const pid = node.child.pid!;
    const baseline = await rssMb(pid);
    log(`  baseline (no socket): ${baseline.toFixed(0)} MB`);

    const started = performance.now();
    for (let i = 0; i < CLIENTS; i += 50) {
      const batch = Array.from({ length: Math.min(50, CLIENTS - i) }, (_, j) =>
        open(tokens[Math.floor((i + j) / PER_TOKEN)]!),
      );
      sockets.push(...(await Promise.all(batch)));
    }
    const openMs = performance.now() - started;
    await idle();
    const withSockets = await rssMb(pid);
    const extra = withSockets - baseline;
    log(
      `  ${CLIENTS} sockets open in ${Math.round(openMs)} ms: ${withSockets.toFixed(0)} MB (+${extra.toFixed(1)} MB)`,
    );

    // One post by the person: each socket gets it twice (public:local and user).
    const posted = performance.now();
    const answer = await fetch(`${base}/trpc/posts.create`, {
      method: 'POST',
      headers: { origin: base, 'content-type': 'application/json', cookie: session },
      body: JSON.stringify({ content: 'to every socket', visibility: 'public' }),
    });
    if (!answer.ok) throw new Error(`posts.create answered ${answer.status}`);
    const deadline = Date.now() + 30_000;
    while ([...received.values()].filter((n) => n >= 2).length < CLIENTS) {
      if (Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const reached = [...received.values()].filter((n) => n >= 2).length;
    const fanOutMs = performance.now() - posted;
    log(
      `  one post reached ${reached} of ${CLIENTS} sockets (both streams) in ${Math.round(fanOutMs)} ms`,
    );

    const rows = [
      { case: 'baseline: client API used, no socket open', rssMb: Math.round(baseline) },
      {
        case: `${CLIENTS} open sockets (user + public:local each)`,
        rssMb: Math.round(withSockets),
        extraMb: +extra.toFixed(1),
        perClientKb: Math.round((extra * 1024) / CLIENTS),
        openMs: Math.round(openMs),
        met: extra < 100,
      },
      {
        case: `one post to all of them: reached ${reached} of ${CLIENTS}`,
        fanOutMs: Math.round(fanOutMs),
      },
    ];
    await writeTable(resultsDir, 'streaming', "Apps' streaming WebSockets in one process", {
      intro: `The embedded node (\`node apps/gateway/dist/main.js --with-web\`, ${databaseUrl ? 'Postgres' : 'PGlite'}), RSS from /proc after ${IDLE_MS / 1000} s idle; clients (\`ws\`) on the same machine, ${PER_TOKEN} sockets per token.`,
      columns: ['case', 'RSS MB', 'extra MB', 'per client kB', 'ms', '< 100 MB extra'],
      align: ['left', 'right', 'right', 'right', 'right', 'left'],
      rows: rows.map((r) => [
        r.case,
        r.rssMb === undefined ? '' : String(r.rssMb),
        r.extraMb === undefined ? '' : r.extraMb.toFixed(1),
        r.perClientKb === undefined ? '' : String(r.perClientKb),
        String(r.openMs ?? r.fanOutMs ?? ''),
        r.met === undefined ? '' : r.met ? 'yes' : 'NO',
      ]),
      data: rows,
      notes: [
        'Extra = RSS with the sockets open minus the baseline of the same process in the same run.',
        'ms: the time to open them all (50 at a time), or from the post request to the last socket having both events.',
      ],
    });
  } finally {
    for (const ws of sockets) ws.terminate();
    await node.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
