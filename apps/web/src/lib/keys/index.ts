import { page } from '$app/state';
import { err, ok, type Result } from '@swarm/contract';
import { idbKeyStore } from './idb-key-store.ts';
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
export {
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
 * (or `user`'s), giving `{ body, signature }` for `interactions.like|unlike|repost({ signed })`.
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

/**
 * After logging in (or from /settings): puts the account's key into this browser from its
 * backup, unless it is already here. Fails with a sentence for the person.
 */
export async function restoreBackupIntoBrowser(
  handle: string,
  backup: { did: string; encryptedBackup: string },
  password: string,
): Promise<Result<void>> {
  if (await hasKey(handle, backup.did)) return ok(undefined);
  if (!globalThis.crypto?.subtle) {
    return err('This page is not on a secure (https) address, so the browser offers no WebCrypto.');
  }
  const restored = await restoreUserKey(backup.encryptedBackup, password, backup.did);
  if (!restored.ok) return restored;
  try {
    await idbKeyStore.set(handle, restored.value);
  } catch {
    return err('This browser would not store your key (is it in private browsing mode?).');
  }
  return ok(undefined);
}
