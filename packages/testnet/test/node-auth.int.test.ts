import type { Context } from 'hono';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  LIMITS,
  createNonce,
  exportPublicKeyPem,
  generateSigningKeyPair,
  signNodeRequest,
} from '@swarm/contract';
import { nodeSignature, readJsonBody } from '@swarm/gateway';
import {
  createManualClock,
  createTestNode,
  linkedInProcess,
  type FrontDoor,
  type ManualClock,
  type TestNode,
} from './harness.ts';

// Inbound node signatures through the front door: beta signs, alpha verifies (fetching beta's key
// from beta's /api/swarm/info over an in-process network). Every refusal is checked for its
// status and code AND for leaving no trace (no nonce row, no pinned key change).

const ECHO = '/api/swarm/interactions/test-echo';
const OPTIONAL = '/api/swarm/test-optional';

interface Net {
  clock: ManualClock;
  alpha: TestNode;
  beta: TestNode;
  /** domain → front door; a domain missing here is unreachable. */
  fronts: Map<string, FrontDoor>;
  close(): Promise<void>;
}

async function createNet(alphaEnv: Record<string, string> = {}): Promise<Net> {
  const clock = createManualClock();
  const { fronts, overrides } = linkedInProcess(clock);
  const alpha = await createTestNode({ SWARM_DOMAIN: 'alpha.test', ...alphaEnv }, overrides);
  const beta = await createTestNode({ SWARM_DOMAIN: 'beta.test' }, overrides);
  fronts.set('alpha.test', alpha.app);
  fronts.set('beta.test', beta.app);

  // Test-only routes: what a handler behind the middleware sees.
  const echo = async (c: Context) =>
    c.json({
      sourceDomain: (c.var as { sourceDomain?: string }).sourceDomain ?? null,
      body: await readJsonBody(c),
    });
  alpha.app.post(ECHO, echo);
  alpha.app.use(OPTIONAL, nodeSignature({ required: false }));
  alpha.app.post(OPTIONAL, echo);

  return {
    clock,
    alpha,
    beta,
    fronts,
    close: async () => {
      await alpha.close();
      await beta.close();
    },
  };
}

interface SignedPostOptions {
  path?: string;
  body?: string;
  /** Bytes actually sent, when they differ from what was signed. */
  sentBody?: string;
  privateKey?: CryptoKey;
  sourceDomain?: string;
  targetDomain?: string;
  now?: Date;
  nonce?: string;
  ip?: string;
}

async function signedPost(net: Net, opts: SignedPostOptions = {}): Promise<Response> {
  const path = opts.path ?? ECHO;
  const body = opts.body ?? JSON.stringify({ hello: 'alpha', n: 1 });
  const headers = await signNodeRequest({
    privateKey: opts.privateKey ?? net.beta.node.keys.privateKey,
    method: 'POST',
    path,
    sourceDomain: opts.sourceDomain ?? 'beta.test',
    targetDomain: opts.targetDomain ?? 'alpha.test',
    body,
    now: opts.now ?? net.clock.now(),
    nonce: opts.nonce,
  });
  return net.alpha.request(path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...headers,
      ...(opts.ip ? { 'x-forwarded-for': opts.ip } : {}),
    },
    body: opts.sentBody ?? body,
  });
}

async function expectError(res: Response, status: number, code: string) {
  const body = (await res.json()) as { code: string; error: string };
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(typeof body.error).toBe('string');
  return body;
}

const nonceCount = (net: Net) => net.alpha.node.db.prisma.requestNonce.count();
const betaRow = (net: Net) =>
  net.alpha.node.db.prisma.swarmNode.findUnique({
    where: { domain: 'beta.test' },
    select: { publicKey: true, keyPinnedAt: true, discoveredVia: true },
  });

describe('node-signed requests', () => {
  // One pair of nodes for the block (node start-up dominates the run time); each test starts
  // from an empty registry, nonce table and block list on alpha.
  let net: Net;
  beforeAll(async () => {
    net = await createNet();
  });
  afterAll(async () => {
    await net.close();
  });
  beforeEach(async () => {
    const { prisma } = net.alpha.node.db;
    await prisma.requestNonce.deleteMany();
    await prisma.nodeBlock.deleteMany();
    await prisma.swarmNode.deleteMany();
    for (const domain of ['beta.test', 'gamma.test'])
      await net.alpha.node.nodeAuth.resetPinnedKey(domain);
    net.fronts.clear();
    net.fronts.set('alpha.test', net.alpha.app);
    net.fronts.set('beta.test', net.beta.app);
  });

  it('accepts a correctly signed POST; the handler sees the sender and the signed body', async () => {
    const res = await signedPost(net, { body: '{"hello":"alpha","n":1}' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sourceDomain: 'beta.test', body: { hello: 'alpha', n: 1 } });
    expect(await nonceCount(net)).toBe(1);
    const row = await betaRow(net);
    expect(row).toMatchObject({ discoveredVia: 'signed-request' });
    expect(row?.keyPinnedAt).toBeInstanceOf(Date);
    expect(row?.publicKey).toBe(net.beta.node.keys.publicKeyPem);

    // Later requests verify against the pinned key, even when beta is unreachable.
    net.fronts.delete('beta.test');
    const again = await signedPost(net);
    expect(again.status).toBe(200);
    expect(await nonceCount(net)).toBe(2);
  });

  it('accepts timestamps at the edges of the ±5 minute window', async () => {
    const now = net.clock.now().getTime();
    const past = await signedPost(net, { now: new Date(now - LIMITS.clockWindowMs) });
    expect(past.status).toBe(200);
    const future = await signedPost(net, { now: new Date(now + LIMITS.clockWindowMs) });
    expect(future.status).toBe(200);
  });

  it('refuses a signature made with another key, before and after pinning', async () => {
    const forger = await generateSigningKeyPair();
    const res = await signedPost(net, { privateKey: forger.privateKey });
    await expectError(res, 401, 'INVALID_SIGNATURE');
    expect(await nonceCount(net)).toBe(0);
    expect(await betaRow(net)).toBeNull(); // nothing pinned for a request that failed

    expect((await signedPost(net)).status).toBe(200);
    const pinned = await betaRow(net);
    const forged = await signedPost(net, { privateKey: forger.privateKey });
    await expectError(forged, 401, 'INVALID_SIGNATURE');
    expect(await nonceCount(net)).toBe(1);
    expect(await betaRow(net)).toEqual(pinned);
  });

  it('refuses a body changed after signing', async () => {
    const res = await signedPost(net, {
      body: '{"hello":"alpha","n":1}',
      sentBody: '{"hello":"alpha","n":2}',
    });
    await expectError(res, 401, 'INVALID_SIGNATURE');
    // Same JSON value, different bytes: still not what was signed.
    const spaced = await signedPost(net, {
      body: '{"hello":"alpha"}',
      sentBody: '{ "hello": "alpha" }',
    });
    await expectError(spaced, 401, 'INVALID_SIGNATURE');
    expect(await nonceCount(net)).toBe(0);
    expect(await betaRow(net)).toBeNull();
  });

  it('refuses a request signed for another node or another path', async () => {
    await expectError(
      await signedPost(net, { targetDomain: 'gamma.test' }),
      401,
      'INVALID_SIGNATURE',
    );
    const headers = await signNodeRequest({
      privateKey: net.beta.node.keys.privateKey,
      method: 'POST',
      path: '/api/swarm/interactions/like',
      sourceDomain: 'beta.test',
      targetDomain: 'alpha.test',
      body: '{}',
      now: net.clock.now(),
    });
    const moved = await net.alpha.request(ECHO, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: '{}',
    });
    await expectError(moved, 401, 'INVALID_SIGNATURE');
    expect(await nonceCount(net)).toBe(0);
  });

  it('refuses a replayed nonce', async () => {
    const nonce = createNonce();
    expect((await signedPost(net, { nonce })).status).toBe(200);
    const replay = await expectError(await signedPost(net, { nonce }), 401, 'INVALID_SIGNATURE');
    expect(replay.error).toMatch(/nonce/i);
    expect(await nonceCount(net)).toBe(1);
  });

  it('refuses stale and future timestamps', async () => {
    const now = net.clock.now().getTime();
    const stale = await signedPost(net, { now: new Date(now - LIMITS.clockWindowMs - 1) });
    await expectError(stale, 401, 'INVALID_SIGNATURE');
    const future = await signedPost(net, { now: new Date(now + LIMITS.clockWindowMs + 1) });
    await expectError(future, 401, 'INVALID_SIGNATURE');
    expect(await nonceCount(net)).toBe(0);
    expect(await betaRow(net)).toBeNull();
  });

  it('refuses a sender whose key cannot be fetched (unreachable)', async () => {
    const gamma = await generateSigningKeyPair();
    const res = await signedPost(net, { privateKey: gamma.privateKey, sourceDomain: 'gamma.test' });
    const body = await expectError(res, 401, 'INVALID_SIGNATURE');
    expect(body.error).toMatch(/gamma\.test/);
    expect(await nonceCount(net)).toBe(0);
    expect(await net.alpha.node.db.prisma.swarmNode.count()).toBe(0);
  });

  it('refuses a sender whose published info speaks for another domain', async () => {
    net.fronts.set('gamma.test', net.beta.app); // gamma.test answers beta's info
    const res = await signedPost(net, { sourceDomain: 'gamma.test' });
    await expectError(res, 401, 'INVALID_SIGNATURE');
    expect(await net.alpha.node.db.prisma.swarmNode.count()).toBe(0);
  });

  it('answers 409 KEY_CONFLICT when a pinned node changes its key, until an admin resets it', async () => {
    expect((await signedPost(net)).status).toBe(200);
    const pinned = await betaRow(net);

    // beta.test comes back with a new identity (a fresh node under the same domain).
    const reborn = await createTestNode(
      { SWARM_DOMAIN: 'beta.test' },
      { clock: net.clock, resolveHost: async () => ['93.184.216.34'] },
    );
    try {
      net.fronts.set('beta.test', reborn.app);
      const conflict = await signedPost(net, { privateKey: reborn.node.keys.privateKey });
      await expectError(conflict, 409, 'KEY_CONFLICT');
      // Again, within the re-check interval (no second fetch needed): still a conflict.
      await expectError(
        await signedPost(net, { privateKey: reborn.node.keys.privateKey }),
        409,
        'KEY_CONFLICT',
      );
      expect(await nonceCount(net)).toBe(1);
      expect(await betaRow(net)).toEqual(pinned);

      // The old key no longer verifies against what beta publishes, but is still pinned.
      expect((await signedPost(net)).status).toBe(200);

      expect(await net.alpha.node.nodeAuth.resetPinnedKey('beta.test')).toBe(true);
      const after = await signedPost(net, { privateKey: reborn.node.keys.privateKey });
      expect(after.status).toBe(200);
      expect((await betaRow(net))?.publicKey).toBe(
        await exportPublicKeyPem(reborn.node.keys.publicKey),
      );
    } finally {
      await reborn.close();
    }
  });

  it('answers 403 NODE_BLOCKED for a blocked sender', async () => {
    await net.alpha.node.db.prisma.nodeBlock.create({ data: { domain: 'beta.test' } });
    await expectError(await signedPost(net), 403, 'NODE_BLOCKED');
    expect(await nonceCount(net)).toBe(0);
    expect(await betaRow(net)).toBeNull();
  });

  it('checks pinned key and block in the database on every request, not in memory', async () => {
    expect((await signedPost(net)).status).toBe(200);
    const { prisma } = net.alpha.node.db;
    // Reset by another replica on the same database: this process is not told, so the next
    // request must find the key unpinned and pin it again from beta's node info.
    await prisma.swarmNode.update({
      where: { domain: 'beta.test' },
      data: { publicKey: null, keyPinnedAt: null },
    });
    expect((await signedPost(net)).status).toBe(200);
    expect(await betaRow(net)).toMatchObject({ publicKey: net.beta.node.keys.publicKeyPem });
    expect((await betaRow(net))?.keyPinnedAt).toBeInstanceOf(Date);
    await prisma.nodeBlock.create({ data: { domain: 'beta.test' } });
    await expectError(await signedPost(net), 403, 'NODE_BLOCKED');
    expect(await nonceCount(net)).toBe(2);
  });

  it('answers 401 when a required signature is missing or incomplete', async () => {
    const unsigned = await net.alpha.request(ECHO, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await expectError(unsigned, 401, 'INVALID_SIGNATURE');
    const replies = await net.alpha.request('/api/swarm/replies', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await expectError(replies, 401, 'INVALID_SIGNATURE');
    const partial = await net.alpha.request(ECHO, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Swarm-Source-Domain': 'beta.test' },
      body: '{}',
    });
    await expectError(partial, 401, 'INVALID_SIGNATURE');
    expect(await nonceCount(net)).toBe(0);
  });

  it('lets unsigned requests through where signatures are optional, but checks present ones', async () => {
    const unsigned = await net.alpha.request(OPTIONAL, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(unsigned.status).toBe(200);
    expect(await unsigned.json()).toEqual({ sourceDomain: null, body: { a: 1 } });

    const signed = await signedPost(net, { path: OPTIONAL });
    expect(signed.status).toBe(200);
    expect(((await signed.json()) as { sourceDomain: string }).sourceDomain).toBe('beta.test');

    const forger = await generateSigningKeyPair();
    await expectError(
      await signedPost(net, { path: OPTIONAL, privateKey: forger.privateKey }),
      401,
      'INVALID_SIGNATURE',
    );
    expect(await nonceCount(net)).toBe(1);
  });

  it('prunes nonces once they leave the clock window', async () => {
    expect((await signedPost(net)).status).toBe(200);
    net.clock.advance(LIMITS.clockWindowMs * 2 + 60_000);
    expect((await signedPost(net)).status).toBe(200);
    expect(await nonceCount(net)).toBe(1);
  });
});

const postTo =
  (net: () => Net) =>
  (path: string, body: string, headers: Record<string, string> = {}) =>
    net().alpha.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

describe('bodies of POST /api/swarm/*', () => {
  let net: Net;
  beforeAll(async () => {
    net = await createNet({ SWARM_TRUST_PROXY: '1' });
  });
  afterAll(async () => {
    await net.close();
  });
  const post = postTo(() => net);

  it('answers 413 over the body cap, 64 KiB for interactions and 256 KiB for gossip', async () => {
    const over64 = JSON.stringify({ pad: 'x'.repeat(LIMITS.interactionBodyBytes) });
    await expectError(
      await signedPost(net, { body: over64, ip: '10.0.0.1' }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    const gossip = await post('/api/swarm/gossip', over64, { 'x-forwarded-for': '10.0.0.2' });
    expect(gossip.status).not.toBe(413);
    const over256 = JSON.stringify({ pad: 'x'.repeat(LIMITS.gossipBodyBytes) });
    await expectError(
      await post('/api/swarm/gossip', over256, { 'x-forwarded-for': '10.0.0.3' }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    // A declared Content-Length over the cap is refused before reading.
    await expectError(
      await post(OPTIONAL, over64, {
        'x-forwarded-for': '10.0.0.3',
        'content-length': String(over64.length),
      }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expect(await nonceCount(net)).toBe(0);
  });

  it('answers 415 unless the body is application/json', async () => {
    const text = await net.alpha.request(OPTIONAL, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    await expectError(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const none = await net.alpha.request(OPTIONAL, { method: 'POST', body: '{}' });
    await expectError(none, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const charset = await post(OPTIONAL, '{}', {
      'content-type': 'application/json; charset=utf-8',
    });
    expect(charset.status).toBe(200);
  });

  it('answers 400 INVALID_REQUEST for malformed JSON, signed or not', async () => {
    await expectError(await post(OPTIONAL, '{"a":'), 400, 'INVALID_REQUEST');
    await expectError(await post(OPTIONAL, ''), 400, 'INVALID_REQUEST');
    net.clock.advance(60_000);
    await expectError(await signedPost(net, { body: '{nope' }), 400, 'INVALID_REQUEST');
    expect(await nonceCount(net)).toBe(0);
  });
});

describe('rate limits on POST /api/swarm/*', () => {
  let net: Net;
  beforeEach(async () => {
    net = await createNet({ SWARM_RATE_LIMIT_PER_MIN: '3', SWARM_TRUST_PROXY: '1' });
  });
  afterEach(async () => {
    await net.close();
  });
  const post = postTo(() => net);

  it('answers 429 with Retry-After per client IP, and recovers as the clock moves', async () => {
    const from = (ip: string) => post(OPTIONAL, '{}', { 'x-forwarded-for': `203.0.113.9, ${ip}` });
    for (let i = 0; i < 3; i++) expect((await from('198.51.100.1')).status).toBe(200);
    const limited = await from('198.51.100.1');
    await expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('20'); // 3 per minute: one every 20 s
    // Another address has its own budget; reads are not limited.
    expect((await from('198.51.100.2')).status).toBe(200);
    expect((await net.alpha.request('/api/swarm/info')).status).toBe(200);

    net.clock.advance(19_000);
    await expectError(await from('198.51.100.1'), 429, 'RATE_LIMITED');
    net.clock.advance(1_000);
    expect((await from('198.51.100.1')).status).toBe(200);
  });

  it('answers 429 per verified source node, whatever address it comes from', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await signedPost(net, { ip: `192.0.2.${i}` })).status).toBe(200);
    }
    const limited = await signedPost(net, { ip: '192.0.2.99' });
    await expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    net.clock.advance(20_000);
    expect((await signedPost(net, { ip: '192.0.2.100' })).status).toBe(200);
  });
});
