import { describe, expect, it } from 'vitest';
import {
  adminActionSchema,
  announcementSchema,
  discoveryDocumentSchema,
  gossipRequestSchema,
  gossipResponseSchema,
  handleEntrySchema,
  infoResponseSchema,
  nodeInfoSchema,
  nodeListEntrySchema,
  nodeListResponseSchema,
  nodeSummarySchema,
  swarmStatsSchema,
  trustScoreSchema,
} from './node-schemas.ts';
import { checkWireShape } from './wire-shape.test-helpers.ts';

const T = '2026-11-22T14:00:00.000Z';
const PEM = '-----BEGIN PUBLIC KEY-----\nMFkw...\n-----END PUBLIC KEY-----\n';
const DID = 'did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169';

const exampleNodeInfo = {
  domain: 'beta.example',
  name: 'Beta',
  description: 'A node',
  publicKey: PEM,
  softwareVersion: '0.1.0',
  userCount: 10,
  postCount: 100,
  capabilities: ['handles', 'gossip', 'interactions'],
};
const exampleStats = { totalNodes: 5, activeNodes: 4, totalUsers: 50, totalPosts: 500 };
const exampleSummary = { domain: 'gamma.example:8443', name: 'Gamma', lastSeenAt: T };
const exampleHandle = { handle: 'alice', did: DID, nodeDomain: 'beta.example', updatedAt: T };

describe('node info (GET /api/swarm/info)', () => {
  checkWireShape(nodeInfoSchema, exampleNodeInfo, {
    required: ['domain'],
    expected: exampleNodeInfo,
  });

  it('is the info response, with optional stats and extras seen on other nodes', () => {
    expect(infoResponseSchema).toBe(nodeInfoSchema);
    const parsed = nodeInfoSchema.parse({
      ...exampleNodeInfo,
      stats: exampleStats,
      logoUrl: 'https://beta.example/logo.png',
      isNsfw: false,
    });
    expect(parsed).toEqual({
      ...exampleNodeInfo,
      stats: exampleStats,
      logoUrl: 'https://beta.example/logo.png',
      isNsfw: false,
    });
  });

  it('fills defaults for a minimal peer and keeps unknown capabilities', () => {
    expect(
      nodeInfoSchema.parse({ domain: 'Beta.Example', capabilities: ['gossip', 'future-thing'] }),
    ).toEqual({
      domain: 'beta.example',
      name: '',
      description: '',
      publicKey: '',
      softwareVersion: '',
      userCount: 0,
      postCount: 0,
      capabilities: ['gossip', 'future-thing'],
    });
  });

  it('rejects bad domains and counts', () => {
    expect(
      nodeInfoSchema.safeParse({ ...exampleNodeInfo, domain: 'https://beta.example' }).success,
    ).toBe(false);
    expect(nodeInfoSchema.safeParse({ ...exampleNodeInfo, userCount: -3 }).success).toBe(false);
    expect(nodeInfoSchema.safeParse({ ...exampleNodeInfo, capabilities: [1] }).success).toBe(false);
  });
});

describe('announcement (POST /api/swarm/announce)', () => {
  const example = { ...exampleNodeInfo, timestamp: T };
  checkWireShape(announcementSchema, example, {
    required: ['domain', 'timestamp'],
    expected: example,
  });
  it('normalises the timestamp to UTC with milliseconds', () => {
    expect(
      announcementSchema.parse({ ...example, timestamp: '2026-11-22T16:00:00+02:00' }).timestamp,
    ).toBe(T);
    expect(
      announcementSchema.parse({ ...example, timestamp: '2026-11-22T14:00:00Z' }).timestamp,
    ).toBe(T);
    expect(
      announcementSchema.safeParse({ ...example, timestamp: '2026-11-22T14:00:00' }).success,
    ).toBe(false);
    expect(
      announcementSchema.safeParse({ ...example, timestamp: '2026-02-30T14:00:00Z' }).success,
    ).toBe(false);
  });
});

describe('node summary and list entry', () => {
  checkWireShape(nodeSummarySchema, exampleSummary, {
    required: ['domain', 'lastSeenAt'],
    expected: exampleSummary,
  });
  const entry = { ...exampleSummary, userCount: 3, postCount: 7 };
  checkWireShape(nodeListEntrySchema, entry, {
    required: ['domain', 'lastSeenAt'],
    expected: entry,
  });
});

describe('swarm statistics', () => {
  checkWireShape(swarmStatsSchema, exampleStats, { required: [], expected: exampleStats });
  it('rejects negative or fractional counts', () => {
    expect(swarmStatsSchema.safeParse({ ...exampleStats, totalNodes: -1 }).success).toBe(false);
    expect(swarmStatsSchema.safeParse({ ...exampleStats, activeNodes: 0.5 }).success).toBe(false);
  });
});

describe('nodes list (GET /api/swarm/nodes)', () => {
  const example = {
    nodes: [{ ...exampleSummary, userCount: 3, postCount: 7 }],
    stats: exampleStats,
  };
  checkWireShape(nodeListResponseSchema, example, { required: [], expected: example });
});

describe('discovery document (GET /.well-known/node-swarm)', () => {
  const { userCount: _u, postCount: _p, ...node } = exampleNodeInfo;
  const example = {
    node,
    swarm: { ...exampleStats, seeds: ['seed.example', 'localhost:3001'] },
    nodes: [exampleSummary],
  };
  checkWireShape(discoveryDocumentSchema, example, {
    required: ['node', 'node.domain', 'swarm'],
    expected: example,
  });
  it('accepts nodes=false answers without a node list, and rejects bad seeds', () => {
    const { nodes: _n, ...withoutNodes } = example;
    expect(discoveryDocumentSchema.parse(withoutNodes).nodes).toEqual([]);
    expect(
      discoveryDocumentSchema.safeParse({
        ...example,
        swarm: { ...example.swarm, seeds: ['not a domain'] },
      }).success,
    ).toBe(false);
  });
});

describe('handle entry', () => {
  checkWireShape(handleEntrySchema, exampleHandle, {
    required: ['handle', 'did', 'nodeDomain'],
    expected: exampleHandle,
  });
  it('reads an entry without updatedAt (the origin treats it as optional)', () => {
    const { updatedAt: _at, ...rest } = exampleHandle;
    expect(handleEntrySchema.parse(rest)).toEqual(rest);
    expect(handleEntrySchema.safeParse({ ...exampleHandle, updatedAt: 'yesterday' }).success).toBe(
      false,
    );
  });
  it('accepts other DID methods but not non-DIDs', () => {
    expect(
      handleEntrySchema.safeParse({ ...exampleHandle, did: 'did:web:beta.example:users:alice' })
        .success,
    ).toBe(true);
    expect(handleEntrySchema.safeParse({ ...exampleHandle, did: 'alice' }).success).toBe(false);
    expect(handleEntrySchema.safeParse({ ...exampleHandle, did: 'did:key:' }).success).toBe(false);
  });
});

describe('gossip', () => {
  const request = {
    sender: 'alpha.example',
    nodes: [exampleSummary],
    handles: [exampleHandle],
    timestamp: T,
    since: T,
  };
  checkWireShape(gossipRequestSchema, request, {
    required: ['sender', 'timestamp'],
    expected: request,
  });
  it('treats since as optional and empty lists as defaults', () => {
    expect(gossipRequestSchema.parse({ sender: 'alpha.example', timestamp: T })).toEqual({
      sender: 'alpha.example',
      nodes: [],
      handles: [],
      timestamp: T,
    });
  });

  const response = {
    nodes: [exampleSummary],
    handles: [exampleHandle],
    received: { nodes: 1, handles: 0 },
    timestamp: T,
  };
  checkWireShape(gossipResponseSchema, response, { required: [], expected: response });
  it('reads answers of other implementations without our extra timestamp', () => {
    const { timestamp: _t, ...theirs } = response;
    expect(gossipResponseSchema.parse(theirs)).toEqual(theirs);
    expect(
      gossipResponseSchema.safeParse({ ...response, received: { nodes: -1, handles: 0 } }).success,
    ).toBe(false);
    expect(
      gossipResponseSchema.safeParse({ ...response, handles: [{ ...exampleHandle, handle: '' }] })
        .success,
    ).toBe(false);
  });
});

describe('admin actions (POST /api/swarm/nodes)', () => {
  it.each([
    [{ action: 'announce' }],
    [{ action: 'announce', domain: 'beta.example' }],
    [{ action: 'discover', domain: 'beta.example:8443' }],
    [{ action: 'gossip' }],
    [{ action: 'gossip', domain: 'localhost:3001' }],
    [{ action: 'addSeed', domain: 'seed.example', priority: 0 }],
  ])('accepts %j', (body) => {
    expect(adminActionSchema.parse(body)).toEqual(body);
  });

  it.each([
    [{}],
    [{ action: 'explode' }],
    [{ action: 'discover' }],
    [{ action: 'discover', domain: 'not a domain' }],
    [{ action: 'announce', domain: 7 }],
    [{ action: 'addSeed', domain: 'seed.example' }],
    [{ action: 'addSeed', domain: 'seed.example', priority: -1 }],
    [{ action: 'addSeed', domain: 'seed.example', priority: 1.5 }],
    [{ action: 'addSeed', domain: 'seed.example', priority: '1' }],
  ])('rejects %j', (body) => {
    expect(adminActionSchema.safeParse(body).success).toBe(false);
  });

  it('normalises the domain', () => {
    expect(adminActionSchema.parse({ action: 'discover', domain: 'Beta.Example' })).toEqual({
      action: 'discover',
      domain: 'beta.example',
    });
  });
});

describe('trust score', () => {
  it('is an integer from 0 to 100', () => {
    for (const score of [0, 50, 100]) expect(trustScoreSchema.safeParse(score).success).toBe(true);
    for (const score of [-1, 101, 50.5, '50'])
      expect(trustScoreSchema.safeParse(score).success).toBe(false);
  });
});
