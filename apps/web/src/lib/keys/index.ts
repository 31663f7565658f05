import { page } from '$app/state';
import { err, ok, type Result } from '@swarm/contract';
import { idbKeyStore } from './idb-key-store.ts';
import { parseKeyBackup } from './key-backup.ts';
import type { StoredUserKey } from './key-store.ts';
import {
  MissingKeyError,
  MISSING_KEY_MESSAGE,
  restoreUserKey,
  signPreparedWith,
  type PreparedAction,
  type SignedAction,
} from './user-key.ts';

/**
 * The browser-side key API the pages use. Everything here runs only in the browser (event
 * handlers, form submits); the pure parts live in user-key.ts and key-backup.ts.
 */

export { idbKeyStore } from './idb-key-store.ts';
export type { KeyStore, StoredUserKey } from './key-store.ts';
export type { EncryptionKeyPair } from './encryption-key.ts';
export {
  addEncryptionKey,
  createUserKey,
  restoreUserKey,
  reencryptKeyBackup,
  MissingKeyError,
  MISSING_KEY_MESSAGE,
  type NewUserKey,
  type PreparedAction,
  type SignedAction,
} from './user-key.ts';

interface KeyOwner {
  handle: string;
  did?: string | null;
}

function signedInUser(): KeyOwner | null {
  const user: unknown = page.data.user;
  if (typeof user !== 'object' || user === null || !('handle' in user)) return null;
  const { handle, did } = user as { handle: unknown; did?: unknown };
  if (typeof handle !== 'string') return null;
  return { handle, did: typeof did === 'string' ? did : null };
}

/**
 * Signs what `interactions.prepare` returned for a remote post, with the signed-in user's key
 * (or `user`'s), giving `{ body, signature }` for
 * `interactions.like|unlike|repost|unrepost({ signed })`.
 * Throws `MissingKeyError` with a message for the person when this browser has no key.
 */
export async function signPrepared(
  prepared: PreparedAction,
  user: KeyOwner | null = signedInUser(),
): Promise<SignedAction> {
  if (!user) throw new MissingKeyError(MISSING_KEY_MESSAGE);
  return signPreparedWith(idbKeyStore, user, prepared);
}

/** True when this browser holds the key registered as `did` for `handle`. */
export async function hasKey(handle: string, did: string | null): Promise<boolean> {
  if (!did) return false;
  try {
    return (await idbKeyStore.get(handle))?.did === did;
  } catch {
    return false; // IndexedDB unavailable (private mode in some browsers): no key here
  }
}

/** The keys this browser holds for `handle`, if they are the account's (`did`). */
export async function storedKeys(
  handle: string,
  did: string | null,
): Promise<StoredUserKey | undefined> {
  if (!did) return undefined;
  try {
    const stored = await idbKeyStore.get(handle);
    return stored?.did === did ? stored : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the backup carries an encryption key (version 2), read without the password. */
function backupHasEncryptionKey(encryptedBackup: string): boolean {
  const parsed = parseKeyBackup(encryptedBackup);
  return parsed.ok && parsed.value.version === 2;
}

/**
 * After logging in (or from /settings, /messages): puts the account's keys into this browser from
 * its backup, unless they are already here (the signing key, and the encryption key when the
 * backup has one; `force` restores anyway). Fails with a sentence for the person.
 */
export async function restoreBackupIntoBrowser(
  handle: string,
  backup: { did: string; encryptedBackup: string },
  password: string,
  options: { force?: boolean } = {},
): Promise<Result<void>> {
  const here = options.force ? undefined : await storedKeys(handle, backup.did);
  if (here && (here.encryption || !backupHasEncryptionKey(backup.encryptedBackup))) {
    return ok(undefined);
  }
  if (!globalThis.crypto?.subtle) {
    return err('This page is not on a secure (https) address, so the browser offers no WebCrypto.');
  }
  const restored = await restoreUserKey(backup.encryptedBackup, password, backup.did);
  if (!restored.ok) return restored;
  const { privateKey, did, encryption } = restored.value;
  try {
    await idbKeyStore.set(
      handle,
      encryption ? { did, privateKey, encryption } : { did, privateKey },
    );
  } catch {
    return err('This browser would not store your key (is it in private browsing mode?).');
  }
  return ok(undefined);
}
