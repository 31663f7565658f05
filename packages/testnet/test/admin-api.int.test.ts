import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authServicesOf } from '@swarm/auth';
import {
  createManualClock,
  createTestNode,
  linkedInProcess,
  runSwarmCli,
  type TestNode,
} from './harness.ts';

// The operator endpoints under /api/swarm/admin/* on alpha, with beta as a real peer (for blocks
// and pinned keys). Every route: happy path, 401 without a token, 400 on bad input, 404 on
// unknown targets, and no change on refusal.

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
const NO_TOKEN = '';

let alpha: TestNode;
let beta: TestNode;

beforeEach(async () => {
  const { fronts, overrides } = linkedInProcess(createManualClock(), 'not found');
  alpha = await createTestNode({ SWARM_DOMAIN: 'alpha.test', ADMIN_TOKEN }, overrides);
  beta = await createTestNode({ SWARM_DOMAIN: 'beta.test', ADMIN_TOKEN }, overrides);
  fronts.set('alpha.test', alpha.app).set('beta.test', beta.app);
});

afterEach(async () => {
  await alpha.close();
  await beta.close();
});

/** A request to alpha's admin API; writes carry a JSON body (`{}` when there is nothing). */
async function admin(
  method: string,
  path: string,
  body?: unknown,
  token: string = ADMIN_TOKEN,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const write = method !== 'GET';
  const res = await alpha.request(`/api/swarm/admin${path}`, {
    method,
    headers: {
      ...(write ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(write ? { body: JSON.stringify(body ?? {}) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const ALL_ROUTES: [string, string, unknown?][] = [
  ['GET', '/seeds'],
  ['GET', '/handles'],
  ['PUT', '/seeds/seed.test', { isEnabled: false }],
  ['GET', '/blocks'],
  ['POST', '/blocks', { domain: 'beta.test' }],
  ['DELETE', '/blocks/beta.test'],
  ['GET', '/tokens'],
  ['POST', '/tokens', { name: 'x' }],
  ['DELETE', '/tokens/00000000-0000-4000-8000-000000000000'],
  ['POST', '/nodes/beta.test/reset-key'],
  ['POST', '/users', { handle: 'eve', password: 'correct horse battery' }],
];

async function snapshot(t: TestNode) {
  const p = t.node.db.prisma;
  return {
    seeds: await p.swarmSeed.findMany({ orderBy: { domain: 'asc' } }),
    blocks: await p.nodeBlock.findMany({ orderBy: { domain: 'asc' } }),
    tokens: await p.adminApiToken.findMany({ orderBy: { id: 'asc' } }),
    nodes: await p.swarmNode.findMany({ orderBy: { domain: 'asc' } }),
    users: await p.user.findMany({ orderBy: { handle: 'asc' } }),
  };
}

describe('admin API authentication', () => {
  it('answers 401 UNAUTHORIZED on every route without a valid token, changing nothing', async () => {
    await alpha.node.registry.addSeed('seed.test', 1);
    await beta.node.registry.announceTo('alpha.test', 'admin');
    const before = await snapshot(alpha);
    for (const [method, path, body] of ALL_ROUTES) {
      for (const token of [NO_TOKEN, 'wrong-token']) {
        const res = await admin(method, path, body, token);
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.json.code).toBe('UNAUTHORIZED');
      }
    }
    expect(await snapshot(alpha)).toEqual(before);
  });

  it('a created token works as a bearer, is listed without its secret, and stops after revoke', async () => {
    const created = await admin('POST', '/tokens', { name: 'ops laptop' });
    expect(created.status).toBe(201);
    const { id, name, token } = created.json as { id: string; name: string; token: string };
    expect(name).toBe('ops laptop');
    expect(token).toMatch(/^swarm_/);

    expect((await admin('GET', '/seeds', undefined, token)).status).toBe(200);
    const listed = await admin('GET', '/tokens', undefined, token);
    expect(listed.status).toBe(200);
    expect(listed.json.tokens).toEqual([
      expect.objectContaining({ id, name: 'ops laptop', revokedAt: null }),
    ]);
    expect(JSON.stringify(listed.json)).not.toContain(token);
    expect(JSON.stringify(listed.json)).not.toContain('tokenHash');

    const revoked = await admin('DELETE', `/tokens/${id}`);
    expect(revoked).toMatchObject({ status: 200, json: { success: true } });
    expect((await admin('GET', '/seeds', undefined, token)).status).toBe(401);
    const after = await admin('GET', '/tokens');
    expect((after.json.tokens as { revokedAt: string | null }[])[0]?.revokedAt).toBe(
      alpha.clock.now().toISOString(),
    );
  });
});

describe('admin API routes', () => {
  it('lists the handle registry, newest change first, per node and capped', async () => {
    const p = alpha.node.db.prisma;
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 22, 12, minute));
    await p.handleRegistryEntry.createMany({
      data: [
        {
          handle: 'bob',
          nodeDomain: 'beta.test',
          did: 'did:key:zDnBob',
          source: 'gossip:beta.test',
          updatedAt: at(1),
          changedAt: at(1),
        },
        {
          handle: 'cy',
          nodeDomain: 'gamma.test',
          did: 'did:key:zDnCy',
          source: 'lookup:gamma.test',
          updatedAt: at(2),
          changedAt: at(2),
        },
        {
          handle: 'dee',
          nodeDomain: 'beta.test',
          did: 'did:key:zDnDee',
          source: 'gossip:beta.test',
          updatedAt: at(3),
          changedAt: at(3),
        },
      ],
    });
    const all = await admin('GET', '/handles');
    expect(all.status).toBe(200);
    expect(all.json.total).toBe(3);
    expect((all.json.handles as { handle: string }[]).map((h) => h.handle)).toEqual([
      'dee',
      'cy',
      'bob',
    ]);
    expect((all.json.handles as unknown[])[2]).toEqual({
      handle: 'bob',
      nodeDomain: 'beta.test',
      did: 'did:key:zDnBob',
      updatedAt: at(1).toISOString(),
      source: 'gossip:beta.test',
    });
    const beta = await admin('GET', '/handles?node=beta.test&limit=1');
    expect(beta.json).toEqual({ total: 2, handles: [expect.objectContaining({ handle: 'dee' })] });
    for (const query of ['limit=0', 'limit=1001', 'limit=x', 'node=not%20a%20domain']) {
      const bad = await admin('GET', `/handles?${query}`);
      expect(bad.status, query).toBe(400);
    }
  });

  it('lists seeds and enables/disables one', async () => {
    await alpha.node.registry.addSeed('seed-b.test', 2);
    await alpha.node.registry.addSeed('seed-a.test', 1);
    const listed = await admin('GET', '/seeds');
    expect(listed.status).toBe(200);
    expect(listed.json.seeds).toEqual([
      {
        domain: 'seed-a.test',
        priority: 1,
        isEnabled: true,
        lastContactAt: null,
        consecutiveFailures: 0,
      },
      expect.objectContaining({ domain: 'seed-b.test', priority: 2 }),
    ]);

    const off = await admin('PUT', '/seeds/seed-a.test', { isEnabled: false });
    expect(off).toMatchObject({ status: 200, json: { domain: 'seed-a.test', isEnabled: false } });
    expect(await alpha.node.registry.seedDomains()).toEqual(['seed-b.test']);
    const on = await admin('PUT', '/seeds/seed-a.test', { isEnabled: true });
    expect(on.json.isEnabled).toBe(true);

    const before = await snapshot(alpha);
    for (const body of [{}, { isEnabled: 'no' }, { isEnabled: true, extra: 1 }]) {
      const bad = await admin('PUT', '/seeds/seed-a.test', body);
      expect(bad.status).toBe(400);
      expect(bad.json.code).toBe('INVALID_REQUEST');
    }
    expect((await admin('PUT', '/seeds/not a domain', { isEnabled: true })).status).toBe(400);
    const unknown = await admin('PUT', '/seeds/nope.test', { isEnabled: false });
    expect(unknown).toMatchObject({ status: 404, json: { code: 'NOT_FOUND' } });
    expect(await snapshot(alpha)).toEqual(before);
  });

  it('blocks a node: block row, node inactive, its announcements refused 403 NODE_BLOCKED', async () => {
    const first = await beta.node.registry.announceTo('alpha.test', 'admin');
    expect(first.ok).toBe(true);
    expect(
      (await alpha.node.db.prisma.swarmNode.findUniqueOrThrow({ where: { domain: 'beta.test' } }))
        .isActive,
    ).toBe(true);

    const blocked = await admin('POST', '/blocks', { domain: 'Beta.Test', reason: 'spam' });
    expect(blocked).toMatchObject({
      status: 200,
      json: { domain: 'beta.test', reason: 'spam', createdAt: alpha.clock.now().toISOString() },
    });
    const row = await alpha.node.db.prisma.swarmNode.findUniqueOrThrow({
      where: { domain: 'beta.test' },
    });
    expect(row.isActive).toBe(false);
    expect(await alpha.node.registry.isBlocked('beta.test')).toBe(true);

    const refused = await beta.node.registry.announceTo('alpha.test', 'admin');
    expect(refused).toMatchObject({ ok: false, error: expect.stringContaining('NODE_BLOCKED') });

    // Blocking again updates the reason; one row.
    await admin('POST', '/blocks', { domain: 'beta.test' });
    const listed = await admin('GET', '/blocks');
    expect(listed).toMatchObject({
      status: 200,
      json: { blocks: [{ domain: 'beta.test', reason: null }] },
    });

    const before = await snapshot(alpha);
    for (const body of [{}, { domain: 'not a domain' }, { domain: 'x.test', reason: 5 }]) {
      const bad = await admin('POST', '/blocks', body);
      expect(bad.status).toBe(400);
      expect(bad.json.code).toBe('INVALID_REQUEST');
    }
    expect((await admin('POST', '/blocks', { domain: 'alpha.test' })).status).toBe(400);
    expect(await snapshot(alpha)).toEqual(before);

    expect(await admin('DELETE', '/blocks/beta.test')).toMatchObject({
      status: 200,
      json: { success: true },
    });
    expect(await admin('DELETE', '/blocks/beta.test')).toMatchObject({
      status: 404,
      json: { code: 'NOT_FOUND' },
    });
    expect((await admin('DELETE', '/blocks/not_a_domain!')).status).toBe(400);
    expect((await beta.node.registry.announceTo('alpha.test', 'admin')).ok).toBe(true);
  });

  it('creates tokens only with a valid name and revokes only known ids', async () => {
    const before = await snapshot(alpha);
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }, { name: 7 }]) {
      const bad = await admin('POST', '/tokens', body);
      expect(bad.status).toBe(400);
      expect(bad.json.code).toBe('INVALID_REQUEST');
    }
    expect((await admin('DELETE', '/tokens/not-a-uuid')).status).toBe(400);
    expect(await admin('DELETE', '/tokens/00000000-0000-4000-8000-000000000000')).toMatchObject({
      status: 404,
      json: { code: 'NOT_FOUND' },
    });
    expect(await snapshot(alpha)).toEqual(before);
  });

  it("resets a node's pinned key; unknown nodes are 404", async () => {
    await beta.node.registry.announceTo('alpha.test', 'admin');
    const pinned = await alpha.node.db.prisma.swarmNode.findUniqueOrThrow({
      where: { domain: 'beta.test' },
    });
    expect(pinned.publicKey).not.toBeNull();

    const reset = await admin('POST', '/nodes/beta.test/reset-key');
    expect(reset).toMatchObject({ status: 200, json: { success: true } });
    const row = await alpha.node.db.prisma.swarmNode.findUniqueOrThrow({
      where: { domain: 'beta.test' },
    });
    expect(row.publicKey).toBeNull();
    expect(row.keyPinnedAt).toBeNull();

    expect(await admin('POST', '/nodes/gamma.test/reset-key')).toMatchObject({
      status: 404,
      json: { code: 'NOT_FOUND' },
    });
    expect((await admin('POST', '/nodes/bad_domain!/reset-key')).status).toBe(400);
    expect((await admin('POST', '/nodes/beta.test/reset-key', { extra: 1 })).status).toBe(400);
  });

  it('creates local accounts: admin or not, a generated password shown once, 409 for a taken handle', async () => {
    const made = await admin('POST', '/users', { handle: 'Root', admin: true });
    expect(made).toMatchObject({
      status: 201,
      json: { user: { handle: 'root', displayName: 'root', isAdmin: true } },
    });
    const password = made.json.password as string;
    expect(password).toMatch(/^[a-z2-7]{24}$/);
    const auth = authServicesOf(alpha.node);
    const login = await auth.accounts.logIn({ handle: 'root', password }, { clientIp: 'op' });
    expect(login).toMatchObject({ ok: true, value: { user: { handle: 'root', isAdmin: true } } });

    const given = await admin('POST', '/users', {
      handle: 'writer',
      displayName: 'The Writer',
      password: 'correct horse battery',
    });
    expect(given.status).toBe(201);
    expect(given.json).toEqual({
      user: { id: expect.any(String), handle: 'writer', displayName: 'The Writer', isAdmin: false },
    });
    const row = await alpha.node.db.prisma.user.findUniqueOrThrow({ where: { handle: 'writer' } });
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);

    const before = await snapshot(alpha);
    expect(await admin('POST', '/users', { handle: 'ROOT' })).toMatchObject({
      status: 409,
      json: { code: 'HANDLE_TAKEN', error: 'The handle "root" is taken.' },
    });
    for (const body of [
      {},
      { handle: 'x' },
      { handle: 'bad handle' },
      { handle: 'shorty', password: 'short' },
      { handle: 'extra', more: 1 },
      { handle: 'flag', admin: 'yes' },
    ]) {
      const bad = await admin('POST', '/users', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.json.code).toBe('INVALID_REQUEST');
    }
    expect(await snapshot(alpha)).toEqual(before);
  });

  it('documents the admin routes in the OpenAPI document', async () => {
    const res = await alpha.request('/api/swarm/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths['/api/swarm/admin/seeds'] ?? {})).toContain('get');
    expect(Object.keys(doc.paths['/api/swarm/admin/blocks/{domain}'] ?? {})).toContain('delete');
    expect(Object.keys(doc.paths['/api/swarm/admin/tokens'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/swarm/admin/users'] ?? {})).toEqual(['post']);
  });
});

describe('operator CLI against the admin API (real HTTP)', () => {
  it('creates and lists tokens, blocks and unblocks, lists seeds; fails with exit 1 without a token', async () => {
    await alpha.node.registry.addSeed('seed.test', 3);
    const server = serve({
      fetch: alpha.app.fetch,
      port: 0,
      hostname: '127.0.0.1',
      overrideGlobalObjects: false,
    });
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const swarm = (args: string[], token = ADMIN_TOKEN) => runSwarmCli(url, args, { token });
    try {
      const created = await swarm(['tokens', 'create', 'ci runner']);
      expect(created.code).toBe(0);
      expect(created.stdout).toMatch(/swarm_[A-Za-z0-9_-]{43}/);
      expect(created.stdout).toContain('shown only once');

      const listed = await swarm(['tokens', 'list']);
      expect(listed.stdout).toContain('ci runner');
      expect(listed.stdout).not.toMatch(/swarm_[A-Za-z0-9_-]{43}/);

      expect((await swarm(['block', 'beta.test', '--reason', 'spam'])).code).toBe(0);
      expect(await alpha.node.registry.isBlocked('beta.test')).toBe(true);
      expect((await swarm(['seeds', 'list'])).stdout).toMatch(/seed\.test.*3/);
      expect((await swarm(['unblock', 'beta.test'])).code).toBe(0);
      expect(await alpha.node.registry.isBlocked('beta.test')).toBe(false);

      const unknown = await swarm(['unblock', 'beta.test']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('NOT_FOUND');
      const noToken = await swarm(['seeds', 'list'], '');
      expect(noToken.code).toBe(1);
      expect(noToken.stderr).toContain('admin token');
    } finally {
      await new Promise((r) => server.close(r));
    }
    // Seven CLI processes (tsx start-up each): slower than an in-process test.
  }, 120_000);
  it('users create: generated password printed once with a warning, or read from stdin', async () => {
    const server = serve({
      fetch: alpha.app.fetch,
      port: 0,
      hostname: '127.0.0.1',
      overrideGlobalObjects: false,
    });
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const swarm = (args: string[], stdin = '') =>
      runSwarmCli(url, args, { token: ADMIN_TOKEN, stdin });
    const auth = authServicesOf(alpha.node);
    const logIn = (handle: string, password: string) =>
      auth.accounts.logIn({ handle, password }, { clientIp: 'cli' });
    try {
      const generated = await swarm(['users', 'create', 'ops', '--admin', '--display-name', 'Ops']);
      expect(generated.code).toBe(0);
      expect(generated.stdout).toContain('created admin account "ops"');
      expect(generated.stdout).toContain('shown only once');
      const password = /password: ([a-z2-7]{24})/.exec(generated.stdout)?.[1];
      expect(await logIn('ops', password!)).toMatchObject({
        ok: true,
        value: { user: { isAdmin: true, displayName: 'Ops' } },
      });

      const piped = await swarm(
        ['users', 'create', 'bot', '--password-stdin'],
        'a piped secret 42\n',
      );
      expect(piped.code).toBe(0);
      expect(piped.stdout).toContain('created account "bot"');
      expect(piped.stdout).not.toContain('password:');
      expect(await logIn('bot', 'a piped secret 42')).toMatchObject({
        ok: true,
        value: { user: { isAdmin: false } },
      });

      const taken = await swarm(['users', 'create', 'ops']);
      expect(taken.code).toBe(1);
      expect(taken.stderr).toContain('HANDLE_TAKEN');
    } finally {
      await new Promise((r) => server.close(r));
    }
  }, 120_000);

  it('takes a DELETE without a body, as HTTP clients send it', async () => {
    expect((await admin('POST', '/blocks', { domain: 'bodiless.test' })).status).toBe(200);
    const res = await alpha.request('/api/swarm/admin/blocks/bodiless.test', {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(await alpha.node.db.prisma.nodeBlock.count({ where: { domain: 'bodiless.test' } })).toBe(
      0,
    );
    // A DELETE that does send a body still has to be JSON.
    const text = await alpha.request('/api/swarm/admin/blocks/bodiless.test', {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' },
      body: 'please',
    });
    expect(text.status).toBe(415);
  });
});
