import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  SWARM_PATHS,
  discoveryDocumentSchema,
  gossipResponseSchema,
  nodeInfoSchema,
  nodeListResponseSchema,
} from '@swarm/contract';
import { createManualClock, createTestNode, linkedInProcess, type TestNode } from './harness.ts';

// The registry endpoints of one node (alpha), with a second node (beta) to talk to it.

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
const json = { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` };

let alpha: TestNode;
let beta: TestNode;

beforeEach(async () => {
  const nodes = new Map<string, TestNode>();
  const { fronts, overrides } = linkedInProcess(createManualClock(), 'not found');
  alpha = await createTestNode(
    { SWARM_DOMAIN: 'alpha.test', ADMIN_TOKEN, SWARM_NODE_NAME: 'Alpha' },
    overrides,
  );
  beta = await createTestNode(
    { SWARM_DOMAIN: 'beta.test', ADMIN_TOKEN, SWARM_NODE_NAME: 'Beta' },
    overrides,
  );
  nodes.set('alpha.test', alpha).set('beta.test', beta);
  for (const [domain, t] of nodes) fronts.set(domain, t.app);
});

afterEach(async () => {
  await alpha.close();
  await beta.close();
});

async function addVerifiedNodes(t: TestNode, count: number, prefix = 'n') {
  const base = t.clock.now().getTime();
  await t.node.db.prisma.swarmNode.createMany({
    data: Array.from({ length: count }, (_, i) => ({
      domain: `${prefix}${String(i).padStart(4, '0')}.test`,
      name: `Node ${i}`,
      discoveredVia: 'admin',
      isActive: true,
      isVerified: true,
      trustScore: 50,
      userCount: 2,
      postCount: 3,
      lastSeenAt: new Date(base - i * 1000),
      updatedAt: new Date(base + i),
    })),
  });
}

describe('GET /.well-known/node-swarm', () => {
  it('answers the discovery document, valid per the contract, with limits clamped', async () => {
    await addVerifiedNodes(alpha, 210);
    await alpha.node.registry.addSeed('seed-b.test', 5);
    await alpha.node.registry.addSeed('seed-a.test', 1);
    const res = await alpha.request(`${SWARM_PATHS.discovery}?limit=1000`);
    expect(res.status).toBe(200);
    const doc = discoveryDocumentSchema.parse(await res.json());
    expect(doc.node).toMatchObject({
      domain: 'alpha.test',
      name: 'Alpha',
      publicKey: alpha.node.keys.publicKeyPem,
    });
    expect(doc.nodes).toHaveLength(200);
    expect(doc.swarm).toEqual({
      totalNodes: 211,
      activeNodes: 211,
      totalUsers: 420,
      totalPosts: 630,
      seeds: ['seed-a.test', 'seed-b.test'],
    });
    const defaults = discoveryDocumentSchema.parse(
      await (await alpha.request(SWARM_PATHS.discovery)).json(),
    );
    expect(defaults.nodes).toHaveLength(50);
    const without = (await (
      await alpha.request(`${SWARM_PATHS.discovery}?nodes=false`)
    ).json()) as { nodes: unknown[] };
    expect(without.nodes).toEqual([]);
    for (const bad of ['limit=-1', 'limit=1.5', 'nodes=maybe']) {
      const r = await alpha.request(`${SWARM_PATHS.discovery}?${bad}`);
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ code: 'INVALID_REQUEST' });
    }
  });
});

describe('GET /api/swarm/nodes and /api/swarm/info?stats', () => {
  it('lists verified nodes, active first, with stats by default and limits clamped', async () => {
    await addVerifiedNodes(alpha, 505);
    // Hints from gossip are not listed (never reached), inactive nodes come last.
    await alpha.node.registry.noteHint('hint.test', 'gossip:n0000.test');
    await alpha.node.db.prisma.swarmNode.update({
      where: { domain: 'n0000.test' },
      data: { isActive: false },
    });
    const res = await alpha.request(`${SWARM_PATHS.nodes}?limit=100000`);
    expect(res.status).toBe(200);
    const list = nodeListResponseSchema.parse(await res.json());
    expect(list.nodes).toHaveLength(500);
    expect(list.nodes.some((n) => n.domain === 'hint.test')).toBe(false);
    expect(list.nodes[0]).toEqual({
      domain: 'n0001.test',
      name: 'Node 1',
      userCount: 2,
      postCount: 3,
      lastSeenAt: new Date(alpha.clock.now().getTime() - 1000).toISOString(),
    });
    expect(list.stats).toEqual({
      totalNodes: 506,
      activeNodes: 505,
      totalUsers: 1008,
      totalPosts: 1512,
    });
    const small = nodeListResponseSchema.parse(
      await (await alpha.request(`${SWARM_PATHS.nodes}?limit=2&stats=false`)).json(),
    );
    expect(small).toEqual({
      nodes: [
        expect.objectContaining({ domain: 'n0001.test' }),
        expect.objectContaining({ domain: 'n0002.test' }),
      ],
    });
    expect((await alpha.request(`${SWARM_PATHS.nodes}?limit=x`)).status).toBe(400);

    const info = nodeInfoSchema.parse(
      await (await alpha.request(`${SWARM_PATHS.info}?stats=true`)).json(),
    );
    expect(info.stats).toEqual(list.stats);
    const plain = (await (await alpha.request(SWARM_PATHS.info)).json()) as Record<string, unknown>;
    expect(plain.stats).toBeUndefined();
  });
});

describe('POST /api/swarm/announce', () => {
  it('records a signed announcer as a direct contact (trust 50, active) and answers our info', async () => {
    const reports = await beta.node.registry.announceTo('alpha.test', 'admin');
    expect(reports).toMatchObject({ domain: 'alpha.test', ok: true });
    const onAlpha = await alpha.node.db.prisma.swarmNode.findUniqueOrThrow({
      where: { domain: 'beta.test' },
    });
    expect(onAlpha).toMatchObject({
      name: 'Beta',
      isActive: true,
      isVerified: true,
      trustScore: 50,
      publicKey: beta.node.keys.publicKeyPem,
      capabilities: JSON.stringify((await beta.node.nodeInfo.get()).capabilities),
    });
    expect(JSON.parse(onAlpha.capabilities)).toEqual(
      expect.arrayContaining(['handles', 'gossip', 'interactions']),
    );
    // Beta recorded alpha's answer the same way; a second contact adds 1 trust.
    expect(
      await beta.node.db.prisma.swarmNode.findUniqueOrThrow({ where: { domain: 'alpha.test' } }),
    ).toMatchObject({ name: 'Alpha', trustScore: 50 });
    await beta.node.registry.announceTo('alpha.test', 'admin');
    expect(
      await alpha.node.db.prisma.swarmNode.findUniqueOrThrow({ where: { domain: 'beta.test' } }),
    ).toMatchObject({ trustScore: 51 });
  });

  it('takes an unsigned announcement only as a hint, verified by a later probe', async () => {
    const info = await beta.node.nodeInfo.get();
    const res = await alpha.request(SWARM_PATHS.announce, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        ...info,
        name: 'Claimed name',
        timestamp: alpha.clock.now().toISOString(),
      }),
    });
    expect(res.status).toBe(200);
    const answer = nodeInfoSchema.parse(await res.json());
    expect(answer.domain).toBe('alpha.test');
    const row = () =>
      alpha.node.db.prisma.swarmNode.findUniqueOrThrow({ where: { domain: 'beta.test' } });
    expect(await row()).toMatchObject({
      isActive: false,
      isVerified: false,
      trustScore: 0,
      name: '',
    });
    const probes = await alpha.node.registry.probeDue();
    expect(probes).toEqual([expect.objectContaining({ domain: 'beta.test', ok: true })]);
    expect(await row()).toMatchObject({
      isActive: true,
      isVerified: true,
      trustScore: 50,
      name: 'Beta',
    });
  });

  it('refuses blocked, own-domain and mismatched announcements and records nothing', async () => {
    const info = await beta.node.nodeInfo.get();
    const self = await alpha.request(SWARM_PATHS.announce, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        ...(await alpha.node.nodeInfo.get()),
        timestamp: alpha.clock.now().toISOString(),
      }),
    });
    expect(self.status).toBe(403);
    const mismatch = await beta.node.peers.postJson(
      'alpha.test',
      SWARM_PATHS.announce,
      { ...info, domain: 'gamma.test', timestamp: alpha.clock.now().toISOString() },
      nodeInfoSchema,
    );
    expect(mismatch.ok || mismatch.reason).toMatchObject({
      kind: 'http',
      status: 403,
      body: { code: 'FORBIDDEN' },
    });
    await alpha.node.db.prisma.swarmNode.deleteMany(); // the signature check pinned beta's key
    await alpha.node.db.prisma.nodeBlock.create({ data: { domain: 'beta.test' } });
    const blocked = await beta.node.registry.announceTo('alpha.test', 'admin');
    expect(blocked).toMatchObject({ ok: false, error: expect.stringContaining('NODE_BLOCKED') });
    for (const body of [
      JSON.stringify({ domain: 'beta.test' }),
      JSON.stringify({ ...info, timestamp: 'yesterday' }),
    ]) {
      const r = await alpha.request(SWARM_PATHS.announce, { method: 'POST', headers: json, body });
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ code: 'INVALID_REQUEST' });
    }
    expect(await alpha.node.db.prisma.swarmNode.count()).toBe(0);
  });
});

describe('POST /api/swarm/gossip', () => {
  it('caps answers at 200 nodes and 500 handles, ordered by change time, paging by `since`', async () => {
    await addVerifiedNodes(alpha, 250);
    const base = alpha.clock.now().getTime();
    await alpha.node.db.prisma.handleRegistryEntry.createMany({
      data: Array.from({ length: 600 }, (_, i) => ({
        handle: `user${i}`,
        did: `did:key:zDnUser${i}`,
        nodeDomain: `n${String(i % 250).padStart(4, '0')}.test`,
        updatedAt: new Date(base),
        source: 'gossip:n0000.test',
        changedAt: new Date(base + i),
      })),
    });
    const ask = async (since?: string) => {
      const r = await beta.node.peers.postJson(
        'alpha.test',
        SWARM_PATHS.gossip,
        {
          sender: 'beta.test',
          nodes: [],
          handles: [],
          timestamp: beta.clock.now().toISOString(),
          ...(since ? { since } : {}),
        },
        gossipResponseSchema,
      );
      if (!r.ok) throw new Error(JSON.stringify(r.reason));
      return r.value;
    };
    const page1 = await ask();
    expect(page1.nodes).toHaveLength(200);
    expect(page1.handles).toHaveLength(500);
    expect(page1.handles.slice(0, 2).map((h) => h.handle)).toEqual(['user0', 'user1']);
    expect(page1.nodes.slice(0, 2).map((n) => n.domain)).toEqual(['n0000.test', 'n0001.test']);
    // The next page starts at the last node sent (nodes end sooner than handles).
    expect(page1.timestamp).toBe(new Date(base + 199).toISOString());
    const page2 = await ask(page1.timestamp);
    expect(page2.nodes.map((n) => n.domain)).toEqual(
      Array.from({ length: 51 }, (_, i) => `n${String(199 + i).padStart(4, '0')}.test`),
    );
    expect(page2.handles[0]?.handle).toBe('user199');
    expect(page2.handles.at(-1)?.handle).toBe('user599');
    const page3 = await ask(page2.timestamp);
    expect(page3).toMatchObject({ nodes: [], handles: [] });
    const logs = await alpha.node.db.prisma.swarmSyncLog.findMany({
      where: { direction: 'pull' },
      orderBy: { createdAt: 'asc' },
    });
    expect(logs.map((l) => [l.remoteDomain, l.nodesSent, l.handlesSent, l.success])).toEqual([
      ['beta.test', 200, 500, true],
      ['beta.test', 51, 401, true],
      ['beta.test', 0, 0, true],
    ]);
  });

  it('answers 400 to malformed gossip and changes nothing', async () => {
    for (const body of [
      '[]',
      JSON.stringify({ sender: 'not a domain!', timestamp: '2026-11-22T12:00:00Z' }),
      JSON.stringify({ sender: 'beta.test', nodes: 'x', timestamp: '2026-11-22T12:00:00Z' }),
    ]) {
      const r = await alpha.request(SWARM_PATHS.gossip, { method: 'POST', headers: json, body });
      expect(r.status).toBe(400);
    }
    expect(await alpha.node.db.prisma.swarmNode.count()).toBe(0);
    expect(await alpha.node.db.prisma.swarmSyncLog.count()).toBe(0);
  });
});

describe('POST /api/swarm/nodes (admin)', () => {
  const admin = (body: unknown) =>
    alpha.request(SWARM_PATHS.nodes, { method: 'POST', headers: json, body: JSON.stringify(body) });

  it('adds a seed, announces to seeds and to one domain, discovers, gossips, and reports per peer', async () => {
    expect(
      await (await admin({ action: 'addSeed', domain: 'beta.test', priority: 2 })).json(),
    ).toEqual({
      action: 'addSeed',
      ok: true,
      results: [],
      seed: { domain: 'beta.test', priority: 2 },
    });
    await admin({ action: 'addSeed', domain: 'down.test', priority: 1 });
    const announced = (await (await admin({ action: 'announce' })).json()) as {
      ok: boolean;
      results: { domain: string; ok: boolean }[];
    };
    expect(announced.ok).toBe(false);
    expect(announced.results.map((r) => [r.domain, r.ok])).toEqual([
      ['down.test', false],
      ['beta.test', true],
    ]);
    const seeds = await alpha.node.db.prisma.swarmSeed.findMany({ orderBy: { priority: 'asc' } });
    expect(seeds.map((s) => [s.domain, s.consecutiveFailures, s.lastContactAt !== null])).toEqual([
      ['down.test', 1, false],
      ['beta.test', 0, true],
    ]);
    expect(await (await admin({ action: 'announce', domain: 'beta.test' })).json()).toMatchObject({
      ok: true,
      results: [{ domain: 'beta.test', ok: true }],
    });
    expect(await (await admin({ action: 'discover', domain: 'beta.test' })).json()).toMatchObject({
      ok: true,
      results: [{ domain: 'beta.test', ok: true }],
    });
    const gossip = (await (await admin({ action: 'gossip' })).json()) as {
      results: Record<string, unknown>[];
    };
    expect(gossip.results).toEqual([
      expect.objectContaining({
        domain: 'beta.test',
        ok: true,
        nodesSent: 0,
        handlesSent: 0,
        ms: expect.any(Number),
      }),
    ]);
    expect(await (await admin({ action: 'gossip', domain: 'beta.test' })).json()).toMatchObject({
      action: 'gossip',
      ok: true,
    });
  });

  it('answers 400 to unknown actions and missing fields', async () => {
    for (const body of [
      { action: 'explode' },
      { action: 'discover' },
      { action: 'addSeed', domain: 'x.test' },
      { action: 'addSeed', domain: 'x.test', priority: -1 },
    ]) {
      const r = await admin(body);
      expect(r.status).toBe(400);
    }
    expect(await alpha.node.db.prisma.swarmSeed.count()).toBe(0);
  });
});
