import { describe, expect, it } from 'vitest';
import { generateSigningKeyPair, sha256Base64url } from './crypto.ts';
import { base64urlDecode } from './encoding.ts';
import {
  SWARM_HEADERS,
  createNonce,
  isAcceptableInteractionTime,
  isWithinClockWindow,
  nodeRequestSigningPayload,
  readNodeSignatureHeaders,
  signNodeRequest,
  signUserAction,
  userSignaturePayload,
  verifyNodeRequestSignature,
  verifyUserAction,
} from './signing.ts';

describe('node-signed requests', () => {
  it('builds the canonical payload with an upper-case method', () => {
    expect(
      nodeRequestSigningPayload({
        method: 'post',
        path: '/api/swarm/gossip?x=1',
        sourceDomain: 'alpha.example',
        targetDomain: 'beta.example:8443',
        timestamp: '2026-11-22T14:00:00.000Z',
        nonce: 'AAAAAAAAAAAAAAAAAAAAAA',
        bodySha256: '47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU',
      }),
    ).toBe(
      '{"bodySha256":"47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU","method":"POST","nonce":"AAAAAAAAAAAAAAAAAAAAAA",' +
        '"path":"/api/swarm/gossip?x=1","sourceDomain":"alpha.example","targetDomain":"beta.example:8443","timestamp":"2026-11-22T14:00:00.000Z"}',
    );
  });

  it('signs and verifies; any change to what is covered breaks it', async () => {
    const { privateKey, publicKey } = await generateSigningKeyPair();
    const body = JSON.stringify({
      sender: 'alpha.example',
      nodes: [],
      handles: [],
      timestamp: '2026-11-22T14:00:00.000Z',
    });
    const request = {
      method: 'POST',
      path: '/api/swarm/gossip',
      sourceDomain: 'alpha.example',
      targetDomain: 'beta.example',
    };
    const headers = await signNodeRequest({
      privateKey,
      ...request,
      body,
      now: new Date('2026-11-22T14:00:00Z'),
    });
    expect(headers['X-Swarm-Source-Domain']).toBe('alpha.example');
    expect(headers['X-Swarm-Timestamp']).toBe('2026-11-22T14:00:00.000Z');
    expect(base64urlDecode(headers['X-Swarm-Nonce']).length).toBeGreaterThanOrEqual(16);
    expect(base64urlDecode(headers['X-Swarm-Signature'])).toHaveLength(64);

    const check = (overrides: Partial<Parameters<typeof verifyNodeRequestSignature>[0]>) =>
      verifyNodeRequestSignature({
        publicKey,
        ...request,
        targetDomain: 'beta.example',
        body,
        headers,
        ...overrides,
      });
    expect(await check({})).toBe(true);
    expect(await check({ body: new TextEncoder().encode(body) })).toBe(true);
    expect(await check({ method: 'post' })).toBe(true); // method is upper-cased on both sides
    expect(await check({ body: `${body} ` })).toBe(false);
    expect(await check({ path: '/api/swarm/announce' })).toBe(false);
    expect(await check({ targetDomain: 'gamma.example' })).toBe(false);
    expect(await check({ method: 'PUT' })).toBe(false);
    expect(await check({ headers: { ...headers, 'X-Swarm-Nonce': createNonce() } })).toBe(false);
    expect(
      await check({ headers: { ...headers, 'X-Swarm-Timestamp': '2026-11-22T14:00:01.000Z' } }),
    ).toBe(false);
    expect(await check({ headers: { ...headers, 'X-Swarm-Source-Domain': 'evil.example' } })).toBe(
      false,
    );
    expect(await check({ headers: { ...headers, 'X-Swarm-Signature': 'junk' } })).toBe(false);
    expect(await check({ publicKey: (await generateSigningKeyPair()).publicKey })).toBe(false);
  });

  it('uses a given nonce and signs an empty body as the hash of no bytes', async () => {
    const { privateKey, publicKey } = await generateSigningKeyPair();
    const nonce = createNonce(32);
    const headers = await signNodeRequest({
      privateKey,
      method: 'POST',
      path: '/p',
      sourceDomain: 'a.example',
      targetDomain: 'b.example',
      body: '',
      nonce,
    });
    expect(headers['X-Swarm-Nonce']).toBe(nonce);
    expect(await sha256Base64url('')).toBe('47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU');
    expect(
      await verifyNodeRequestSignature({
        publicKey,
        method: 'POST',
        path: '/p',
        targetDomain: 'b.example',
        body: new Uint8Array(),
        headers,
      }),
    ).toBe(true);
  });

  it('reads the four headers and rejects malformed ones with a reason', async () => {
    const { privateKey } = await generateSigningKeyPair();
    const headers = await signNodeRequest({
      privateKey,
      method: 'POST',
      path: '/p',
      sourceDomain: 'a.example:8443',
      targetDomain: 'b.example',
      body: '{}',
    });
    const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    const read = (overrides: Record<string, string | undefined>) =>
      readNodeSignatureHeaders((name) =>
        name in overrides ? overrides[name] : lower.get(name.toLowerCase()),
      );
    expect(read({})).toEqual({ ok: true, value: headers });
    const failures: Array<[Record<string, string | undefined>, RegExp]> = [
      [{ [SWARM_HEADERS.signature]: undefined }, /missing/],
      [{ [SWARM_HEADERS.sourceDomain]: 'not a domain' }, /Source-Domain/],
      [{ [SWARM_HEADERS.timestamp]: 'yesterday' }, /Timestamp/],
      [{ [SWARM_HEADERS.nonce]: 'short' }, /Nonce/],
      [{ [SWARM_HEADERS.nonce]: 'no+base64/url' }, /Nonce/],
      [{ [SWARM_HEADERS.signature]: 'x'.repeat(300) }, /Signature/],
    ];
    for (const [overrides, reason] of failures) {
      const result = read(overrides);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toMatch(reason);
    }
  });

  it('creates nonces of at least 16 random bytes', () => {
    expect(base64urlDecode(createNonce()).length).toBe(16);
    expect(base64urlDecode(createNonce(4)).length).toBe(16);
    expect(createNonce()).not.toBe(createNonce());
  });
});

describe('time windows', () => {
  const now = new Date('2026-11-22T14:00:00.000Z');
  it('accepts ±5 minutes for request timestamps', () => {
    expect(isWithinClockWindow('2026-11-22T14:05:00.000Z', now)).toBe(true);
    expect(isWithinClockWindow('2026-11-22T13:55:00Z', now)).toBe(true);
    expect(isWithinClockWindow('2026-11-22T14:05:00.001Z', now)).toBe(false);
    expect(isWithinClockWindow(new Date('2026-11-22T13:54:59.999Z'), now)).toBe(false);
    expect(isWithinClockWindow('garbage', now)).toBe(false);
    expect(isWithinClockWindow('2026-11-22T14:00:10Z', now, 5_000)).toBe(false);
  });

  it('accepts interaction timestamps up to 7 days old and 5 minutes ahead', () => {
    expect(isAcceptableInteractionTime('2026-11-15T14:00:00.000Z', now)).toBe(true);
    expect(isAcceptableInteractionTime('2026-11-15T13:59:59.999Z', now)).toBe(false);
    expect(isAcceptableInteractionTime('2026-11-22T14:05:00.000Z', now)).toBe(true);
    expect(isAcceptableInteractionTime('2026-11-22T14:05:00.001Z', now)).toBe(false);
    expect(isAcceptableInteractionTime('nope', now)).toBe(false);
  });
});

describe('user signatures', () => {
  const body = {
    postId: '6ba7b810-9dad-11d1-80b4-00c04fd430c8',
    like: {
      actorHandle: 'alice',
      actorDisplayName: 'Alice',
      actorAvatarUrl: '',
      actorNodeDomain: 'alpha.example',
      interactionId: 'i-1',
      timestamp: '2026-11-22T14:00:00.000Z',
    },
  };

  it('signs { action, targetDomain, body } without the signature member', () => {
    const payload = userSignaturePayload({
      action: 'like',
      targetDomain: 'beta.example',
      body: { ...body, signature: 'ignored' },
    });
    expect(payload).toBe(
      userSignaturePayload({ action: 'like', targetDomain: 'beta.example', body }),
    );
    expect(payload.startsWith('{"action":"like","body":{"like":{"actorAvatarUrl":""')).toBe(true);
    expect(
      payload.endsWith(
        '"postId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8"},"targetDomain":"beta.example"}',
      ),
    ).toBe(true);
  });

  it('verifies the body as sent, with extra members, and detects tampering', async () => {
    const { privateKey, publicKey } = await generateSigningKeyPair();
    const sent = { ...body, extra: { any: ['thing'] } };
    const signature = await signUserAction({
      privateKey,
      action: 'like',
      targetDomain: 'beta.example',
      body: sent,
    });
    const received = JSON.parse(JSON.stringify({ ...sent, signature }));
    const check = (overrides: Partial<Parameters<typeof verifyUserAction>[0]>) =>
      verifyUserAction({
        publicKey,
        action: 'like',
        targetDomain: 'beta.example',
        body: received,
        ...overrides,
      });
    expect(await check({})).toBe(true);
    expect(await check({ action: 'unlike' })).toBe(false);
    expect(await check({ targetDomain: 'gamma.example' })).toBe(false);
    expect(
      await check({ body: { ...received, postId: '00000000-0000-0000-0000-000000000000' } }),
    ).toBe(false);
    expect(await check({ body: { ...received, extra: undefined } })).toBe(false);
    expect(await check({ body: { ...received, signature: undefined } })).toBe(false);
    expect(await check({ body: 'not an object' })).toBe(false);
    expect(await check({ body: { signature, bad: '\ud800' } })).toBe(false);
  });
});
