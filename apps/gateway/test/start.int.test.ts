import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeInfoSchema } from '@swarm/contract';
import { freePort, runNodeProcessToExit, startNodeProcess } from '@swarm/testnet';

// The README's start command, for real: one process, one port, an embedded database in a
// fresh data directory, the web app mounted next to the gateway (needs `pnpm build`).
describe('starting a node', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'swarm-start-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves its info and home page, and keeps its key across a restart', async () => {
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
  });

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
