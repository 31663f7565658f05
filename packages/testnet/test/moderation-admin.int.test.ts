import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createManualClock,
  createTestNode,
  insertKeyedUser,
  linkedInProcess,
  runSwarmCli,
  signedInCaller,
  trpcFailure,
  type KeyedUser,
  type TestNode,
} from './harness.ts';

// Issue #15: every admin action is in the audit log (who, what, on what, why), whichever door
// it came through: the admin API (bearer token: `token:<name>`), the admin pages' tRPC
// procedures (the admin's handle) and the `swarm` CLI (`cli:<name>`), which also gets the
// moderation commands (reports, suspension, the audit log). alpha is served over real HTTP;
// beta is a real peer for the node actions.

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

let alpha: TestNode;
let beta: TestNode;
let url: string;
let server: ReturnType<typeof serve>;
let root: KeyedUser;
const clock = createManualClock();

beforeAll(async () => {
  const { fronts, overrides } = linkedInProcess(clock, 'not found');
  alpha = await createTestNode({ SWARM_DOMAIN: 'alpha.test', ADMIN_TOKEN }, overrides);
  beta = await createTestNode({ SWARM_DOMAIN: 'beta.test', ADMIN_TOKEN }, overrides);
  fronts.set('alpha.test', alpha.app).set('beta.test', beta.app);
  server = serve({
    fetch: alpha.app.fetch,
    port: 0,
    hostname: '127.0.0.1',
    overrideGlobalObjects: false,
  });
  await new Promise((r) => server.once('listening', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  root = await insertKeyedUser(alpha.node, 'root');
  await alpha.node.db.prisma.user.update({ where: { id: root.user.id }, data: { isAdmin: true } });
  root.user.isAdmin = true;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await alpha.close();
  await beta.close();
});

/** Over real HTTP, as any admin client. */
async function admin(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const write = method !== 'GET';
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(write ? { 'content-type': 'application/json' } : {}),
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...headers,
    },
    ...(write ? { body: JSON.stringify(body ?? {}) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

interface Entry {
  actor: string;
  action: string;
  target: string;
  reason: string;
  details: unknown;
}
/** The audit log as the admin API shows it, newest first. */
async function auditLog(query = ''): Promise<Entry[]> {
  const res = await admin('GET', `/api/swarm/admin/audit?limit=200${query}`);
  expect(res.status).toBe(200);
  return res.json.entries as Entry[];
}
/** Moves the shared clock on (entries of one instant have no order) and returns the instant. */
function tick(): string {
  clock.advance(1000);
  return clock.now().toISOString();
}
/** Entries written at or after `mark`, oldest first. */
async function since(mark: string): Promise<Entry[]> {
  const res = await admin('GET', `/api/swarm/admin/audit?limit=200`);
  const entries = res.json.entries as (Entry & { createdAt: string })[];
  return entries.filter((e) => e.createdAt >= mark).reverse();
}
const brief = (entries: Entry[]) => entries.map((e) => [e.actor, e.action, e.target, e.reason]);

describe('the admin API writes the audit log', () => {
  it('records every write with the token as actor and the optional reason; refusals record nothing', async () => {
    await alpha.node.registry.addSeed('seed.test', 5);
    const start = tick();
    const ok = async (method: string, path: string, body?: unknown) => {
      tick();
      const res = await admin(method, path, body);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.json)}`).toBeLessThan(300);
      return res.json;
    };
    await ok('PUT', '/api/swarm/admin/seeds/seed.test', { isEnabled: false, reason: 'flaky' });
    await ok('POST', '/api/swarm/admin/blocks', { domain: 'spam.test', reason: 'spam waves' });
    await ok('DELETE', '/api/swarm/admin/blocks/spam.test', { reason: 'they cleaned up' });
    const token = await ok('POST', '/api/swarm/admin/tokens', { name: 'ci', reason: 'deploys' });
    await ok('DELETE', `/api/swarm/admin/tokens/${String(token.id)}`, {});
    await ok('POST', '/api/swarm/admin/users', { handle: 'bot', reason: 'announcements' });
    const post = await ok('POST', '/api/swarm/admin/posts', { handle: 'bot', content: 'hello' });
    await ok('POST', '/api/swarm/nodes', { action: 'discover', domain: 'beta.test' });
    await ok('POST', '/api/swarm/admin/nodes/beta.test/reset-key', { reason: 'key rotated' });
    await ok('POST', '/api/swarm/nodes', { action: 'addSeed', domain: 'beta.test', priority: 7 });

    const tokenId = String(token.id);
    const postId = String((post.post as { id: string }).id);
    const who = 'token:ADMIN_TOKEN';
    expect(brief(await since(start))).toEqual([
      [who, 'seed.disable', 'seed.test', 'flaky'],
      [who, 'node.block', 'spam.test', 'spam waves'],
      [who, 'node.unblock', 'spam.test', 'they cleaned up'],
      [who, 'token.create', `ci (${tokenId})`, 'deploys'],
      [who, 'token.revoke', tokenId, ''],
      [who, 'user.create', 'bot', 'announcements'],
      [who, 'post.create', `bot post ${postId}`, ''],
      [who, 'swarm.discover', 'beta.test', ''],
      [who, 'node.reset-key', 'beta.test', 'key rotated'],
      [who, 'seed.add', 'beta.test', ''],
    ]);
    // The secret is never written down.
    expect(JSON.stringify(await auditLog())).not.toContain(String(token.token));

    // Refused writes change nothing and are not in the log.
    const count = (await auditLog()).length;
    expect(
      (await admin('PUT', '/api/swarm/admin/seeds/none.test', { isEnabled: true })).status,
    ).toBe(404);
    expect((await admin('DELETE', '/api/swarm/admin/blocks/none.test', {})).status).toBe(404);
    expect((await admin('POST', '/api/swarm/admin/users', { handle: 'bot' })).status).toBe(409);
    expect(
      (await admin('POST', '/api/swarm/admin/tokens', { name: 'x', reason: 'r'.repeat(1001) }))
        .status,
    ).toBe(400);
    expect(
      (
        await admin('POST', '/api/swarm/nodes', {
          action: 'addSeed',
          domain: 'alpha.test',
          priority: 1,
        })
      ).status,
    ).toBe(200);
    expect((await auditLog()).length).toBe(count);
    // Searchable by text and by action.
    expect(brief(await auditLog('&q=spam%20waves'))).toEqual([
      [who, 'node.block', 'spam.test', 'spam waves'],
    ]);
    expect((await auditLog('&action=token.revoke')).map((e) => e.target)).toEqual([tokenId]);
  });

  it('answers 401 without a token and 400 on bad queries for the moderation endpoints', async () => {
    for (const path of ['/api/swarm/admin/audit', '/api/swarm/admin/reports']) {
      const res = await fetch(`${url}${path}`);
      expect(res.status).toBe(401);
    }
    expect((await admin('GET', '/api/swarm/admin/audit?before=yesterday')).status).toBe(400);
    expect((await admin('GET', '/api/swarm/admin/reports?status=weird')).status).toBe(400);
    expect(
      (await admin('PUT', '/api/swarm/admin/users/root/suspension', { suspended: true })).status,
    ).toBe(400); // no reason
    expect(
      (
        await admin('PUT', '/api/swarm/admin/users/ghost/suspension', {
          suspended: true,
          reason: 'x',
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await admin('POST', '/api/swarm/admin/reports/nope/action', {
          action: 'dismiss',
          reason: 'x',
        })
      ).status,
    ).toBe(404);
  });
});

describe('the admin pages’ procedures write the audit log', () => {
  it('seeds, tokens, node key and block, operator actions and outbox retries: the admin’s handle', async () => {
    const as = signedInCaller(alpha.node, root.user).admin;
    const start = tick();
    await as.seeds.add({ domain: 'seed2.test', priority: 3, reason: 'a new friend' });
    tick();
    await as.seeds.setPriority({ domain: 'seed2.test', priority: 9 });
    tick();
    await as.seeds.setEnabled({ domain: 'seed2.test', isEnabled: false, reason: 'down a lot' });
    tick();
    const token = await as.tokens.create({ name: 'backup job', reason: 'nightly' });
    tick();
    await as.tokens.revoke({ id: token.id, reason: 'leaked' });
    tick();
    await as.nodes.block({ domain: 'bad.test', reason: 'abuse' });
    tick();
    await as.nodes.unblock({ domain: 'bad.test' });
    tick();
    await as.actions.discover({ domain: 'beta.test' });
    tick();
    await as.nodes.resetKey({ domain: 'beta.test', reason: 'rotated' });
    tick();
    // A delivery to a node that is not there: pending, then retried by hand.
    const delivery = await alpha.node.db.prisma.$transaction((tx) =>
      alpha.node.delivery.enqueue(tx, { targetDomain: 'gone.test', kind: 'like', body: {} }),
    );
    await as.outbox.retryNow({ id: delivery });
    expect(brief(await since(start))).toEqual([
      ['root', 'seed.add', 'seed2.test', 'a new friend'],
      ['root', 'seed.priority', 'seed2.test', ''],
      ['root', 'seed.disable', 'seed2.test', 'down a lot'],
      ['root', 'token.create', `backup job (${token.id})`, 'nightly'],
      ['root', 'token.revoke', token.id, 'leaked'],
      ['root', 'node.block', 'bad.test', 'abuse'],
      ['root', 'node.unblock', 'bad.test', ''],
      ['root', 'swarm.discover', 'beta.test', ''],
      ['root', 'node.reset-key', 'beta.test', 'rotated'],
      ['root', 'delivery.retry', `like to gone.test (${delivery})`, ''],
    ]);
    // Refused: nothing written.
    const count = (await auditLog()).length;
    expect(
      await trpcFailure(as.tokens.revoke({ id: '00000000-0000-4000-8000-000000000000' })),
    ).toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(
      await trpcFailure(as.seeds.setEnabled({ domain: 'none.test', isEnabled: true })),
    ).toMatchObject({
      code: 'NOT_FOUND',
    });
    expect((await auditLog()).length).toBe(count);
  });
});

describe('moderation from the CLI (the compiled `swarm`, real HTTP)', () => {
  const swarm = (args: string[]) => runSwarmCli(url, args, { token: ADMIN_TOKEN });

  it('lists open reports, acts on one, suspends and unsuspends a user, shows the audit log', async () => {
    const carol = await insertKeyedUser(alpha.node, 'carol');
    const dave = await insertKeyedUser(alpha.node, 'dave');
    const { post } = await signedInCaller(alpha.node, dave.user).posts.create({
      content: 'cheap pills here',
    });
    const filed = await signedInCaller(alpha.node, carol.user).moderation.report({
      postId: post.id,
      category: 'spam',
      comment: 'pills again',
    });

    const start = tick();
    const listed = await swarm(['reports', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(filed.id);
    expect(listed.stdout).toContain('dave@alpha.test');
    expect(listed.stdout).toContain('pills again');

    const acted = await swarm(['reports', 'act', filed.id, 'delete-post', '--reason', 'spam']);
    expect(acted.code, acted.stderr).toBe(0);
    expect(acted.stdout).toContain('resolved');
    expect(
      (await alpha.node.db.prisma.post.findUniqueOrThrow({ where: { id: post.id } })).deletedAt,
    ).not.toBeNull();
    expect((await swarm(['reports', 'list'])).stdout).not.toContain(filed.id);
    expect((await swarm(['reports', 'list', '--status', 'resolved'])).stdout).toContain(filed.id);

    tick();
    const suspended = await swarm(['users', 'suspend', 'dave', '--reason', 'repeat spammer']);
    expect(suspended.code, suspended.stderr).toBe(0);
    const row = () => alpha.node.db.prisma.user.findUniqueOrThrow({ where: { id: dave.user.id } });
    expect((await row()).suspendedAt).not.toBeNull();
    tick();
    expect((await swarm(['users', 'unsuspend', 'dave', '--reason', 'appeal granted'])).code).toBe(
      0,
    );
    expect((await row()).suspendedAt).toBeNull();

    expect(brief(await since(start))).toEqual([
      ['cli:ADMIN_TOKEN', 'report.delete-post', `dave@alpha.test post ${post.id}`, 'spam'],
      ['cli:ADMIN_TOKEN', 'user.suspend', 'dave', 'repeat spammer'],
      ['cli:ADMIN_TOKEN', 'user.unsuspend', 'dave', 'appeal granted'],
    ]);
    const shown = await swarm(['audit', '--q', 'dave']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('user.unsuspend');
    expect(shown.stdout).toContain('appeal granted');
    expect(shown.stdout).toContain('cli:ADMIN_TOKEN');

    // Bad input: exit 1 with the node's reason; nothing changes.
    const noReason = await swarm(['users', 'suspend', 'dave']);
    expect(noReason.code).toBe(1);
    expect(noReason.stderr).toContain('--reason');
    const ghost = await swarm(['users', 'suspend', 'ghost', '--reason', 'x']);
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toContain('NOT_FOUND');
    const again = await swarm(['reports', 'act', filed.id, 'dismiss', '--reason', 'x']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('INVALID_REQUEST');
    const badAction = await swarm(['reports', 'act', filed.id, 'explode', '--reason', 'x']);
    expect(badAction.code).toBe(1);
    expect(badAction.stderr).toContain('dismiss');
    expect((await row()).suspendedAt).toBeNull();
  }, 180_000);
});
