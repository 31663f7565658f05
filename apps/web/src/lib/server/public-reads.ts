import type { createCaller } from '@swarm/api';
import {
  createReadCache,
  READ_CACHE_MAX_ENTRIES,
  READS_TOPIC,
  type NodeContext,
  type ReadCache,
} from '@swarm/domain';

type Caller = ReturnType<typeof createCaller>;

/**
 * The reads behind the pages most visitors open signed out (every page's node info, `/public`,
 * a profile): the same for every signed-out visitor (no viewer), so they are shared for
 * `SWARM_READ_CACHE_TTL_MS` as the gateway shares its public reads (docs/decisions.md "Public
 * reads are cached for a second"). Keyed by procedure and input.
 */
const SHARED_READS = new Set(['node.info', 'timeline.local', 'profiles.get']);

export interface PublicReads {
  /** `api` for a signed-out visitor: the shared reads come from the cache. */
  forVisitor(api: Caller): Caller;
}

/**
 * One per process. Any write this node makes (the web app's tRPC mutations, the gateway's
 * writes) publishes READS_TOPIC, which drops everything here, so the node's own changes show at
 * once; a signed-in viewer never reads from it. Only answers are kept: a refused read (404)
 * is asked again. Each hit is a copy, so a page cannot change what the next one gets.
 */
export function createPublicReads(node: NodeContext): PublicReads {
  const ttlMs = node.config.readCacheTtlMs;
  if (ttlMs <= 0) return { forVisitor: (api) => api };
  const cache: ReadCache<unknown> = createReadCache({
    clock: node.clock,
    ttlMs,
    maxEntries: READ_CACHE_MAX_ENTRIES,
  });
  node.invalidations.subscribe(READS_TOPIC, () => cache.invalidate());

  const read = (path: string, call: (input: unknown) => Promise<unknown>, input: unknown) => {
    const key = `${path} ${JSON.stringify(input ?? null)}`;
    const hit = cache.get(key);
    if (hit !== undefined) return Promise.resolve(structuredClone(hit));
    return cache.load(key, () => call(input)).then((value) => structuredClone(value));
  };

  // The caller is a tree of tRPC proxies (`api.timeline.local(input)`): the shared procedures
  // are swapped for cached calls, every other one is the visitor's own.
  const wrap = (target: object, path: string): object =>
    new Proxy(target, {
      get(inner, name, receiver) {
        const value: unknown = Reflect.get(inner, name, receiver);
        if (typeof name !== 'string') return value;
        const full = path ? `${path}.${name}` : name;
        if (SHARED_READS.has(full) && typeof value === 'function') {
          const call = value as (input: unknown) => Promise<unknown>;
          return (input?: unknown) => read(full, call, input);
        }
        return (typeof value === 'object' || typeof value === 'function') && value !== null
          ? wrap(value, full)
          : value;
      },
    });

  return { forVisitor: (api) => wrap(api, '') as Caller };
}
