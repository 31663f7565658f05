import type { Context, MiddlewareHandler } from 'hono';
import {
  createReadCache,
  READ_CACHE_MAX_ENTRIES,
  READ_CACHE_TTL_MS,
  type Clock,
  type Invalidations,
  type ReadCache,
  READS_TOPIC,
} from '@swarm/domain';
import { withKnownText } from '../fast-answer.ts';
import { isWriteMethod, type SecurityEnv } from './security-env.ts';

/** The public reads worth caching: node info, timeline, profiles, posts, replies. */
const CACHED_READ = /^\/api\/swarm\/(?:info|timeline|replies|users\/[^/]+|posts\/[^/]+)$/;

interface CachedRead {
  body: string;
  contentType: string;
}

/** A cached read's answer, marked so the HTTP adapter writes its text without a stream. */
function answer(c: Context, read: CachedRead): Response {
  return withKnownText(c.body(read.body, 200, { 'content-type': read.contentType }), read.body);
}

/**
 * Serves successful public GETs from a read-through cache keyed by path and query, as the JSON
 * text answered the first time, skipping validation, database and serialisation. Only 200s are
 * kept (a 404 must not outlive the user's creation); any successful write through this gateway
 * invalidates the whole cache, so the node's own changes show at once, and tells the node's
 * other processes (`invalidations`: Postgres NOTIFY or Redis), whose caches drop too. Changes
 * made behind the gateways' backs (direct database writes) show within `ttlMs`; the web app's
 * tRPC mutations publish the same topic (packages/api/src/trpc.ts).
 */
export function readCache(options: {
  clock: Clock;
  ttlMs?: number;
  maxEntries?: number;
  invalidations?: Invalidations;
}): MiddlewareHandler<SecurityEnv> {
  const cache: ReadCache<CachedRead> = createReadCache({
    clock: options.clock,
    ttlMs: options.ttlMs ?? READ_CACHE_TTL_MS,
    maxEntries: options.maxEntries ?? READ_CACHE_MAX_ENTRIES,
  });
  options.invalidations?.subscribe(READS_TOPIC, () => cache.invalidate());
  return async (c, next) => {
    if (c.req.method !== 'GET' || !CACHED_READ.test(c.req.path)) {
      await next();
      if (isWriteMethod(c.req.method) && c.res.status < 400) {
        cache.invalidate();
        // Before the answer leaves: a client that reads next from another replica sees it.
        await options.invalidations?.publish(READS_TOPIC);
      }
      return;
    }
    const url = c.req.url;
    const key = url.slice(url.indexOf('/', url.indexOf('//') + 2));
    const hit = cache.get(key) ?? (await cache.pending(key));
    if (hit) return answer(c, hit);

    let ran = false;
    const joined = await cache.load(key, async () => {
      ran = true;
      await next();
      if (c.res.status !== 200) return undefined;
      const body = await c.res.text();
      c.res = new Response(body, c.res);
      withKnownText(c.res, body);
      return { body, contentType: c.res.headers.get('content-type') ?? 'application/json' };
    });
    // Another request started the same load first: share its answer, or answer ourselves.
    if (!ran) {
      if (joined) return answer(c, joined);
      await next();
    }
  };
}
