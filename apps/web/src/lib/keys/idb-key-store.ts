import { createStore, del, get, set, type UseStore } from 'idb-keyval';
import type { KeyStore, StoredUserKey } from './key-store.ts';

let store: UseStore | undefined;

// Opened on first use: importing this module on the server (SSR) must not touch IndexedDB.
function database(): UseStore {
  store ??= createStore('swarm-user-keys', 'keys');
  return store;
}

/** The browser's key store: one IndexedDB object store on this origin, keyed by handle. */
export const idbKeyStore: KeyStore = {
  get: (handle) => get<StoredUserKey>(handle.toLowerCase(), database()),
  set: (handle, key) => set(handle.toLowerCase(), key, database()),
  delete: (handle) => del(handle.toLowerCase(), database()),
};
