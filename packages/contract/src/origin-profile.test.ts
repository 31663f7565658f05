import { createSign, createVerify, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.ts';
import { exportPublicKeyPem, generateSigningKeyPair, importPublicKeyPem } from './crypto.ts';
import { base64Decode } from './encoding.ts';
import {
  derToP1363,
  originKeyAsPem,
  originSignerOf,
  p1363ToDer,
  signOriginBody,
  toOriginBody,
  verifyOriginPayload,
} from './origin-profile.ts';

// The origin profile's signatures are Node's `createSign('SHA256')` (DER, base64); ours go
// through WebCrypto (P1363). These tests cross-check both directions with node:crypto.

describe('origin-profile signatures', () => {
  it('our body signature verifies with createVerify (DER, standard base64)', async () => {
    const pair = await generateSigningKeyPair(true);
    const pem = await exportPublicKeyPem(pair.publicKey);
    const body = { postId: 'p', like: { b: 1, a: 'x' }, signature: 'old' };
    const signed = await signOriginBody(pair.privateKey, body);
    const signature = signed.signature as string;
    expect(signature).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(base64Decode(signature)[0]).toBe(0x30);
    const payload = canonicalJson({ postId: 'p', like: { a: 'x', b: 1 } });
    expect(createVerify('SHA256').update(payload).verify(pem, signature, 'base64')).toBe(true);
  });

  it('verifies createSign output (also high-S, also with base64url characters), refuses others', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const key = await importPublicKeyPem(pem);
    if (!key.ok) throw new Error(key.reason);
    for (let i = 0; i < 20; i++) {
      const payload = { n: i, text: 'é' };
      const sig = createSign('SHA256').update(canonicalJson(payload)).sign(privateKey, 'base64');
      expect(await verifyOriginPayload(key.value, payload, sig)).toBe(true);
      const urlSafe = sig.replace(/\+/g, '-').replace(/\//g, '_');
      expect(await verifyOriginPayload(key.value, payload, urlSafe)).toBe(true);
      expect(await verifyOriginPayload(key.value, { ...payload, n: -1 }, sig)).toBe(false);
    }
    expect(await verifyOriginPayload(key.value, {}, 'not base64 !')).toBe(false);
    expect(await verifyOriginPayload(key.value, {}, '')).toBe(false);
  });

  it('DER ⇄ P1363 round-trips, including leading zeros and high bits', () => {
    const cases = [new Uint8Array(64).fill(0xff), new Uint8Array(64).fill(0x01)];
    const zeros = new Uint8Array(64).fill(0x7f);
    zeros[0] = 0;
    zeros[1] = 0;
    zeros[32] = 0;
    cases.push(zeros);
    for (const sig of cases) expect(derToP1363(p1363ToDer(sig))).toEqual(sig);
    expect(derToP1363(new Uint8Array([0x30, 0x02, 0x02, 0x00]))).toBeUndefined();
  });

  it('a bare base64 SPKI key reads as PEM', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const bare = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    expect((await importPublicKeyPem(originKeyAsPem(bare))).ok).toBe(true);
  });

  it('finds the signer as the fact sheet says', () => {
    expect(originSignerOf('/api/swarm/announce', { domain: 'a.example' })).toBe('a.example');
    expect(originSignerOf('/api/swarm/gossip', { sender: 'b.example' })).toBe('b.example');
    expect(
      originSignerOf('/api/swarm/interactions/follow', { follow: { followerNodeDomain: 'c.ex' } }),
    ).toBe('c.ex');
    expect(
      originSignerOf('/api/swarm/interactions/unrepost', { unrepost: { actorNodeDomain: 'd.ex' } }),
    ).toBe('d.ex');
    expect(originSignerOf('/api/swarm/inbox', { nodeDomain: 'e.ex', post: {} })).toBe('e.ex');
    expect(originSignerOf('/api/swarm/messages', { sender: 'x' })).toBeUndefined();
  });
});

describe('outbound bodies for the origin profile', () => {
  it('keeps only known members, drops null and empty URLs, fits display names', () => {
    const like = toOriginBody('/api/swarm/interactions/like', {
      postId: 'p',
      like: {
        actorHandle: 'alice',
        actorDisplayName: '',
        actorAvatarUrl: '',
        actorNodeDomain: 'a.example',
        interactionId: 'i',
        timestamp: 't',
        extra: 1,
      },
      signature: 'user signature',
    });
    expect(like).toEqual({
      postId: 'p',
      like: {
        actorHandle: 'alice',
        actorDisplayName: 'alice',
        actorNodeDomain: 'a.example',
        interactionId: 'i',
        timestamp: 't',
      },
    });
    const announce = toOriginBody('/api/swarm/announce', {
      domain: 'a.example',
      logoUrl: null,
      capabilities: ['handles', 'messages', 'gossip'],
      protocolProfile: 'swarm-node',
    });
    expect(announce).toEqual({ domain: 'a.example', capabilities: ['handles', 'gossip'] });
    const follow = toOriginBody('/api/swarm/interactions/follow', {
      targetHandle: 'bob',
      follow: { followerHandle: 'al', followerDisplayName: 'x'.repeat(80), followerBio: '' },
    });
    expect(follow).toEqual({
      targetHandle: 'bob',
      follow: { followerHandle: 'al', followerDisplayName: 'x'.repeat(50) },
    });
    expect(toOriginBody('/api/swarm/messages', {})).toBeUndefined();
  });
});
