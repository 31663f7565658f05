import { p256 } from '@noble/curves/nist.js';
import { describe, expect, it } from 'vitest';
import {
  didKeyFromCompressedPoint,
  didKeyToPublicKey,
  exportPrivateKeyPkcs8Pem,
  exportPublicKeyPem,
  generateSigningKeyPair,
  importPrivateKeyPem,
  importPublicKeyPem,
  parseDidKey,
  publicKeyFromPrivateKey,
  publicKeyToDidKey,
  sha256Base64url,
  signBytes,
  verifyBytes,
} from './crypto.ts';
import { base64urlDecode, base64urlEncode, utf8Encode } from './encoding.ts';

function unwrap<T>(result: { ok: true; value: T } | { ok: false; reason: string }): T {
  if (!result.ok) throw new Error(result.reason);
  return result.value;
}

async function jwkOf(key: CryptoKey) {
  const { x, y } = await crypto.subtle.exportKey('jwk', key);
  return { x, y };
}

describe('sign and verify (ECDSA P-256, P1363, base64url)', () => {
  it('round-trips and detects tampering', async () => {
    const { privateKey, publicKey } = await generateSigningKeyPair();
    const signature = await signBytes(privateKey, 'hello swarm');
    expect(signature).toMatch(/^[A-Za-z0-9_-]{86}$/); // 64 bytes, no padding
    expect(base64urlDecode(signature)).toHaveLength(64);
    expect(await verifyBytes(publicKey, 'hello swarm', signature)).toBe(true);
    expect(await verifyBytes(publicKey, utf8Encode('hello swarm'), signature)).toBe(true);
    expect(await verifyBytes(publicKey, 'hello swarm!', signature)).toBe(false);

    const flipped = base64urlDecode(signature);
    flipped[10] = (flipped[10] ?? 0) ^ 1;
    expect(await verifyBytes(publicKey, 'hello swarm', base64urlEncode(flipped))).toBe(false);

    const other = await generateSigningKeyPair();
    expect(await verifyBytes(other.publicKey, 'hello swarm', signature)).toBe(false);
  });

  it('never throws on junk signatures', async () => {
    const { publicKey } = await generateSigningKeyPair();
    for (const junk of [
      '',
      'not base64!',
      'AAAA',
      base64urlEncode(new Uint8Array(64)),
      base64urlEncode(new Uint8Array(70)),
      '%%%',
    ]) {
      expect(await verifyBytes(publicKey, 'x', junk)).toBe(false);
    }
  });

  it('emits low-S signatures that noble (strict low-S) also verifies', async () => {
    const { privateKey, publicKey } = await generateSigningKeyPair();
    const raw = new Uint8Array(await crypto.subtle.exportKey('raw', publicKey));
    for (let i = 0; i < 8; i++) {
      const message = utf8Encode(`message ${i}`);
      const signature = base64urlDecode(await signBytes(privateKey, message));
      expect(p256.verify(signature, message, raw, { lowS: true })).toBe(true);
    }
  });

  it('gives WebCrypto’s answer on Node, where it verifies with node:crypto', async () => {
    const { privateKey, publicKey } = await generateSigningKeyPair();
    const message = utf8Encode('the same answer');
    const valid = base64urlDecode(await signBytes(privateKey, message));
    const order = p256.Point.Fn.ORDER;
    const highS = new Uint8Array(valid);
    const s = BigInt(`0x${Buffer.from(valid.subarray(32)).toString('hex')}`);
    highS.set(Buffer.from((order - s).toString(16).padStart(64, '0'), 'hex'), 32);
    const tampered = new Uint8Array(valid);
    tampered[40] = (tampered[40] ?? 0) ^ 0x80;
    const rIsOrder = new Uint8Array(valid);
    rIsOrder.set(Buffer.from(order.toString(16).padStart(64, '0'), 'hex'), 0);
    const cases = [
      valid,
      highS,
      tampered,
      rIsOrder,
      new Uint8Array(64),
      new Uint8Array(64).fill(0xff),
    ];
    const answers = await Promise.all(
      cases.map(async (signature) => ({
        ours: await verifyBytes(publicKey, message, base64urlEncode(signature)),
        webCrypto: await crypto.subtle.verify(
          { name: 'ECDSA', hash: 'SHA-256' },
          publicKey,
          new Uint8Array(signature),
          new Uint8Array(message),
        ),
      })),
    );
    expect(answers.map((a) => a.ours)).toEqual(answers.map((a) => a.webCrypto));
    expect(answers.map((a) => a.ours)).toEqual([true, true, false, false, false, false]);
  });

  it('accepts base64url with padding from other implementations', async () => {
    const { privateKey, publicKey } = await generateSigningKeyPair();
    const signature = await signBytes(privateKey, 'x');
    expect(await verifyBytes(publicKey, 'x', `${signature}==`)).toBe(true);
  });
});

describe('sha256Base64url', () => {
  it('matches the known digest of "abc" and of the empty string', async () => {
    expect(await sha256Base64url('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(await sha256Base64url(new Uint8Array())).toBe(
      '47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU',
    );
  });
});

describe('PEM', () => {
  it('exports SPKI and PKCS#8 PEM and imports them back', async () => {
    const { privateKey, publicKey } = await generateSigningKeyPair(true);
    const publicPem = await exportPublicKeyPem(publicKey);
    expect(publicPem).toMatch(
      /^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+\n-----END PUBLIC KEY-----\n$/,
    );
    const privatePem = await exportPrivateKeyPkcs8Pem(privateKey);
    expect(privatePem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);

    const importedPublic = unwrap(await importPublicKeyPem(publicPem));
    const importedPrivate = unwrap(await importPrivateKeyPem(privatePem, true));
    const signature = await signBytes(importedPrivate, 'persisted');
    expect(await verifyBytes(importedPublic, 'persisted', signature)).toBe(true);
    expect(await jwkOf(await publicKeyFromPrivateKey(importedPrivate))).toEqual(
      await jwkOf(publicKey),
    );
  });

  it('tolerates CRLF and doubly escaped newlines', async () => {
    const { publicKey } = await generateSigningKeyPair();
    const pem = await exportPublicKeyPem(publicKey);
    expect((await importPublicKeyPem(pem.replace(/\n/g, '\r\n'))).ok).toBe(true);
    expect((await importPublicKeyPem(pem.replace(/\n/g, '\\n'))).ok).toBe(true);
  });

  it('rejects junk with a reason', async () => {
    const { privateKey } = await generateSigningKeyPair(true);
    const privatePem = await exportPrivateKeyPkcs8Pem(privateKey);
    for (const junk of [
      '',
      'hello',
      '-----BEGIN PUBLIC KEY-----\n!!!\n-----END PUBLIC KEY-----',
      '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----',
      privatePem,
    ]) {
      const imported = await importPublicKeyPem(junk);
      expect(imported.ok).toBe(false);
      if (!imported.ok) expect(imported.reason.length).toBeGreaterThan(0);
    }
    expect(
      (
        await importPrivateKeyPem(
          await exportPublicKeyPem((await generateSigningKeyPair()).publicKey),
        )
      ).ok,
    ).toBe(false);
  });
});

describe('did:key (P-256)', () => {
  it('decodes published P-256 did:key examples to their known coordinates', async () => {
    // W3C did:key test vectors (JsonWebKey2020 form of the same keys).
    const vectors = [
      {
        did: 'did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169',
        x: 'fyNYMN0976ci7xqiSdag3buk-ZCwgXU4kz9XNkBlNUI',
        y: 'hW2ojTNfH7Jbi8--CJUo3OCbH3y5n91g-IMA9MLMbTU',
      },
      {
        did: 'did:key:zDnaerx9CtbPJ1q36T5Ln5wYt3MQYeGRG5ehnPAmxcf5mDZpv',
        x: 'igrFmi0whuihKnj9R3Om1SoMph72wUGeFaBbzG2vzns',
        y: 'efsX5b10x8yjyrj4ny3pGfLcY7Xby1KzgqOdqnsrJIM',
      },
    ];
    for (const { did, x, y } of vectors) {
      const key = unwrap(await didKeyToPublicKey(did));
      expect(key.type).toBe('public');
      expect(key.usages).toEqual(['verify']);
      expect(await jwkOf(key)).toEqual({ x, y });
      expect(await publicKeyToDidKey(key)).toBe(did);
      expect(unwrap(await didKeyToPublicKey(`${did}#${did.slice(8)}`)).type).toBe('public');
    }
  });

  it('derives the did of a fixed key (known answer, checked against noble)', async () => {
    const secret = new Uint8Array(32).fill(7);
    const expected = didKeyFromCompressedPoint(p256.getPublicKey(secret, true));
    const uncompressed = p256.getPublicKey(secret, false);
    const key = await crypto.subtle.importKey(
      'raw',
      uncompressed,
      { name: 'ECDSA', namedCurve: 'P-256' },
      true,
      ['verify'],
    );
    const did = await publicKeyToDidKey(key);
    expect(did).toBe(expected);
    expect(did).toBe('did:key:zDnaejgmAHMLkBPMBWnkBxyGxpXx8LgE4WJAYDhwZzyoRAddF');
    expect(did.startsWith('did:key:zDn')).toBe(true);
  });

  it('round-trips generated keys and verifies through the decoded key', async () => {
    const { privateKey, publicKey } = await generateSigningKeyPair();
    const did = await publicKeyToDidKey(publicKey);
    expect(did).toMatch(/^did:key:zDn[1-9A-HJ-NP-Za-km-z]+$/);
    const decoded = unwrap(await didKeyToPublicKey(did));
    expect(await verifyBytes(decoded, 'x', await signBytes(privateKey, 'x'))).toBe(true);
  });

  it.each([
    ['did:web:example.com', /did:key/],
    ['did:key:', /multicodec|base58/],
    ['did:key:z0OIl', /base58/],
    ['did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', /P-256/], // Ed25519
    ['did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme', /P-256/], // secp256k1
    [didKeyFromCompressedPoint(new Uint8Array(32)), /33-byte/], // one byte short
  ])('rejects %s', async (did, reason) => {
    const parsed = parseDidKey(did);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
    expect((await didKeyToPublicKey(did)).ok).toBe(false);
  });

  it('rejects a compressed point that is not on the curve', () => {
    const bogus = new Uint8Array(33).fill(0xff);
    bogus[0] = 0x02;
    const parsed = parseDidKey(didKeyFromCompressedPoint(bogus));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(/curve/);
  });
});
