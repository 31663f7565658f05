import type { Clock } from '@swarm/domain';

/**
 * `Idempotency-Key` of `POST /api/v1/statuses` (docs/clients.md): an app that sends the same
 * key again within an hour (a retry after a lost answer) gets the status the first request
 * made, not a second post. Keys are per person; a request still running holds its key, so a
 * retry that overlaps it waits for the same result. Kept in this process, at most
 * `IDEMPOTENCY_MAX_KEYS` (the oldest go first).
 */

export const IDEMPOTENCY_TTL_MS = 60 * 60 * 1000;
export const IDEMPOTENCY_MAX_KEYS = 10_000;
/** Longer keys are refused (422): apps send UUIDs or short hashes. */
export const IDEMPOTENCY_KEY_MAX_CHARS = 200;

interface Entry<T> {
  at: number;
  result: Promise<T>;
}

export interface IdempotencyStore<T> {
  /**
   * `run`'s result for this person's key: the one already made (or being made) within the
   * hour, else a new run. A run that ends without a value to keep (`keep` false) frees the key.
   */
  once(userId: string, key: string, run: () => Promise<T>, keep: (value: T) => boolean): Promise<T>;
}

export function createIdempotencyStore<T>(clock: Clock): IdempotencyStore<T> {
  const entries = new Map<string, Entry<T>>();
  return {
    async once(userId, key, run, keep) {
      const id = `${userId}\u0000${key}`;
      const now = clock.now().getTime();
      const known = entries.get(id);
      if (known && now - known.at < IDEMPOTENCY_TTL_MS) return known.result;
      entries.delete(id);
      while (entries.size >= IDEMPOTENCY_MAX_KEYS) {
        // Map order is insertion order: the first key is the oldest.
        entries.delete(entries.keys().next().value!);
      }
      const result = run();
      entries.set(id, { at: now, result });
      try {
        const value = await result;
        if (!keep(value)) entries.delete(id);
        return value;
      } catch (error) {
        entries.delete(id);
        throw error;
      }
    },
  };
}
