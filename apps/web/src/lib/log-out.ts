import type { SubmitFunction } from '@sveltejs/kit';
import { idbKeyStore } from '$lib/keys/idb-key-store';

/**
 * The "Log out" forms' enhancement: logging out also removes the key from this browser
 * (docs/security.md): logging in again restores it from the backup, and the next person at
 * this computer cannot sign with it.
 */
export function logOutFor(handle: string | undefined): SubmitFunction {
  return async () => {
    if (handle) await idbKeyStore.delete(handle).catch(() => undefined);
    return async ({ update }) => update();
  };
}
