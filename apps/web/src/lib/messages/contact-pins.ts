import { createStore, get, set, type UseStore } from 'idb-keyval';

/**
 * Trust on first use of the people one writes to: the did this browser first saw for an address.
 * A node that later serves another did (and so another encryption key binding) is noticed here,
 * since the binding is checked against the did, and the did against this pin.
 */

export interface ContactPin {
  did: string;
  pinnedAt: string;
}

export interface ContactPinStore {
  get(address: string): Promise<ContactPin | undefined>;
  set(address: string, pin: ContactPin): Promise<void>;
}

let store: UseStore | undefined;

// Opened on first use: importing this module on the server (SSR) must not touch IndexedDB.
function database(): UseStore {
  store ??= createStore('swarm-contacts', 'contacts');
  return store;
}

export const idbContactPins: ContactPinStore = {
  get: (address) => get<ContactPin>(address.toLowerCase(), database()),
  set: (address, pin) => set(address.toLowerCase(), pin, database()),
};

export function createMemoryContactPins(): ContactPinStore {
  const pins = new Map<string, ContactPin>();
  return {
    get: async (address) => pins.get(address.toLowerCase()),
    set: async (address, pin) => void pins.set(address.toLowerCase(), pin),
  };
}
