import type { Clock } from './clock.ts';

/** Public reads are allowed to be this stale (docs/protocol.md "Public reads"). */
export const READ_CACHE_TTL_MS = 1_000;
/** Distinct path+query keys kept: enough for the hot ones, bounded against query spraying. */
export const READ_CACHE_MAX_ENTRIES = 500;

/**
 * A small read-through cache for public reads (docs/decisions.md "Public reads are cached for a
 * second"): entries live `ttlMs` on the injected clock, at most `maxEntries` of them (least
 * recently used out first), concurrent misses of one key share one load, and `invalidate()`
 * drops everything, including loads already running when it was called, so a write this node
 * made is never hidden by a read that started before it.
 */
export interface ReadCache<V> {
  /** The fresh value for `key`, or undefined. */
  get(key: string): V | undefined;
  /**
   * Runs `load` (or joins the one running for `key`) and keeps its value unless it is
   * undefined (not cacheable) or the cache was invalidated meanwhile.
   */
  load(key: string, load: () => Promise<V | undefined>): Promise<V | undefined>;
  /** The load running for `key` since the last invalidation, if any. */
  pending(key: string): Promise<V | undefined> | undefined;
  /** Forget everything: this node changed data that reads may show. */
  invalidate(): void;
  /** Forget the kept entries whose key matches (loads already running are the caller's concern). */
  forget(match: (key: string) => boolean): void;
  readonly size: number;
}

export interface ReadCacheOptions {
  clock: Clock;
  ttlMs: number;
  maxEntries: number;
}

export function createReadCache<V>(options: ReadCacheOptions): ReadCache<V> {
  const { clock, ttlMs, maxEntries } = options;
  // A Map iterates in insertion order: re-inserting on a hit makes the first key the LRU one.
  const entries = new Map<string, { value: V; expiresAt: number }>();
  const inflight = new Map<string, { generation: number; promise: Promise<V | undefined> }>();
  let generation = 0;

  const store = (key: string, value: V) => {
    entries.delete(key);
    entries.set(key, { value, expiresAt: clock.now().getTime() + ttlMs });
    while (entries.size > maxEntries) {
      entries.delete(entries.keys().next().value as string);
    }
  };

  const pending = (key: string) => {
    const running = inflight.get(key);
    return running?.generation === generation ? running.promise : undefined;
  };

  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= clock.now().getTime()) {
        entries.delete(key);
        return undefined;
      }
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },

    load(key, load) {
      const running = pending(key);
      if (running) return running;
      const started = generation;
      const promise = load()
        .then((value) => {
          if (value !== undefined && started === generation) store(key, value);
          return value;
        })
        .finally(() => {
          if (inflight.get(key)?.promise === promise) inflight.delete(key);
        });
      inflight.set(key, { generation: started, promise });
      return promise;
    },

    pending,

    invalidate() {
      generation++;
      entries.clear();
    },

    forget(match) {
      for (const key of [...entries.keys()]) if (match(key)) entries.delete(key);
    },

    get size() {
      return entries.size;
    },
  };
}
