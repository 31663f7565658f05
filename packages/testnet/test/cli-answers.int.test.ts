import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNode, runSwarmCli, type TestNode } from './harness.ts';

// The compiled `swarm` CLI reads what a node answers with the contract's schemas: against a
// running node every reading command prints what it parsed; against something that answers
// garbage at --node (a fake HTTP server on loopback) it says so and exits 1, never printing a
// table of undefined or crashing.

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

const listening = async (server: Server): Promise<string> => {
  await new Promise((r) => server.once('listening', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const closing = (server: Server) => new Promise((r) => server.close(r));

describe('the CLI against a running node', () => {
  let alpha: TestNode;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    alpha = await createTestNode({ SWARM_DOMAIN: 'alpha.test', ADMIN_TOKEN });
    await alpha.node.registry.addSeed('seed.test', 3);
    server = serve({
      fetch: alpha.app.fetch,
      port: 0,
      hostname: '127.0.0.1',
      overrideGlobalObjects: false,
    }) as Server;
    url = await listening(server);
  });
  afterAll(async () => {
    if (server) await closing(server);
    await alpha?.close();
  });

  it('prints what each reading command parsed', async () => {
    const swarm = async (...args: string[]) => {
      const run = await runSwarmCli(url, args, { token: ADMIN_TOKEN });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      return run.stdout;
    };
    expect(await swarm('status')).toMatch(/domain\W+alpha\.test/);
    expect(await swarm('nodes')).toMatch(/known, \d+ active/);
    expect(await swarm('seeds', 'list')).toMatch(/seed\.test\W.*3/);
    expect(await swarm('block', 'beta.test', '--reason', 'spam')).toContain('blocked beta.test');
    expect(await swarm('blocks')).toMatch(/beta\.test\W+spam/);
    expect(await swarm('tokens', 'create', 'ci')).toMatch(/"ci" \(id [0-9a-f-]{36}\)/);
    expect(await swarm('tokens', 'list')).toMatch(/ci\W.*active/);
    expect(await swarm('users', 'create', 'ops', '--admin')).toContain(
      'created admin account "ops"',
    );
    expect(await swarm('posts', 'create', '--as', 'ops', 'hello')).toMatch(/posted \S+ as ops/);
    expect(await swarm('reports', 'list')).toContain('0 open report(s)');
    expect(await swarm('audit')).toMatch(/token:ADMIN_TOKEN|cli:/);
  }, 300_000);
});

describe('the CLI against something that answers garbage', () => {
  let server: Server;
  let url: string;
  /** What the fake answers, by path: a status and a body. */
  const answers = new Map<string, [number, string]>([
    ['/api/swarm/admin/seeds', [200, JSON.stringify({ seeds: 'none today' })]],
    ['/api/swarm/nodes', [200, JSON.stringify({ nodes: [{ domain: 42 }] })]],
    ['/api/swarm/admin/tokens', [201, JSON.stringify({ id: 'x' })]],
    ['/api/swarm/info', [200, '<html>a login page</html>']],
  ]);

  beforeAll(async () => {
    server = createServer((req, res) => {
      const [status, body] = answers.get(new URL(req.url!, 'http://x').pathname) ?? [404, '{}'];
      req.resume();
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    }).listen(0, '127.0.0.1');
    url = await listening(server);
  });
  afterAll(() => closing(server));

  it.each([
    [
      ['seeds', 'list'],
      /\/api\/swarm\/admin\/seeds answered something this CLI cannot read \(seeds:/,
    ],
    [
      ['nodes'],
      /\/api\/swarm\/nodes\?limit=500&stats=true answered something this CLI cannot read \(nodes\.0\.domain:/,
    ],
    [
      ['tokens', 'create', 'ci'],
      /\/api\/swarm\/admin\/tokens answered something this CLI cannot read \(name:/,
    ],
    [['status'], /\/api\/swarm\/info\?stats=true answered 200 with something that is not JSON/],
  ])(
    'swarm %j: a clear error and exit 1',
    async (args, message) => {
      const run = await runSwarmCli(url, args, { token: ADMIN_TOKEN });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^swarm: /);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/TypeError|at .*\.js:\d+/);
    },
    60_000,
  );
});
