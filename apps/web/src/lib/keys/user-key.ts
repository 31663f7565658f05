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
import { decryptKeyBackup, encryptKeyBackup } from './key-backup.ts';
import type { KeyStore } from './key-store.ts';

/**
 * The user's signing key in the browser (DESIGN §3): created here, kept non-extractable in
 * IndexedDB, restored on another browser from the password-encrypted backup. Pure WebCrypto, so
 * it runs under Node for the tests; storage goes through the `KeyStore` port.
 */

const P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;

export interface NewUserKey {
  /** Non-extractable: script on this origin can sign with it but never read it out. */
  privateKey: CryptoKey;
  did: string;
  /** SPKI PEM, what the node stores next to the did. */
  publicKey: string;
  /** JSON text (see key-backup.ts), what the node stores for other browsers. */
  encryptedBackup: string;
}

function importPkcs8(pkcs8: Uint8Array, extractable: boolean): Promise<CryptoKey> {
  return globalThis.crypto.subtle.importKey('pkcs8', new Uint8Array(pkcs8), P256, extractable, [
    'sign',
  ]);
}

/** A new key pair and its backup. The extractable copy exists only inside this function. */
export async function createUserKey(
  password: string,
  options: { iterations?: number } = {},
): Promise<NewUserKey> {
  const pair = await generateSigningKeyPair(true);
  const pkcs8 = new Uint8Array(await globalThis.crypto.subtle.exportKey('pkcs8', pair.privateKey));
  const did = await publicKeyToDidKey(pair.publicKey);
  const encryptedBackup = await encryptKeyBackup({
    pkcs8,
    did,
    password,
    iterations: options.iterations,
  });
  const privateKey = await importPkcs8(pkcs8, false);
  pkcs8.fill(0);
  return { privateKey, did, publicKey: await exportPublicKeyPem(pair.publicKey), encryptedBackup };
}

/**
 * Decrypts a backup into a non-extractable key. Checks that the key inside really is the one the
 * backup (and, when given, the account) names, so a swapped backup cannot go unnoticed.
 */
export async function restoreUserKey(
  encryptedBackup: string,
  password: string,
  expectedDid?: string | null,
): Promise<Result<{ privateKey: CryptoKey; did: string }>> {
  const decrypted = await decryptKeyBackup(encryptedBackup, password);
  if (!decrypted.ok) return decrypted;
  const { pkcs8, did } = decrypted.value;
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
  } finally {
    pkcs8.fill(0);
  }
  return ok({ privateKey, did });
}

/** The same key under a new password (changing the password must not lose the key). */
export async function reencryptKeyBackup(input: {
  encryptedBackup: string;
  currentPassword: string;
  newPassword: string;
  iterations?: number;
}): Promise<Result<string>> {
  const decrypted = await decryptKeyBackup(input.encryptedBackup, input.currentPassword);
  if (!decrypted.ok) return decrypted;
  const { pkcs8, did } = decrypted.value;
  try {
    return ok(
      await encryptKeyBackup({
        pkcs8,
        did,
        password: input.newPassword,
        iterations: input.iterations,
      }),
    );
  } finally {
    pkcs8.fill(0);
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
