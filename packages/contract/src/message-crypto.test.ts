import { describe, expect, it } from 'vitest';
import { generateSigningKeyPair, publicKeyToDidKey } from './crypto.ts';
import { base64urlDecode, base64urlEncode } from './encoding.ts';
import {
  checkMessageText,
  encryptionKeyId,
  exportEncryptionPrivateKey,
  exportEncryptionPublicKey,
  generateEncryptionKeyPair,
  importEncryptionPrivateKey,
  importEncryptionPublicKey,
  openMessage,
  sealMessage,
  signEncryptionKey,
  signReceipt,
  verifyEncryptionKey,
  verifyEnvelopeSignature,
  verifyReceipt,
} from './message-crypto.ts';
import type { MessageEnvelope } from './message-schemas.ts';
import { messageEnvelopeSchema, messageReceiptSchema } from './message-schemas.ts';
import { signUserAction } from './signing.ts';

async function makeUser(address: string) {
  const signing = await generateSigningKeyPair();
  const encryption = await generateEncryptionKeyPair();
  return {
    address,
    did: await publicKeyToDidKey(signing.publicKey),
    signingKey: signing.privateKey,
    encryption,
    publicKey: await exportEncryptionPublicKey(encryption.publicKey),
  };
}
type User = Awaited<ReturnType<typeof makeUser>>;

const alice = await makeUser('alice@a.example');
const bob = await makeUser('bob@b.example:8443');

async function seal(from: User, to: User, text = 'hello bob, secret 42') {
  return sealMessage({
    sender: from.address,
    senderDid: from.did,
    recipient: to.address,
    text,
    recipientPublicKey: to.publicKey,
    senderPublicKey: from.publicKey,
    signingKey: from.signingKey,
  });
}

function open(envelope: unknown, reader: User) {
  return openMessage({
    envelope,
    reader: reader.address,
    privateKey: reader.encryption.privateKey,
    publicKey: reader.publicKey,
  });
}

/** Flips one bit in the middle of a base64url value, keeping it valid base64url of the same length. */
function flip(b64: string): string {
  const bytes = base64urlDecode(b64);
  const i = Math.floor(bytes.length / 2);
  bytes[i] = (bytes[i] ?? 0) ^ 0x01;
  return base64urlEncode(bytes);
}

describe('encryption keys', () => {
  it('exports 65-byte raw points, round-trips and has a 32-byte key id', async () => {
    expect(base64urlDecode(alice.publicKey)).toHaveLength(65);
    expect((await importEncryptionPublicKey(alice.publicKey)).ok).toBe(true);
    expect(base64urlDecode(await encryptionKeyId(alice.publicKey))).toHaveLength(32);
    expect(await encryptionKeyId(alice.publicKey)).not.toBe(await encryptionKeyId(bob.publicKey));
  });

  it('refuses junk and off-curve points', async () => {
    expect((await importEncryptionPublicKey('not base64!')).ok).toBe(false);
    expect((await importEncryptionPublicKey(base64urlEncode(new Uint8Array(33)))).ok).toBe(false);
    const offCurve = new Uint8Array(65);
    offCurve[0] = 4;
    offCurve[64] = 1;
    expect((await importEncryptionPublicKey(base64urlEncode(offCurve))).ok).toBe(false);
  });

  it('private keys survive the backup export/import', async () => {
    const pair = await generateEncryptionKeyPair(true);
    const restored = await importEncryptionPrivateKey(
      await exportEncryptionPrivateKey(pair.privateKey),
    );
    expect(restored.ok).toBe(true);
    const publicKey = await exportEncryptionPublicKey(pair.publicKey);
    const envelope = await sealMessage({
      sender: alice.address,
      senderDid: alice.did,
      recipient: 'carol@c.example',
      text: 'backup',
      recipientPublicKey: publicKey,
      senderPublicKey: alice.publicKey,
      signingKey: alice.signingKey,
    });
    const opened = await openMessage({
      envelope,
      reader: 'carol@c.example',
      privateKey: restored.ok ? restored.value : alice.encryption.privateKey,
      publicKey,
    });
    expect(opened.ok && opened.value.text).toBe('backup');
  });

  it('binding verifies under the did; a forged or altered binding does not', async () => {
    const createdAt = '2026-11-23T15:00:00.000Z';
    const signature = await signEncryptionKey({
      signingKey: alice.signingKey,
      address: alice.address,
      did: alice.did,
      publicKey: alice.publicKey,
      createdAt,
    });
    const binding = { publicKey: alice.publicKey, createdAt, signature };
    const check = (over: Partial<{ address: string; did: string }>, key = binding) =>
      verifyEncryptionKey({ address: alice.address, did: alice.did, ...over, encryptionKey: key });
    expect(await check({})).toBe(true);
    // A node swapping in its own key (signed by someone else) is detected.
    const forged = await signEncryptionKey({
      signingKey: bob.signingKey,
      address: alice.address,
      did: alice.did,
      publicKey: bob.publicKey,
      createdAt,
    });
    expect(await check({}, { publicKey: bob.publicKey, createdAt, signature: forged })).toBe(false);
    expect(await check({}, { ...binding, publicKey: bob.publicKey })).toBe(false);
    expect(await check({}, { ...binding, createdAt: '2026-11-23T15:00:01.000Z' })).toBe(false);
    expect(await check({ did: bob.did })).toBe(false);
    expect(await check({ address: 'alice@evil.example' })).toBe(false);
    expect(await check({ did: 'did:key:junk' })).toBe(false);
  });
});

describe('sealMessage / openMessage', () => {
  it('round trip: the recipient and the sender can read, the envelope has the wire shape', async () => {
    const envelope = await seal(alice, bob);
    expect(messageEnvelopeSchema.safeParse(envelope).success).toBe(true);
    expect(JSON.stringify(envelope)).not.toContain('secret 42');
    expect(envelope.keys.map((k) => k.for)).toEqual([bob.address, alice.address]);
    expect(await verifyEnvelopeSignature(envelope)).toBe(true);
    const forBob = await open(envelope, bob);
    expect(forBob.ok && forBob.value.text).toBe('hello bob, secret 42');
    const forAlice = await open(envelope, alice);
    expect(forAlice.ok && forAlice.value.text).toBe('hello bob, secret 42');
  });

  it('keeps non-ASCII text and the maximum length', async () => {
    const text = `Grüße 🐝 ${'x'.repeat(4990)}`.slice(0, 5000);
    const opened = await open(await seal(alice, bob, text), bob);
    expect(opened.ok && opened.value.text).toBe(text);
  });

  it('refuses empty and over-long text when sealing', async () => {
    await expect(seal(alice, bob, '   ')).rejects.toThrow(/empty/);
    await expect(seal(alice, bob, 'x'.repeat(5001))).rejects.toThrow(/longer than 5000/);
    expect(checkMessageText('ok').ok).toBe(true);
  });

  it('a third party (wrong private key) cannot read it', async () => {
    const envelope = await seal(alice, bob);
    const eve = await makeUser('eve@e.example');
    expect(
      (
        await openMessage({
          envelope,
          reader: bob.address,
          privateKey: eve.encryption.privateKey,
          publicKey: bob.publicKey,
        })
      ).ok,
    ).toBe(false);
    expect((await open(envelope, eve)).ok).toBe(false);
  });

  it('a swapped recipient key (entry for another key) is not opened with the real key', async () => {
    const eve = await makeUser('eve@e.example');
    // A node served eve's key as bob's: bob's real key finds no entry.
    const envelope = await sealMessage({
      sender: alice.address,
      senderDid: alice.did,
      recipient: bob.address,
      text: 'for bob',
      recipientPublicKey: eve.publicKey,
      senderPublicKey: alice.publicKey,
      signingKey: alice.signingKey,
    });
    const opened = await open(envelope, bob);
    expect(opened.ok).toBe(false);
  });

  const tampers: [string, (e: MessageEnvelope) => MessageEnvelope][] = [
    ['id', (e) => ({ ...e, id: globalThis.crypto.randomUUID() })],
    [
      'sender',
      (e) => ({
        ...e,
        sender: 'mallory@a.example',
        keys: e.keys.map((k) => (k.for === e.sender ? { ...k, for: 'mallory@a.example' } : k)),
      }),
    ],
    ['senderDid', (e) => ({ ...e, senderDid: bob.did })],
    [
      'recipient',
      (e) => ({
        ...e,
        recipient: 'bob@b.example',
        keys: e.keys.map((k) => (k.for === e.recipient ? { ...k, for: 'bob@b.example' } : k)),
      }),
    ],
    ['createdAt', (e) => ({ ...e, createdAt: '2026-01-01T00:00:00.000Z' })],
    ['iv', (e) => ({ ...e, iv: flip(e.iv) })],
    ['ciphertext', (e) => ({ ...e, ciphertext: flip(e.ciphertext) })],
    [
      'keys.wrappedKey',
      (e) => ({ ...e, keys: e.keys.map((k) => ({ ...k, wrappedKey: flip(k.wrappedKey) })) }),
    ],
    [
      'keys.ephemeralKey',
      (e) => ({ ...e, keys: e.keys.map((k) => ({ ...k, ephemeralKey: alice.publicKey })) }),
    ],
    ['keys.keyId', (e) => ({ ...e, keys: e.keys.map((k) => ({ ...k, keyId: flip(k.keyId) })) })],
    ['signature', (e) => ({ ...e, signature: flip(e.signature) })],
    ['extra member', (e) => ({ ...e, extra: 1 }) as MessageEnvelope],
  ];

  it.each(tampers)('tampering with %s is refused (signature and decryption)', async (_, tamper) => {
    const envelope = tamper(await seal(alice, bob));
    expect(await verifyEnvelopeSignature(envelope)).toBe(false);
    expect((await open(envelope, bob)).ok).toBe(false);
    expect((await open(envelope, alice)).ok).toBe(false);
  });

  it('ciphertext tampering re-signed by the sender still fails to decrypt', async () => {
    const envelope = await seal(alice, bob);
    const { signature: _s, ...unsigned } = envelope;
    const altered = { ...unsigned, ciphertext: flip(unsigned.ciphertext) };
    const signature = await signUserAction({
      privateKey: alice.signingKey,
      action: 'message',
      targetDomain: 'b.example:8443',
      body: altered,
    });
    const resigned = { ...altered, signature };
    expect(await verifyEnvelopeSignature(resigned)).toBe(true);
    expect((await open(resigned, bob)).ok).toBe(false);
  });

  it('a forged signature (someone else signs under the sender did) is refused', async () => {
    const envelope = await seal(alice, bob);
    const { signature: _s, ...unsigned } = envelope;
    const signature = await signUserAction({
      privateKey: bob.signingKey,
      action: 'message',
      targetDomain: 'b.example:8443',
      body: unsigned,
    });
    expect(await verifyEnvelopeSignature({ ...unsigned, signature })).toBe(false);
  });

  it('the schema refuses non-canonical members', () => {
    const base = {
      id: '0b8f5c9e-8f6a-4d3b-9c1e-2a7b6c5d4e3f',
      sender: 'alice@a.example',
      senderDid: alice.did,
      recipient: 'bob@b.example',
      createdAt: '2026-11-23T15:00:00.000Z',
      iv: 'AAAAAAAAAAAAAAAA',
      ciphertext: 'AAAA',
      keys: [
        {
          for: 'bob@b.example',
          keyId: 'A'.repeat(43),
          ephemeralKey: 'A'.repeat(87),
          wrappedKey: 'A'.repeat(54),
        },
        {
          for: 'alice@a.example',
          keyId: 'A'.repeat(43),
          ephemeralKey: 'A'.repeat(87),
          wrappedKey: 'A'.repeat(54),
        },
      ],
      signature: 'sig',
    };
    const ok = (v: unknown) => messageEnvelopeSchema.safeParse(v).success;
    expect(ok(base)).toBe(true);
    expect(ok({ ...base, recipient: 'bob@B.example' })).toBe(false);
    expect(ok({ ...base, createdAt: '2026-11-23T15:00:00Z' })).toBe(false);
    expect(ok({ ...base, id: base.id.toUpperCase() })).toBe(false);
    expect(ok({ ...base, recipient: base.sender })).toBe(false);
    expect(ok({ ...base, keys: [base.keys[0], base.keys[0]] })).toBe(false);
    expect(ok({ ...base, keys: [...base.keys, { ...base.keys[0], for: 'eve@e.example' }] })).toBe(
      false,
    );
    expect(ok({ ...base, ciphertext: 'A'.repeat(28_001) })).toBe(false);
  });
});

describe('receipts', () => {
  it('are signed by the recipient and verify; any change breaks them', async () => {
    const envelope = await seal(alice, bob);
    const receipt = await signReceipt({
      signingKey: bob.signingKey,
      messageId: envelope.id,
      status: 'delivered',
      sender: alice.address,
      recipient: bob.address,
      recipientDid: bob.did,
    });
    expect(messageReceiptSchema.safeParse(receipt).success).toBe(true);
    expect(await verifyReceipt(receipt)).toBe(true);
    expect(await verifyReceipt({ ...receipt, status: 'read' })).toBe(false);
    expect(await verifyReceipt({ ...receipt, recipientDid: alice.did })).toBe(false);
    expect(await verifyReceipt({ ...receipt, messageId: globalThis.crypto.randomUUID() })).toBe(
      false,
    );
    const byAlice = await signReceipt({
      signingKey: alice.signingKey,
      messageId: envelope.id,
      status: 'read',
      sender: alice.address,
      recipient: bob.address,
      recipientDid: bob.did,
    });
    expect(await verifyReceipt(byAlice)).toBe(false);
  });
});

describe('profile encryptionKey', () => {
  it('keeps a well-formed key, reads a malformed one as absent', async () => {
    const { profileSchema } = await import('./content-schemas.ts');
    const base = { handle: 'bob', createdAt: '2026-11-23T15:00:00.000Z', nodeDomain: 'b.example' };
    const key = { publicKey: bob.publicKey, createdAt: '2026-11-23T15:00:00.000Z', signature: 's' };
    expect(profileSchema.parse({ ...base, encryptionKey: key }).encryptionKey).toEqual(key);
    expect(
      profileSchema.parse({ ...base, encryptionKey: { ...key, publicKey: 'x' } }).encryptionKey,
    ).toBeUndefined();
    expect(profileSchema.parse(base).encryptionKey).toBeUndefined();
  });
});
