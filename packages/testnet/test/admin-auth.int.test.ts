import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestNode, type TestNode } from './harness.ts';

// Admin authentication of POST /api/swarm/nodes: the bootstrap ADMIN_TOKEN and stored tokens
// (kept only as SHA-256 hashes). Without a valid token: 401 with a challenge, and nothing done.
// The action used is addSeed, whose effect (a seed row) is easy to see.

const ADMIN_TOKEN = 'bootstrap-admin-token-0123456789';

describe('admin authentication', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await createTestNode({ ADMIN_TOKEN });
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    await t.node.db.prisma.swarmSeed.deleteMany();
  });

  const addSeed = (authorization?: string, domain = 'seed.test') =>
    t.request('/api/swarm/nodes', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(authorization === undefined ? {} : { authorization }),
      },
      body: JSON.stringify({ action: 'addSeed', domain, priority: 5 }),
    });
  const seeds = () => t.node.db.prisma.swarmSeed.count();

  async function expectUnauthorized(res: Response) {
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="swarm-admin"/);
    expect(((await res.json()) as { code: string }).code).toBe('UNAUTHORIZED');
    expect(await seeds()).toBe(0);
  }

  it('refuses a request without a token, with a malformed header or with a wrong token', async () => {
    await expectUnauthorized(await addSeed());
    await expectUnauthorized(await addSeed(''));
    await expectUnauthorized(await addSeed(ADMIN_TOKEN)); // no "Bearer"
    await expectUnauthorized(await addSeed(`Basic ${btoa(`admin:${ADMIN_TOKEN}`)}`));
    await expectUnauthorized(await addSeed(`Bearer ${ADMIN_TOKEN}x`));
    await expectUnauthorized(await addSeed(`Bearer ${ADMIN_TOKEN.slice(0, -1)}`));
    await expectUnauthorized(await addSeed(`Bearer ${'x'.repeat(5000)}`));
  });

  it('authenticates before reading the body: without a valid token any body is a 401', async () => {
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      t.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    const bad = ['{"action": "addSeed", "domain": ', 'not json at all', '\u0000\u0001'];
    for (const body of bad) {
      await expectUnauthorized(await post('/api/swarm/nodes', body));
      await expectUnauthorized(await post('/api/swarm/admin/blocks', body));
      await expectUnauthorized(
        await post('/api/swarm/nodes', body, { authorization: `Bearer ${ADMIN_TOKEN}x` }),
      );
    }
    // Oversized, or not JSON at all: still 401, never 413 or 415.
    await expectUnauthorized(await post('/api/swarm/nodes', 'x'.repeat(300 * 1024)));
    await expectUnauthorized(
      await t.request('/api/swarm/nodes', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'addSeed seed.test',
      }),
    );
    expect(await t.node.db.prisma.nodeBlock.count()).toBe(0);
    // With the token, the same malformed body is the caller's mistake: 400.
    const res = await post('/api/swarm/nodes', bad[0]!, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('INVALID_REQUEST');
    expect(await seeds()).toBe(0);
  });

  it('accepts the bootstrap token', async () => {
    const res = await addSeed(`Bearer ${ADMIN_TOKEN}`);
    expect(res.status).toBe(200);
    expect(await seeds()).toBe(1);
    // The scheme is case-insensitive.
    expect((await addSeed(`bearer ${ADMIN_TOKEN}`, 'seed2.test')).status).toBe(200);
  });

  it('accepts a created token, stores only its hash, and refuses it once revoked', async () => {
    const created = await t.node.adminTokens.createToken('ops laptop');
    expect(created.token).toMatch(/^swarm_[A-Za-z0-9_-]{43}$/);

    const row = await t.node.db.prisma.adminApiToken.findUniqueOrThrow({
      where: { id: created.id },
    });
    expect(row.tokenHash).toBe(createHash('sha256').update(created.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.token.slice('swarm_'.length));
    expect(row.lastUsedAt).toBeNull();

    const res = await addSeed(`Bearer ${created.token}`);
    expect(res.status).toBe(200);
    expect(await seeds()).toBe(1);
    const used = await t.node.db.prisma.adminApiToken.findUniqueOrThrow({
      where: { id: created.id },
    });
    expect(used.lastUsedAt).toEqual(t.clock.now());

    const listed = await t.node.adminTokens.listTokens();
    expect(listed.find((x) => x.id === created.id)).toMatchObject({
      name: 'ops laptop',
      revokedAt: null,
    });
    expect(JSON.stringify(listed)).not.toContain(created.token);

    await t.node.db.prisma.swarmSeed.deleteMany();
    expect(await t.node.adminTokens.revokeToken(created.id)).toBe(true);
    await expectUnauthorized(await addSeed(`Bearer ${created.token}`));
    // The bootstrap token is unaffected.
    expect((await addSeed(`Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
  });

  it('refuses an expired stored token; revoking an unknown id is false', async () => {
    const created = await t.node.adminTokens.createToken('short-lived');
    await t.node.db.prisma.adminApiToken.update({
      where: { id: created.id },
      data: { expiresAt: t.clock.now() },
    });
    await expectUnauthorized(await addSeed(`Bearer ${created.token}`));
    expect(await t.node.adminTokens.revokeToken('00000000-0000-4000-8000-000000000000')).toBe(
      false,
    );
    expect(await t.node.adminTokens.revokeToken('not-a-uuid')).toBe(false);
  });

  it('leaves public reads of /api/swarm/nodes open', async () => {
    expect((await t.request('/api/swarm/nodes')).status).toBe(200);
  });
});

describe('admin authentication without ADMIN_TOKEN', () => {
  it('refuses every bearer value when no bootstrap token is configured and none is stored', async () => {
    const t = await createTestNode();
    try {
      for (const authorization of ['Bearer ', 'Bearer undefined', 'Bearer null']) {
        const res = await t.request('/api/swarm/nodes', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization },
          body: JSON.stringify({ action: 'addSeed', domain: 'seed.test', priority: 1 }),
        });
        expect(res.status).toBe(401);
      }
      expect(await t.node.db.prisma.swarmSeed.count()).toBe(0);
    } finally {
      await t.close();
    }
  });
});
