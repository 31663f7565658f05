import {
  didKeyToPublicKey,
  exportPublicKeyPem,
  importPublicKeyPem,
  ok,
  type Result,
} from '@swarm/contract';

// Importing a public key (SPKI parse, or did:key point decompression, then WebCrypto import)
// costs more than the signature check itself, and every signed request needs one. A key is a
// pure function of its text, so imports are memoised process-wide: bounded, least recently used
// out first, concurrent misses of one text share one import. Nothing here decides what is
// pinned; callers still read the pinned text from the database on every request.

/** Distinct node keys (PEMs) kept imported: one per peer node is plenty. */
const NODE_KEYS_MAX = 2_000;
/** Distinct user dids kept imported: the actors active recently. */
const DID_KEYS_MAX = 20_000;

/** `load` memoised per text, at most `max` results kept (LRU). */
export function memoiseImport<T>(
  max: number,
  load: (text: string) => Promise<T>,
): (text: string) => Promise<T> {
  // A Map iterates in insertion order: re-inserting on a hit makes the first key the LRU one.
  const entries = new Map<string, Promise<T>>();
  return (text) => {
    let entry = entries.get(text);
    if (entry) {
      entries.delete(text);
    } else {
      entry = load(text);
      // A thrown import is not kept (results, including failures as values, are).
      entry.catch(() => entries.delete(text));
    }
    entries.set(text, entry);
    if (entries.size > max) entries.delete(entries.keys().next().value as string);
    return entry;
  };
}

/** A node's public key and its canonical PEM (same key whatever the PEM's line breaks). */
export interface ImportedNodeKey {
  key: CryptoKey;
  pem: string;
}

/** The node key a PEM holds, memoised (see above). */
export const importNodeKey: (pem: string) => Promise<Result<ImportedNodeKey>> = memoiseImport(
  NODE_KEYS_MAX,
  async (pem) => {
    const key = await importPublicKeyPem(pem);
    if (!key.ok) return key;
    return ok({ key: key.value, pem: await exportPublicKeyPem(key.value) });
  },
);

/** The public key a P-256 `did:key` names, memoised (see above). */
export const importDidKey: (did: string) => Promise<Result<CryptoKey>> = memoiseImport(
  DID_KEYS_MAX,
  didKeyToPublicKey,
);
