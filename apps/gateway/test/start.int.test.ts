import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeInfoSchema } from '@swarm/contract';
import { freePort, NODE_ENTRY, runNodeProcessToExit, startNodeProcess } from '@swarm/testnet';

/** Processes whose command line mentions `text` (from /proc). */
async function processesMentioning(text: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(text)) found.push(Number(entry));
  }
  return found;
}

// The README's start command, for real: one process, one port, an embedded database in a
// fresh data directory, the web app mounted next to the gateway (needs `pnpm build`). Embedded
// whatever the database under test, so CI's Postgres pass (TEST_DATABASE_URL set) skips what
// its PGlite pass has run.
describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('starting a node', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'swarm-start-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it(
    'serves its info and home page, and keeps its key across a restart',
    { timeout: 90_000 },
    async () => {
      const port = await freePort();
      const env = { PORT: String(port), DATA_DIR: dataDir, SWARM_NODE_NAME: 'Alpha Test Node' };

      const first = await startNodeProcess(env);
      let firstKey: string;
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/swarm/info`);
        expect(res.status).toBe(200);
        const info = nodeInfoSchema.parse(await res.json());
        expect(info).toMatchObject({
          domain: `localhost:${port}`,
          name: 'Alpha Test Node',
          userCount: 0,
          postCount: 0,
        });
        expect(info.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
        firstKey = info.publicKey;

        const home = await fetch(`http://127.0.0.1:${port}/`);
        expect(home.status).toBe(200);
        expect(home.headers.get('content-type')).toContain('text/html');
        const html = await home.text();
        // The node's name as the page's heading (scoped style classes may follow the id).
        expect(html).toMatch(/<h1 id="node-title"[^>]*>Alpha Test Node<\/h1>/);

        const missing = await fetch(`http://127.0.0.1:${port}/api/swarm/no-such-thing`);
        expect(missing.status).toBe(404);
        expect(await missing.json()).toMatchObject({ code: 'NOT_FOUND' });
      } finally {
        expect(await first.stop()).toBe(0);
      }

      const second = await startNodeProcess(env);
      try {
        const info = nodeInfoSchema.parse(
          await (await fetch(`http://127.0.0.1:${port}/api/swarm/info`)).json(),
        );
        expect(info.publicKey).toBe(firstKey);
      } finally {
        await second.stop();
      }
    },
  );

  it(
    'starts whole after a first start killed while it was creating its database',
    { timeout: 90_000 },
    async () => {
      const killedDir = await mkdtemp(join(tmpdir(), 'swarm-start-killed-'));
      try {
        const port = await freePort();
        const env = { PORT: String(port), DATA_DIR: killedDir, LOG_LEVEL: 'info' };
        const first = spawn(process.execPath, [NODE_ENTRY, '--with-web'], {
          env: { PATH: process.env.PATH ?? '', ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const exited = once(first, 'exit');
        let out = '';
        // The first migration applied: the child that builds the database is at work.
        await new Promise<void>((resolve, reject) => {
          const onData = (chunk: Buffer) => {
            out += chunk.toString();
            if (out.includes('applied migration')) resolve();
          };
          first.stdout.on('data', onData);
          first.stderr.on('data', onData);
          void exited.then(() => reject(new Error(`exited before migrating:\n${out}`)));
        });
        first.kill('SIGKILL');
        await exited;
        // Its child goes too (it exits when its parent's channel closes), leaving no database
        // or a whole one, never half of one.
        const building = join(killedDir, 'db', '.initialising');
        await expect.poll(() => processesMentioning(building), { timeout: 15_000 }).toEqual([]);
        if (existsSync(join(killedDir, 'db', 'PG_VERSION'))) {
          expect(existsSync(building)).toBe(false);
        }

        const second = await startNodeProcess(env);
        try {
          const res = await fetch(`http://127.0.0.1:${port}/api/swarm/info`);
          expect(res.status).toBe(200);
          expect(nodeInfoSchema.parse(await res.json()).userCount).toBe(0);
          expect(await readdir(join(killedDir, 'db'))).not.toContain('.initialising');
        } finally {
          expect(await second.stop()).toBe(0);
        }
      } finally {
        await rm(killedDir, { recursive: true, force: true });
      }
    },
  );

  it.each([
    [{ PORT: 'abc' }, 'PORT must be an integer between 1 and 65535'],
    [{ SWARM_SEEDS: 'not a domain' }, 'SWARM_SEEDS must be comma-separated domains'],
  ])('refuses to start with %o, naming the problem', async (env, message) => {
    const { code, output } = await runNodeProcessToExit({ ...env, DATA_DIR: dataDir });
    expect(code).toBe(1);
    expect(output).toContain('configuration is invalid');
    expect(output).toContain(message);
  });
});
