import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authServicesOf, type SessionUser } from '@swarm/auth';
import {
  TEST_NETWORK_ADMIN_TOKEN,
  createTestNetwork,
  signedInCaller,
  smallPng,
  trpcFailure,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';
import { appRouter, type ApiContext } from '../src/index.ts';

// The admin area's procedures through the front door (createCaller) on alpha, a real node with
// its own database, and beta, a real peer reached over the test network's HTTP semantics.

let net: TestNetwork;
let alpha: NetworkNode;
let root: SessionUser;
let mallory: SessionUser;
let auth: ApiContext['auth'];

beforeAll(async () => {
  net = await createTestNetwork({
    nodes: [{ domain: 'alpha.test' }, { domain: 'beta.test', handles: ['bob'] }],
  });
  alpha = net.node('alpha.test');
  auth = authServicesOf(alpha.node);
  const created = await Promise.all([
    auth.accounts.createUser({ handle: 'root', isAdmin: true }),
    auth.accounts.createUser({ handle: 'mallory', isAdmin: false }),
  ]);
  const [r, m] = created.map((c) => {
    if (!c.ok) throw new Error(c.reason.message);
    return c.value.user;
  });
  root = r!;
  mallory = m!;
});

afterAll(async () => {
  await net.close();
});

beforeEach(() => net.network.healAll());

const callerAs = (user: SessionUser | null) => signedInCaller(alpha.node, user, { auth });

const asAdmin = () => callerAs(root);

/** The TRPCError a call fails with (the test fails when it succeeds). */
const failureOf = trpcFailure;

const codeOf = async (call: Promise<unknown>) => (await failureOf(call)).code;

async function snapshot() {
  const p = alpha.node.db.prisma;
  return {
    seeds: await p.swarmSeed.findMany({ orderBy: { domain: 'asc' } }),
    blocks: await p.nodeBlock.findMany({ orderBy: { domain: 'asc' } }),
    tokens: await p.adminApiToken.findMany({ orderBy: { id: 'asc' } }),
    nodes: await p.swarmNode.findMany({ orderBy: { domain: 'asc' } }),
    syncLogs: await p.swarmSyncLog.count(),
    outbox: await p.outboxDelivery.findMany({ orderBy: { id: 'asc' } }),
  };
}

/** Plausible input per procedure, so a refusal is the guard's and not the input parser's. */
const SAMPLE_INPUT: Record<string, unknown> = {
  'admin.nodes.get': { domain: 'beta.test' },
  'admin.nodes.block': { domain: 'beta.test', reason: 'spam' },
  'admin.nodes.unblock': { domain: 'beta.test' },
  'admin.nodes.resetKey': { domain: 'beta.test' },
  'admin.seeds.add': { domain: 'seed.test', priority: 1 },
  'admin.seeds.setPriority': { domain: 'seed.test', priority: 2 },
  'admin.seeds.setEnabled': { domain: 'seed.test', isEnabled: false },
  'admin.actions.announce': { domain: 'beta.test' },
  'admin.actions.discover': { domain: 'beta.test' },
  'admin.actions.gossip': { domain: 'beta.test' },
  'admin.tokens.create': { name: 'sneaky' },
  'admin.tokens.revoke': { id: '00000000-0000-4000-8000-000000000000' },
  'admin.outbox.retryNow': { id: '00000000-0000-4000-8000-000000000000' },
};

type Callable = (input?: unknown) => Promise<unknown>;

function procedureAt(caller: ReturnType<typeof callerAs>, path: string): Callable {
  let target: unknown = caller;
  for (const key of path.split('.')) target = (target as Record<string, unknown>)[key];
  return target as Callable;
}

describe('admin guard', () => {
  // Every procedure under `admin`, read from the router definition: one added later without
  // the guard fails here.
  const adminPaths = Object.keys(appRouter._def.procedures).filter((p) => p.startsWith('admin.'));

  it('finds the admin procedures in the router definition', () => {
    expect(adminPaths).toEqual(
      expect.arrayContaining([
        'admin.nodes.list',
        'admin.nodes.get',
        'admin.nodes.block',
        'admin.seeds.add',
        'admin.actions.gossip',
        'admin.tokens.create',
        'admin.users.list',
      ]),
    );
  });

  it('refuses every admin procedure to a non-admin (FORBIDDEN) and to nobody (UNAUTHORIZED), changing nothing', async () => {
    const before = await snapshot();
    const requests = net.network.requests.length;
    for (const path of adminPaths) {
      const input = SAMPLE_INPUT[path];
      expect(await codeOf(procedureAt(callerAs(mallory), path)(input)), path).toBe('FORBIDDEN');
      expect(await codeOf(procedureAt(callerAs(null), path)(input)), path).toBe('UNAUTHORIZED');
    }
    expect(await snapshot()).toEqual(before);
    expect(net.network.requests.length).toBe(requests);
  });

  it('lets an admin read every list', async () => {
    const admin = asAdmin();
    await expect(admin.admin.nodes.list()).resolves.toMatchObject({ nodes: expect.any(Array) });
    await expect(admin.admin.seeds.list()).resolves.toEqual(expect.any(Array));
    await expect(admin.admin.blocks.list()).resolves.toEqual(expect.any(Array));
    await expect(admin.admin.tokens.list()).resolves.toEqual(expect.any(Array));
  });
});

describe('seeds', () => {
  beforeEach(async () => {
    await alpha.node.db.prisma.swarmSeed.deleteMany();
  });

  it('adds seeds with a priority, lists them by priority, changes priority and enables/disables', async () => {
    const admin = asAdmin().admin.seeds;
    expect(await admin.add({ domain: 'Seed-B.test', priority: 5 })).toMatchObject({
      domain: 'seed-b.test',
      priority: 5,
      isEnabled: true,
      lastContactAt: null,
    });
    await admin.add({ domain: 'seed-a.test', priority: 9 });
    expect((await admin.list()).map((s) => s.domain)).toEqual(['seed-b.test', 'seed-a.test']);

    expect(await admin.setPriority({ domain: 'seed-a.test', priority: 1 })).toMatchObject({
      priority: 1,
    });
    expect((await admin.list()).map((s) => [s.domain, s.priority])).toEqual([
      ['seed-a.test', 1],
      ['seed-b.test', 5],
    ]);

    await admin.setEnabled({ domain: 'seed-a.test', isEnabled: false });
    expect(await alpha.node.registry.seedDomains()).toEqual(['seed-b.test']);
    // Adding an existing seed again sets its priority and enables it.
    await admin.add({ domain: 'seed-a.test', priority: 7 });
    expect(await admin.list()).toEqual([
      expect.objectContaining({ domain: 'seed-b.test', priority: 5 }),
      expect.objectContaining({ domain: 'seed-a.test', priority: 7, isEnabled: true }),
    ]);
  });

  it('refuses bad input with the right code and changes nothing', async () => {
    const admin = asAdmin().admin.seeds;
    await admin.add({ domain: 'seed.test', priority: 3 });
    const before = await snapshot();
    expect(await codeOf(admin.add({ domain: 'alpha.test', priority: 1 }))).toBe('BAD_REQUEST');
    expect(await codeOf(admin.add({ domain: 'not a domain', priority: 1 }))).toBe('BAD_REQUEST');
    // Input errors read as sentences next to the form field, not as zod's JSON.
    expect(await failureOf(admin.add({ domain: 'x.test', priority: -1 }))).toMatchObject({
      code: 'BAD_REQUEST',
      message: 'priority: must be a whole number from 0 to 1000000 (lower is contacted first)',
    });
    expect((await failureOf(admin.add({ domain: 'not a domain', priority: 1 }))).message).toMatch(
      /^domain: /,
    );
    expect(await codeOf(admin.add({ domain: 'x.test', priority: 1.5 }))).toBe('BAD_REQUEST');
    expect(await codeOf(admin.setPriority({ domain: 'nope.test', priority: 1 }))).toBe('NOT_FOUND');
    expect(await codeOf(admin.setEnabled({ domain: 'nope.test', isEnabled: true }))).toBe(
      'NOT_FOUND',
    );
    expect(await snapshot()).toEqual(before);
  });
});

describe('actions, node detail and sync log', () => {
  it('announces, gossips and discovers with per-peer results, and shows the exchanges on the node page', async () => {
    const admin = asAdmin().admin;
    const announced = await admin.actions.announce({ domain: 'beta.test' });
    expect(announced).toMatchObject({
      action: 'announce',
      ok: true,
      results: [{ domain: 'beta.test', ok: true }],
    });

    const gossip = await admin.actions.gossip({ domain: 'beta.test' });
    expect(gossip).toMatchObject({ action: 'gossip', ok: true });
    expect(gossip.results).toEqual([
      expect.objectContaining({ domain: 'beta.test', ok: true, nodesSent: expect.any(Number) }),
    ]);

    const detail = await admin.nodes.get({ domain: 'beta.test' });
    expect(detail.node).toMatchObject({ domain: 'beta.test', isActive: true, isVerified: true });
    expect(detail.syncLog).toEqual([
      expect.objectContaining({ direction: 'push', success: true, errorMessage: null }),
    ]);
    expect(detail.history).toEqual([
      {
        at: detail.syncLog[0]!.createdAt,
        durationMs: expect.any(Number),
        success: true,
        direction: 'push',
      },
    ]);

    // beta goes down: the exchange fails, the page shows it first and the chart marks it.
    net.network.drop('beta.test');
    alpha.clock.advance(60_000);
    const failed = await admin.actions.gossip({ domain: 'beta.test' });
    expect(failed).toMatchObject({
      ok: false,
      results: [{ domain: 'beta.test', ok: false, error: expect.any(String) }],
    });
    const after = await admin.nodes.get({ domain: 'beta.test' });
    expect(after.syncLog.map((r) => r.success)).toEqual([false, true]);
    expect(after.syncLog[0]!.errorMessage).toBe(failed.results[0]!.error);
    expect(after.history.map((h) => h.success)).toEqual([true, false]);
    expect(after.node).toMatchObject({
      consecutiveFailures: 1,
      lastError: failed.results[0]!.error,
    });

    const listed = await admin.nodes.list({ q: 'beta' });
    expect(listed.nodes).toEqual([
      expect.objectContaining({ domain: 'beta.test', consecutiveFailures: 1, isBlocked: false }),
    ]);

    // Discover: an unknown domain is a failed row, not an error; beta again once it is back.
    const unknown = await admin.actions.discover({ domain: 'gamma.test' });
    expect(unknown).toMatchObject({ ok: false, results: [{ domain: 'gamma.test', ok: false }] });
    net.network.heal('beta.test');
    expect(await admin.actions.discover({ domain: 'beta.test' })).toMatchObject({
      ok: true,
      results: [{ domain: 'beta.test', ok: true }],
    });
    // A round (no domain) reports every peer it contacted: beta is the only active one.
    const round = await admin.actions.gossip();
    expect(round.results.map((r) => [r.domain, r.ok])).toEqual([['beta.test', true]]);
  });

  it('answers NOT_FOUND for an unknown node and BAD_REQUEST for a malformed domain', async () => {
    const admin = asAdmin().admin;
    expect(await codeOf(admin.nodes.get({ domain: 'unknown.test' }))).toBe('NOT_FOUND');
    expect(await codeOf(admin.nodes.get({ domain: 'bad domain!' }))).toBe('BAD_REQUEST');
    expect(await codeOf(admin.actions.discover({ domain: 'http://x.test/' }))).toBe('BAD_REQUEST');
  });
});

describe('nodes list', () => {
  beforeAll(async () => {
    const base = alpha.clock.now().getTime();
    await alpha.node.db.prisma.swarmNode.createMany({
      data: [
        {
          domain: 'zeta.test',
          name: 'Zeta Social',
          trustScore: 90,
          lastSeenAt: new Date(base - 1000),
        },
        {
          domain: 'eta.test',
          name: 'Eta',
          trustScore: 10,
          isActive: false,
          consecutiveFailures: 6,
        },
        { domain: 'theta.test', name: 'Theta', trustScore: 60, lastSeenAt: new Date(base - 5000) },
      ].map((n) => ({
        isActive: true,
        isVerified: true,
        discoveredVia: 'admin',
        userCount: 3,
        postCount: 4,
        ...n,
      })),
    });
  });

  it('filters by text (domain or name, any case) and by state, sorts by any column', async () => {
    const nodes = asAdmin().admin.nodes;
    expect((await nodes.list({ q: 'SOCIAL' })).nodes.map((n) => n.domain)).toEqual(['zeta.test']);
    expect((await nodes.list({ q: 'eta' })).nodes.map((n) => n.domain)).toEqual([
      'beta.test',
      'eta.test',
      'theta.test',
      'zeta.test',
    ]);
    const inactive = await nodes.list({ status: 'inactive' });
    expect(inactive.nodes.map((n) => n.domain)).toContain('eta.test');
    expect(inactive.nodes.every((n) => !n.isActive)).toBe(true);
    expect((await nodes.list({ status: 'active' })).nodes.every((n) => n.isActive)).toBe(true);

    const byTrust = (await nodes.list({ sort: 'trust', dir: 'desc' })).nodes;
    expect(byTrust.map((n) => n.trustScore)).toEqual(
      byTrust.map((n) => n.trustScore).sort((a, b) => b - a),
    );
    expect(byTrust[0]?.domain).toBe('zeta.test');
    // Never-seen nodes go last in both directions.
    for (const dir of ['asc', 'desc'] as const) {
      const rows = (await nodes.list({ sort: 'lastSeen', dir })).nodes;
      expect(rows.at(-1)).toMatchObject({ domain: 'eta.test', lastSeenAt: null });
    }
    const byFailures = (await nodes.list({ sort: 'failures', dir: 'desc', limit: 1 })).nodes;
    expect(byFailures).toEqual([expect.objectContaining({ domain: 'eta.test' })]);
    const capped = await nodes.list({ limit: 2 });
    expect(capped.nodes).toHaveLength(2);
    expect(capped.matched).toBe(capped.total);
    expect(capped.total).toBeGreaterThanOrEqual(4);
  });

  it('refuses unknown sort columns and states', async () => {
    const nodes = asAdmin().admin.nodes;
    expect(await codeOf(nodes.list({ sort: 'passwordHash' as 'domain' }))).toBe('BAD_REQUEST');
    expect(await codeOf(nodes.list({ status: 'weird' as 'all' }))).toBe('BAD_REQUEST');
    expect(await codeOf(nodes.list({ limit: 0 }))).toBe('BAD_REQUEST');
  });

  it('shows a block and its lifting in the list and on the node page', async () => {
    const admin = asAdmin().admin;
    expect(await admin.nodes.block({ domain: 'Zeta.test', reason: '  spam  ' })).toMatchObject({
      domain: 'zeta.test',
      reason: 'spam',
    });
    expect((await admin.nodes.list({ q: 'zeta' })).nodes).toEqual([
      expect.objectContaining({ domain: 'zeta.test', isBlocked: true, isActive: false }),
    ]);
    expect((await admin.nodes.list({ status: 'blocked' })).nodes.map((n) => n.domain)).toEqual([
      'zeta.test',
    ]);
    expect((await admin.nodes.list({ status: 'active' })).nodes.map((n) => n.domain)).not.toContain(
      'zeta.test',
    );
    expect((await admin.nodes.get({ domain: 'zeta.test' })).block).toMatchObject({
      reason: 'spam',
    });
    const row = await alpha.node.db.prisma.nodeBlock.findUnique({ where: { domain: 'zeta.test' } });
    expect(row?.createdById).toBe(root.id);
    expect(await alpha.node.registry.isBlocked('zeta.test')).toBe(true);

    expect(await admin.nodes.unblock({ domain: 'zeta.test' })).toEqual({ domain: 'zeta.test' });
    expect((await admin.nodes.list({ q: 'zeta' })).nodes[0]).toMatchObject({ isBlocked: false });
    expect(await codeOf(admin.nodes.unblock({ domain: 'zeta.test' }))).toBe('NOT_FOUND');

    const before = await snapshot();
    expect(await codeOf(admin.nodes.block({ domain: 'alpha.test' }))).toBe('BAD_REQUEST');
    expect(await codeOf(admin.nodes.block({ domain: 'x.test', reason: 'r'.repeat(501) }))).toBe(
      'BAD_REQUEST',
    );
    expect(await snapshot()).toEqual(before);
  });
});

describe('admin API tokens', () => {
  const seedsWith = (token: string) =>
    alpha.request('/api/swarm/admin/seeds', { headers: { authorization: `Bearer ${token}` } });

  it('creates a token shown once, lists it without secrets, and the gateway refuses it once revoked', async () => {
    const tokens = asAdmin().admin.tokens;
    const created = await tokens.create({ name: ' ops laptop ' });
    expect(created).toMatchObject({ name: 'ops laptop', revokedAt: null });
    expect(created.token).toMatch(/^swarm_/);
    expect((await seedsWith(created.token)).status).toBe(200);

    const listed = await tokens.list();
    expect(listed).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: created.id, name: 'ops laptop' })]),
    );
    expect(JSON.stringify(listed)).not.toContain(created.token);
    expect(JSON.stringify(listed)).not.toContain('tokenHash');
    const row = await alpha.node.db.prisma.adminApiToken.findUnique({ where: { id: created.id } });
    expect(row?.createdById).toBe(root.id);

    expect(await tokens.revoke({ id: created.id })).toEqual({ id: created.id });
    expect((await tokens.list()).find((t) => t.id === created.id)?.revokedAt).toBe(
      alpha.clock.now().toISOString(),
    );
    const refused = await seedsWith(created.token);
    expect(refused.status).toBe(401);
    // The bootstrap token of the test network still works: only the revoked one stopped.
    expect((await seedsWith(TEST_NETWORK_ADMIN_TOKEN)).status).toBe(200);
  });

  it('refuses bad input with the right code and changes nothing', async () => {
    const tokens = asAdmin().admin.tokens;
    const before = await snapshot();
    expect(await codeOf(tokens.create({ name: '   ' }))).toBe('BAD_REQUEST');
    expect(await codeOf(tokens.create({ name: 'x'.repeat(101) }))).toBe('BAD_REQUEST');
    expect(await codeOf(tokens.revoke({ id: 'not-a-uuid' }))).toBe('BAD_REQUEST');
    expect(await codeOf(tokens.revoke({ id: '00000000-0000-4000-8000-000000000000' }))).toBe(
      'NOT_FOUND',
    );
    expect(await snapshot()).toEqual(before);
  });
});

describe('delivery outbox', () => {
  it('lists pending deliveries with counts, retries one now, and reports what is left', async () => {
    const admin = asAdmin().admin.outbox;
    const before = await admin.counts();
    // root has seen bob's profile, so a follow is recorded (and queued) while beta is down.
    await callerAs(root).profiles.get({ address: 'bob@beta.test' });
    net.network.drop('beta.test');
    const followed = await callerAs(root).interactions.follow({ address: 'bob@beta.test' });
    expect(followed.delivery).toMatchObject({ status: 'pending', targetDomain: 'beta.test' });
    const id = followed.delivery!.id;

    expect(await admin.counts()).toEqual({ ...before, pending: before.pending + 1 });
    const pending = await admin.list({ status: 'pending' });
    expect(pending).toEqual([
      expect.objectContaining({
        id,
        kind: 'follow',
        attempts: 1,
        summary: expect.stringMatching(/^retrying/),
      }),
    ]);
    expect(await admin.list({ status: 'delivered' })).not.toContainEqual(
      expect.objectContaining({ id }),
    );

    // Still down: retried at once, still pending, one more attempt.
    expect(await admin.retryNow({ id })).toMatchObject({ id, status: 'pending', attempts: 2 });
    // Back up: delivered, and beta counts the follower.
    net.network.heal('beta.test');
    expect(await admin.retryNow({ id })).toMatchObject({
      id,
      status: 'delivered',
      summary: 'delivered',
    });
    expect(await admin.counts()).toEqual({
      ...before,
      delivered: before.delivered + 1,
    });
    const bob = await net.node('beta.test').node.db.prisma.user.findUnique({
      where: { handle: 'bob' },
    });
    expect(bob?.followersCount).toBe(1);
  });

  it('refuses to retry what is delivered, unknown or malformed, changing nothing', async () => {
    const admin = asAdmin().admin.outbox;
    const [delivered] = await admin.list({ status: 'delivered', limit: 1 });
    expect(delivered).toBeDefined();
    const before = await snapshot();
    expect(await codeOf(admin.retryNow({ id: delivered!.id }))).toBe('CONFLICT');
    expect(await codeOf(admin.retryNow({ id: '00000000-0000-4000-8000-000000000000' }))).toBe(
      'NOT_FOUND',
    );
    expect(await codeOf(admin.retryNow({ id: 'nope' }))).toBe('BAD_REQUEST');
    expect(await codeOf(admin.list({ status: 'lost' as 'pending' }))).toBe('BAD_REQUEST');
    expect(await snapshot()).toEqual(before);
  });
});

describe('users', () => {
  it('lists the accounts, oldest first, with the admin flag', async () => {
    const { users, total } = await asAdmin().admin.users.list();
    expect(total).toBe(users.length);
    expect(users.map((u) => [u.handle, u.isAdmin])).toEqual(
      expect.arrayContaining([
        ['root', true],
        ['mallory', false],
      ]),
    );
    expect(JSON.stringify(users)).not.toContain('passwordHash');
  });
  it("shows what each account's photos store, and the node's total against its budget", async () => {
    const png = await smallPng();
    const uploaded = await alpha.node.uploads.accept({
      ownerId: mallory.id,
      purpose: 'post',
      declaredLength: png.byteLength,
      body: new Blob([png]).stream(),
    });
    expect(uploaded.ok).toBe(true);
    const { users, storage } = await asAdmin().admin.users.list();
    const stored = await alpha.node.db.prisma.upload.findMany({ where: { ownerId: mallory.id } });
    expect(stored).toHaveLength(1);
    expect(users.find((u) => u.handle === 'mallory')).toMatchObject({
      uploads: 1,
      uploadBytes: stored[0]!.bytes,
    });
    expect(users.find((u) => u.handle === 'root')).toMatchObject({ uploads: 0, uploadBytes: 0 });
    expect(storage).toEqual({
      usedBytes: stored[0]!.bytes,
      budgetBytes: alpha.node.config.uploadStorageBytes,
      dailyQuotaBytes: alpha.node.config.uploadDailyBytes,
    });
  });
});
