import type { EncryptionKeyPair } from './encryption-key.ts';

/** A user's keys as kept in the browser, with the did they belong to (to notice a stale key). */
export interface StoredUserKey {
  did: string;
  /** Non-extractable CryptoKey (structured-cloneable, so IndexedDB keeps it as is). */
  privateKey: CryptoKey;
  /** The direct-message encryption key (non-extractable), absent for accounts without one. */
  encryption?: EncryptionKeyPair;
}

/** Where the browser keeps user keys, by handle. IndexedDB in the app; a Map in tests. */
export interface KeyStore {
  get(handle: string): Promise<StoredUserKey | undefined>;
  set(handle: string, key: StoredUserKey): Promise<void>;
  delete(handle: string): Promise<void>;
}

export function createMemoryKeyStore(): KeyStore {
  const keys = new Map<string, StoredUserKey>();
  return {
    get: async (handle) => keys.get(handle.toLowerCase()),
    set: async (handle, key) => void keys.set(handle.toLowerCase(), key),
    delete: async (handle) => void keys.delete(handle.toLowerCase()),
  };
}
