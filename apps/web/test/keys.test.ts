import {
  base64urlDecode,
  base64urlEncode,
  didKeyToPublicKey,
  generateSigningKeyPair,
  importPublicKeyPem,
  openMessage,
  sealMessage,
  publicKeyToDidKey,
  signBytes,
  verifyBytes,
  verifyUserAction,
} from '@swarm/contract';
import { describe, expect, it } from 'vitest';
import {
  PBKDF2_ITERATIONS,
  WRONG_PASSWORD_OR_TAMPERED,
  decryptKeyBackup,
  encryptKeyBackup,
} from '../src/lib/keys/key-backup.ts';
import type { EncryptionKeyPair } from '../src/lib/keys/encryption-key.ts';
import { createMemoryKeyStore } from '../src/lib/keys/key-store.ts';
import {
  MISSING_KEY_MESSAGE,
  MissingKeyError,
  STALE_KEY_MESSAGE,
  addEncryptionKey,
  createUserKey,
  reencryptKeyBackup,
  restoreUserKey,
  signPreparedWith,
} from '../src/lib/keys/user-key.ts';

// The browser key code is plain WebCrypto, which Node has too; IndexedDB is behind KeyStore.
// Most tests use fewer PBKDF2 rounds to stay quick; the first two run the real count.
const FAST = { iterations: 1_000 };

function unwrap<T>(result: { ok: true; value: T } | { ok: false; reason: string }): T {
  if (!result.ok) throw new Error(result.reason);
  return result.value;
}

/** The backup's JSON, loosely typed so tests can write wrong values into it. */
interface BackupJson {
  version: number;
  did: string;
  kdf: { name: string; hash: string; iterations: number; salt: string };
  cipher: { name: string; iv: string };
  ciphertext: string;
}

function edit(backup: string, change: (json: BackupJson) => void): string {
  const json = JSON.parse(backup) as BackupJson;
  change(json);
  return JSON.stringify(json);
}

function flipFirstByte(b64url: string): string {
  const bytes = base64urlDecode(b64url);
  bytes[0] = (bytes[0] ?? 0) ^ 0x01;
  return base64urlEncode(bytes);
}

async function signsFor(privateKey: CryptoKey, did: string): Promise<boolean> {
  const publicKey = unwrap(await didKeyToPublicKey(did));
  return verifyBytes(publicKey, 'hello', await signBytes(privateKey, 'hello'));
}

describe('creating a user key', () => {
  it('gives a non-extractable key, its did:key and PEM, and a PBKDF2 600k backup', async () => {
    const key = await createUserKey('correct horse battery');

    expect(key.did).toMatch(/^did:key:zDn[1-9A-HJ-NP-Za-km-z]+$/);
    const publicKey = unwrap(await importPublicKeyPem(key.publicKey));
    expect(await publicKeyToDidKey(publicKey)).toBe(key.did);
    expect(await signsFor(key.privateKey, key.did)).toBe(true);
    expect(key.privateKey.extractable).toBe(false);
    await expect(crypto.subtle.exportKey('pkcs8', key.privateKey)).rejects.toThrow();

    const backup = JSON.parse(key.encryptedBackup);
    expect(backup).toMatchObject({
      version: 2,
      did: key.did,
      kdf: { name: 'PBKDF2', hash: 'SHA-256', iterations: PBKDF2_ITERATIONS },
      cipher: { name: 'AES-GCM' },
    });
    expect(PBKDF2_ITERATIONS).toBeGreaterThanOrEqual(600_000);
    expect(base64urlDecode(backup.kdf.salt)).toHaveLength(16);
    expect(base64urlDecode(backup.cipher.iv)).toHaveLength(12);
    // The backup does not carry the key in clear: PKCS#8 + 16-byte GCM tag, and random.
    expect(base64urlDecode(backup.ciphertext).length).toBeGreaterThan(100);
    expect(key.encryptedBackup).not.toContain('PRIVATE KEY');

    const restored = unwrap(await restoreUserKey(key.encryptedBackup, 'correct horse battery'));
    expect(restored.did).toBe(key.did);
    expect(restored.privateKey.extractable).toBe(false);
    expect(await signsFor(restored.privateKey, key.did)).toBe(true);
  });

  it('salts every backup, so the same password gives different ciphertexts', async () => {
    const a = JSON.parse((await createUserKey('same password!', FAST)).encryptedBackup);
    const b = JSON.parse((await createUserKey('same password!', FAST)).encryptedBackup);
    expect(a.kdf.salt).not.toBe(b.kdf.salt);
    expect(a.cipher.iv).not.toBe(b.cipher.iv);
  });
});

describe('restoring a key from its backup', () => {
  it('round-trips and checks the did the account expects', async () => {
    const key = await createUserKey('hunter2hunter2', FAST);
    const restored = unwrap(await restoreUserKey(key.encryptedBackup, 'hunter2hunter2', key.did));
    expect(await signsFor(restored.privateKey, key.did)).toBe(true);

    const other = await createUserKey('hunter2hunter2', FAST);
    const mismatch = await restoreUserKey(key.encryptedBackup, 'hunter2hunter2', other.did);
    expect(mismatch).toEqual({ ok: false, reason: expect.stringMatching(/different key/) });
  });

  it('fails with a clear message on a wrong password', async () => {
    const key = await createUserKey('the right one', FAST);
    expect(await restoreUserKey(key.encryptedBackup, 'the wrong one')).toEqual({
      ok: false,
      reason: WRONG_PASSWORD_OR_TAMPERED,
    });
  });

  it('fails on tampered ciphertext, iv, salt, iterations or owner', async () => {
    const { encryptedBackup } = await createUserKey('pw pw pw pw', FAST);
    const other = await createUserKey('pw pw pw pw', FAST);
    const tampered = [
      edit(encryptedBackup, (j) => (j.ciphertext = flipFirstByte(j.ciphertext))),
      edit(encryptedBackup, (j) => (j.cipher.iv = flipFirstByte(j.cipher.iv))),
      edit(encryptedBackup, (j) => (j.kdf.salt = flipFirstByte(j.kdf.salt))),
      edit(encryptedBackup, (j) => (j.kdf.iterations = 1_001)),
      // Someone else's did on this ciphertext: the did is bound in as additional data.
      edit(encryptedBackup, (j) => (j.did = other.did)),
    ];
    for (const backup of tampered) {
      expect(await restoreUserKey(backup, 'pw pw pw pw')).toEqual({
        ok: false,
        reason: WRONG_PASSWORD_OR_TAMPERED,
      });
    }
  });

  it('rejects backups that are not backups, without trying them', async () => {
    const { encryptedBackup } = await createUserKey('pw pw pw pw', FAST);
    const damaged = [
      'not json',
      '{}',
      edit(encryptedBackup, (j) => (j.version = 3)),
      edit(encryptedBackup, (j) => (j.kdf.name = 'scrypt')),
      // A hostile iteration count would freeze the tab: refused before deriving anything.
      edit(encryptedBackup, (j) => (j.kdf.iterations = 1e12)),
      edit(encryptedBackup, (j) => (j.ciphertext = 'not base64url!')),
    ];
    for (const backup of damaged) {
      const result = await decryptKeyBackup(backup, 'pw pw pw pw');
      expect(result).toEqual({ ok: false, reason: expect.stringMatching(/damaged/) });
    }
  });
});

describe('changing the password', () => {
  it('re-encrypts the same key: the new password opens it, the old one no longer does', async () => {
    const key = await createUserKey('old password', FAST);
    const renewed = unwrap(
      await reencryptKeyBackup({
        encryptedBackup: key.encryptedBackup,
        currentPassword: 'old password',
        newPassword: 'new password',
        ...FAST,
      }),
    );
    expect(JSON.parse(renewed).kdf.salt).not.toBe(JSON.parse(key.encryptedBackup).kdf.salt);
    expect((await restoreUserKey(renewed, 'old password')).ok).toBe(false);
    const restored = unwrap(await restoreUserKey(renewed, 'new password', key.did));
    expect(await signsFor(restored.privateKey, key.did)).toBe(true);
  });

  it('needs the current password', async () => {
    const key = await createUserKey('old password', FAST);
    const result = await reencryptKeyBackup({
      encryptedBackup: key.encryptedBackup,
      currentPassword: 'not it',
      newPassword: 'new password',
    });
    expect(result).toEqual({ ok: false, reason: WRONG_PASSWORD_OR_TAMPERED });
  });
});

describe('signing a prepared action', () => {
  const prepared = {
    action: 'like' as const,
    targetDomain: 'beta.example',
    body: {
      postId: 'p1',
      actorHandle: 'alice',
      actorNodeDomain: 'alpha.example',
      interactionId: 'i1',
      timestamp: '2026-01-01T00:00:00.000Z',
    },
  };

  it('signs with the stored key so the receiving node can verify it against the did', async () => {
    const store = createMemoryKeyStore();
    const key = await createUserKey('pw pw pw pw', FAST);
    await store.set('alice', { did: key.did, privateKey: key.privateKey });

    const signed = await signPreparedWith(store, { handle: 'Alice', did: key.did }, prepared);
    expect(signed.body).toEqual(prepared.body);
    const publicKey = unwrap(await didKeyToPublicKey(key.did));
    const verify = (body: Record<string, unknown>, targetDomain = prepared.targetDomain) =>
      verifyUserAction({
        publicKey,
        action: 'like',
        targetDomain,
        body: { ...body, signature: signed.signature },
      });
    expect(await verify(signed.body)).toBe(true);
    expect(await verify({ ...signed.body, postId: 'p2' })).toBe(false);
    expect(await verify(signed.body, 'gamma.example')).toBe(false);
  });

  it('says so when this browser has no key, or a stale one', async () => {
    const store = createMemoryKeyStore();
    await expect(signPreparedWith(store, { handle: 'alice' }, prepared)).rejects.toThrow(
      new MissingKeyError(MISSING_KEY_MESSAGE),
    );
    const old = await createUserKey('pw pw pw pw', FAST);
    const current = await createUserKey('pw pw pw pw', FAST);
    await store.set('alice', { did: old.did, privateKey: old.privateKey });
    await expect(
      signPreparedWith(store, { handle: 'alice', did: current.did }, prepared),
    ).rejects.toThrow(STALE_KEY_MESSAGE);
    await store.delete('alice');
    expect(await store.get('alice')).toBeUndefined();
  });
});

/** A message sealed to `key` by a stranger, opened with `key`'s private half. */
async function opensMessagesFor(key: EncryptionKeyPair, other = key): Promise<boolean> {
  const sender = await generateSigningKeyPair();
  const envelope = await sealMessage({
    sender: 'carol@c.example',
    senderDid: await publicKeyToDidKey(sender.publicKey),
    recipient: 'alice@a.example',
    text: 'hello alice',
    recipientPublicKey: key.publicKey,
    senderPublicKey: key.publicKey,
    signingKey: sender.privateKey,
  });
  const opened = await openMessage({
    envelope,
    reader: 'alice@a.example',
    privateKey: other.privateKey,
    publicKey: other.publicKey,
  });
  return opened.ok && opened.value.text === 'hello alice';
}

/** A version 1 backup as browsers made them before direct messages (signing key only). */
async function v1Backup(password: string): Promise<{ encryptedBackup: string; did: string }> {
  const pair = await generateSigningKeyPair(true);
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey('pkcs8', pair.privateKey));
  const did = await publicKeyToDidKey(pair.publicKey);
  return { did, encryptedBackup: await encryptKeyBackup({ pkcs8, did, password, ...FAST }) };
}

describe('the encryption key (direct messages) and key backup version 2', () => {
  it('is made with the signing key, non-extractable, and restored from the backup', async () => {
    const key = await createUserKey('pw pw pw pw', FAST);
    expect(key.encryption.privateKey.extractable).toBe(false);
    expect(key.encryption.privateKey.algorithm).toMatchObject({
      name: 'ECDH',
      namedCurve: 'P-256',
    });
    expect(base64urlDecode(key.encryption.publicKey)).toHaveLength(65);
    expect(await opensMessagesFor(key.encryption)).toBe(true);

    const backup = JSON.parse(key.encryptedBackup) as BackupJson;
    expect(backup.version).toBe(2);
    const decrypted = unwrap(await decryptKeyBackup(key.encryptedBackup, 'pw pw pw pw'));
    expect(decrypted.version).toBe(2);
    expect(decrypted.encryptionPkcs8?.length).toBeGreaterThan(100);

    const restored = unwrap(await restoreUserKey(key.encryptedBackup, 'pw pw pw pw', key.did));
    expect(await signsFor(restored.privateKey, key.did)).toBe(true);
    expect(restored.encryption?.publicKey).toBe(key.encryption.publicKey);
    expect(restored.encryption?.privateKey.extractable).toBe(false);
    // Same key: a message sealed to the new key opens with the restored one.
    expect(await opensMessagesFor(key.encryption, restored.encryption!)).toBe(true);
  });

  it('still restores version 1 backups (signing key only)', async () => {
    const old = await v1Backup('pw pw pw pw');
    expect(JSON.parse(old.encryptedBackup).version).toBe(1);
    const restored = unwrap(await restoreUserKey(old.encryptedBackup, 'pw pw pw pw', old.did));
    expect(await signsFor(restored.privateKey, old.did)).toBe(true);
    expect(restored.encryption).toBeNull();
  });

  it('binds the version: a v2 backup relabelled v1 (or the reverse) does not open', async () => {
    const key = await createUserKey('pw pw pw pw', FAST);
    const old = await v1Backup('pw pw pw pw');
    for (const backup of [
      edit(key.encryptedBackup, (j) => (j.version = 1)),
      edit(old.encryptedBackup, (j) => (j.version = 2)),
    ]) {
      expect(await restoreUserKey(backup, 'pw pw pw pw')).toEqual({
        ok: false,
        reason: WRONG_PASSWORD_OR_TAMPERED,
      });
    }
  });

  it('keeps the encryption key through a password change', async () => {
    const key = await createUserKey('old password', FAST);
    const renewed = unwrap(
      await reencryptKeyBackup({
        encryptedBackup: key.encryptedBackup,
        currentPassword: 'old password',
        newPassword: 'new password',
        ...FAST,
      }),
    );
    expect(JSON.parse(renewed).version).toBe(2);
    const restored = unwrap(await restoreUserKey(renewed, 'new password', key.did));
    expect(await opensMessagesFor(key.encryption, restored.encryption!)).toBe(true);

    // A version 1 backup stays version 1.
    const old = await v1Backup('old password');
    const renewedOld = unwrap(
      await reencryptKeyBackup({
        encryptedBackup: old.encryptedBackup,
        currentPassword: 'old password',
        newPassword: 'new password',
        ...FAST,
      }),
    );
    expect(JSON.parse(renewedOld).version).toBe(1);
    expect((await restoreUserKey(renewedOld, 'new password', old.did)).ok).toBe(true);
  });

  it('adds a new encryption key to a version 1 backup on first use, keeping the signing key', async () => {
    const old = await v1Backup('pw pw pw pw');
    const added = unwrap(
      await addEncryptionKey({
        encryptedBackup: old.encryptedBackup,
        password: 'pw pw pw pw',
        expectedDid: old.did,
        ...FAST,
      }),
    );
    expect(added.did).toBe(old.did);
    expect(await signsFor(added.signing, old.did)).toBe(true);
    expect(added.encryption.privateKey.extractable).toBe(false);
    expect(JSON.parse(added.encryptedBackup)).toMatchObject({ version: 2, did: old.did });
    const restored = unwrap(await restoreUserKey(added.encryptedBackup, 'pw pw pw pw', old.did));
    expect(await signsFor(restored.privateKey, old.did)).toBe(true);
    expect(await opensMessagesFor(added.encryption, restored.encryption!)).toBe(true);
  });

  it('keeps the key a version 2 backup already has, and needs the right password and did', async () => {
    const key = await createUserKey('pw pw pw pw', FAST);
    const again = unwrap(
      await addEncryptionKey({
        encryptedBackup: key.encryptedBackup,
        password: 'pw pw pw pw',
        expectedDid: key.did,
      }),
    );
    expect(again.encryptedBackup).toBe(key.encryptedBackup);
    expect(again.encryption.publicKey).toBe(key.encryption.publicKey);

    expect(
      await addEncryptionKey({
        encryptedBackup: key.encryptedBackup,
        password: 'wrong password',
        expectedDid: key.did,
      }),
    ).toEqual({ ok: false, reason: WRONG_PASSWORD_OR_TAMPERED });
    const other = await createUserKey('pw pw pw pw', FAST);
    expect(
      await addEncryptionKey({
        encryptedBackup: key.encryptedBackup,
        password: 'pw pw pw pw',
        expectedDid: other.did,
      }),
    ).toEqual({ ok: false, reason: expect.stringMatching(/different key/) });
  });

  it('says a backup whose encryption key is not a key is damaged', async () => {
    const pair = await generateSigningKeyPair(true);
    const pkcs8 = new Uint8Array(await crypto.subtle.exportKey('pkcs8', pair.privateKey));
    const did = await publicKeyToDidKey(pair.publicKey);
    // A v2 backup whose "encryption" member is not a key at all.
    const wrongKind = await encryptKeyBackup({
      pkcs8,
      encryptionPkcs8: new Uint8Array(64).fill(7),
      did,
      password: 'pw pw pw pw',
      ...FAST,
    });
    expect(await restoreUserKey(wrongKind, 'pw pw pw pw', did)).toEqual({
      ok: false,
      reason: expect.stringMatching(/encryption key/),
    });
  });
});
