/**
 * Bookkeeping a page keeps outside Svelte's reactivity on purpose (what it already decrypted,
 * receipted or announced): recording it must not re-run the effects that read it.
 */
export function createOnce(): { first(key: string): boolean; forget(key: string): void } {
  const seen = new Set<string>();
  return {
    /** True the first time `key` is seen (and remembers it). */
    first(key) {
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    },
    forget(key) {
      seen.delete(key);
    },
  };
}

/** Remembers a value per key; `changed` says whether it differs from the last one (first: no). */
export function createLastValues(): { changed(key: string, value: string): boolean } {
  const last = new Map<string, string>();
  return {
    changed(key, value) {
      const before = last.get(key);
      last.set(key, value);
      return before !== undefined && before !== value;
    },
  };
}
