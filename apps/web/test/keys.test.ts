import {
  base64urlDecode,
  base64urlEncode,
  didKeyToPublicKey,
  importPublicKeyPem,
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
} from '../src/lib/keys/key-backup.ts';
import { createMemoryKeyStore } from '../src/lib/keys/key-store.ts';
import {
  MISSING_KEY_MESSAGE,
  MissingKeyError,
  STALE_KEY_MESSAGE,
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
      version: 1,
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
      edit(encryptedBackup, (j) => (j.version = 2)),
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
