import {
  err,
  exportPublicKeyPem,
  generateSigningKeyPair,
  ok,
  publicKeyFromPrivateKey,
  publicKeyToDidKey,
  signUserAction,
  type Result,
  type UserAction,
} from '@swarm/contract';
import {
  encryptionKeyFromPkcs8,
  generateEncryptionKey,
  type EncryptionKeyPair,
} from './encryption-key.ts';
import { decryptKeyBackup, encryptKeyBackup, type DecryptedKeyBackup } from './key-backup.ts';
import type { KeyStore } from './key-store.ts';

/**
 * The user's keys in the browser (docs/security.md, "Who holds what"; direct messages add the
 * encryption key): created here, kept non-extractable in IndexedDB, restored on another browser
 * from the password-encrypted backup. Pure WebCrypto, so it runs under Node for the tests; storage
 * goes through the `KeyStore` port.
 */

const P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;

export interface NewUserKey {
  /** Non-extractable: script on this origin can sign with it but never read it out. */
  privateKey: CryptoKey;
  did: string;
  /** SPKI PEM, what the node stores next to the did. */
  publicKey: string;
  /** JSON text (see key-backup.ts, version 2), what the node stores for other browsers. */
  encryptedBackup: string;
  /** The direct-message encryption key, also in the backup. */
  encryption: EncryptionKeyPair;
}

function importPkcs8(pkcs8: Uint8Array, extractable: boolean): Promise<CryptoKey> {
  return globalThis.crypto.subtle.importKey('pkcs8', new Uint8Array(pkcs8), P256, extractable, [
    'sign',
  ]);
}

/**
 * New signing and encryption key pairs and their (version 2) backup. The extractable copies exist
 * only inside this function.
 */
export async function createUserKey(
  password: string,
  options: { iterations?: number } = {},
): Promise<NewUserKey> {
  const pair = await generateSigningKeyPair(true);
  const pkcs8 = new Uint8Array(await globalThis.crypto.subtle.exportKey('pkcs8', pair.privateKey));
  const { pkcs8: encryptionPkcs8, ...encryption } = await generateEncryptionKey();
  try {
    const did = await publicKeyToDidKey(pair.publicKey);
    const encryptedBackup = await encryptKeyBackup({
      pkcs8,
      encryptionPkcs8,
      did,
      password,
      iterations: options.iterations,
    });
    const privateKey = await importPkcs8(pkcs8, false);
    return {
      privateKey,
      did,
      publicKey: await exportPublicKeyPem(pair.publicKey),
      encryptedBackup,
      encryption,
    };
  } finally {
    pkcs8.fill(0);
    encryptionPkcs8.fill(0);
  }
}

export interface RestoredUserKey {
  privateKey: CryptoKey;
  did: string;
  /** Null when the backup is a version 1 one (made before direct messages). */
  encryption: EncryptionKeyPair | null;
}

/** Checks a decrypted backup and imports its keys non-extractable (the caller zeroes the bytes). */
async function importDecrypted(
  decrypted: DecryptedKeyBackup,
  expectedDid?: string | null,
): Promise<Result<RestoredUserKey>> {
  const { pkcs8, encryptionPkcs8, did } = decrypted;
  if (expectedDid && did !== expectedDid) {
    return err('Your key backup holds a different key than the one registered for your account.');
  }
  let privateKey: CryptoKey;
  try {
    const actualDid = await publicKeyToDidKey(
      await publicKeyFromPrivateKey(await importPkcs8(pkcs8, true)),
    );
    if (actualDid !== did) return err('Your key backup is damaged: its key does not match it.');
    privateKey = await importPkcs8(pkcs8, false);
  } catch {
    return err('Your key backup is damaged: it does not hold a P-256 signing key.');
  }
  let encryption: EncryptionKeyPair | null = null;
  if (encryptionPkcs8) {
    try {
      encryption = await encryptionKeyFromPkcs8(encryptionPkcs8);
    } catch {
      return err('Your key backup is damaged: its encryption key is not a P-256 ECDH key.');
    }
  }
  return ok({ privateKey, did, encryption });
}

function wipe(decrypted: DecryptedKeyBackup): void {
  decrypted.pkcs8.fill(0);
  decrypted.encryptionPkcs8?.fill(0);
}

/**
 * Decrypts a backup into non-extractable keys. Checks that the signing key inside really is the
 * one the backup (and, when given, the account) names, so a swapped backup cannot go unnoticed.
 */
export async function restoreUserKey(
  encryptedBackup: string,
  password: string,
  expectedDid?: string | null,
): Promise<Result<RestoredUserKey>> {
  const decrypted = await decryptKeyBackup(encryptedBackup, password);
  if (!decrypted.ok) return decrypted;
  try {
    return await importDecrypted(decrypted.value, expectedDid);
  } finally {
    wipe(decrypted.value);
  }
}

/**
 * First use of direct messages on an account made before them: adds a new encryption key to the
 * backup (version 1 → 2; a version 2 backup keeps the key it has). Needs the password, which
 * also proves the backup opens. Returns the backup to store and both keys, non-extractable.
 */
export async function addEncryptionKey(input: {
  encryptedBackup: string;
  password: string;
  expectedDid: string;
  iterations?: number;
}): Promise<
  Result<{
    encryptedBackup: string;
    signing: CryptoKey;
    did: string;
    encryption: EncryptionKeyPair;
  }>
> {
  const decrypted = await decryptKeyBackup(input.encryptedBackup, input.password);
  if (!decrypted.ok) return decrypted;
  try {
    const restored = await importDecrypted(decrypted.value, input.expectedDid);
    if (!restored.ok) return restored;
    const { privateKey: signing, did } = restored.value;
    if (restored.value.encryption) {
      return ok({
        encryptedBackup: input.encryptedBackup,
        signing,
        did,
        encryption: restored.value.encryption,
      });
    }
    const { pkcs8: encryptionPkcs8, ...encryption } = await generateEncryptionKey();
    try {
      const encryptedBackup = await encryptKeyBackup({
        pkcs8: decrypted.value.pkcs8,
        encryptionPkcs8,
        did,
        password: input.password,
        iterations: input.iterations,
      });
      return ok({ encryptedBackup, signing, did, encryption });
    } finally {
      encryptionPkcs8.fill(0);
    }
  } finally {
    wipe(decrypted.value);
  }
}

/**
 * The same keys under a new password (changing the password must not lose them), in the version
 * the backup has.
 */
export async function reencryptKeyBackup(input: {
  encryptedBackup: string;
  currentPassword: string;
  newPassword: string;
  iterations?: number;
}): Promise<Result<string>> {
  const decrypted = await decryptKeyBackup(input.encryptedBackup, input.currentPassword);
  if (!decrypted.ok) return decrypted;
  const { pkcs8, encryptionPkcs8, did } = decrypted.value;
  try {
    return ok(
      await encryptKeyBackup({
        pkcs8,
        encryptionPkcs8,
        did,
        password: input.newPassword,
        iterations: input.iterations,
      }),
    );
  } finally {
    pkcs8.fill(0);
    encryptionPkcs8?.fill(0);
  }
}

/** What `interactions.prepare` answers for a remote post: the action for the browser to sign. */
export interface PreparedAction {
  action: UserAction;
  targetDomain: string;
  body: Record<string, unknown>;
}

export interface SignedAction {
  body: Record<string, unknown>;
  signature: string;
}

export const MISSING_KEY_MESSAGE = 'This browser has no key for you: log in again to restore it.';
export const STALE_KEY_MESSAGE =
  'The key in this browser is not the one registered for your account: log in again to restore it.';

export class MissingKeyError extends Error {
  override name = 'MissingKeyError';
}

/**
 * Signs a prepared action with the key stored for `handle`. Throws `MissingKeyError` (its
 * message is meant for the person) when this browser has no usable key.
 */
export async function signPreparedWith(
  store: KeyStore,
  user: { handle: string; did?: string | null },
  prepared: PreparedAction,
): Promise<SignedAction> {
  const stored = await store.get(user.handle);
  if (!stored) throw new MissingKeyError(MISSING_KEY_MESSAGE);
  if (user.did && stored.did !== user.did) throw new MissingKeyError(STALE_KEY_MESSAGE);
  const signature = await signUserAction({ privateKey: stored.privateKey, ...prepared });
  return { body: prepared.body, signature };
}
