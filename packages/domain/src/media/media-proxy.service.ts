import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { NodeKeys } from '../node-keys.service.ts';
import {
  describePeerError,
  mediaTargetOf,
  type PeerBytesResult,
  type PeerClient,
} from '../peers/index.ts';

/**
 * The media proxy (docs/security.md, "Limits"): images that pages show (avatars, banners, post
 * media, link preview images) are fetched by the node and served from its own origin, so the
 * hosts of those images never see viewers' addresses. Only URLs the node signed can be fetched:
 * pages get `/media/proxy?url=…&sig=…` where `sig` is an HMAC of the URL under a key derived
 * from the node's private key, so the proxy is not an open proxy for arbitrary URLs. Fetches go
 * through the peer client (SSRF guard, timeout, no redirects, size cap); only raster image types
 * whose first bytes match are served; answers are cached in memory, failures too.
 */
export const MEDIA_PROXY = {
  path: '/media/proxy',
  maxBytes: 8 * 1024 * 1024,
  timeoutMs: 8_000,
  /** Bytes of images kept in memory (least recently used out first). */
  cacheBytes: 32 * 1024 * 1024,
  cacheTtlMs: 60 * 60_000,
  negativeTtlMs: 5 * 60_000,
  maxNegative: 5_000,
  /** Outbound image fetches per minute, all viewers together, and per image host. */
  fetchesPerMinute: 300,
  perHostPerMinute: 60,
  /** Browsers may keep an image this long (seconds). */
  browserMaxAgeSec: 24 * 60 * 60,
} as const;

/** Raster types only: an SVG is a document that can carry script. */
export const MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif'];

export type MediaProxyOutcome =
  | { ok: true; bytes: Uint8Array; contentType: string }
  | {
      ok: false;
      status: 400 | 403 | 429 | 502;
      code: 'INVALID_REQUEST' | 'FORBIDDEN' | 'RATE_LIMITED' | 'PEER_UNAVAILABLE';
      message: string;
    };

export interface MediaProxyService {
  /** The proxied path of an image URL for pages, or null when it is not an http(s) URL. */
  src(url: string | null | undefined): string | null;
  /** Serves `/media/proxy?url=…&sig=…`. */
  load(query: { url: string | null; sig: string | null }): Promise<MediaProxyOutcome>;
}

/** Whether `bytes` start the way files of `type` do. */
export function looksLike(type: string, bytes: Uint8Array): boolean {
  const at = (offset: number, text: string) =>
    [...text].every((c, i) => bytes[offset + i] === c.charCodeAt(0));
  switch (type) {
    case 'image/png':
      return bytes[0] === 0x89 && at(1, 'PNG');
    case 'image/jpeg':
      return bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
    case 'image/gif':
      return at(0, 'GIF8');
    case 'image/webp':
      return at(0, 'RIFF') && at(8, 'WEBP');
    case 'image/avif':
      return at(4, 'ftypavi');
    default:
      return false;
  }
}

const UNAVAILABLE = 'The image could not be loaded.';

export function createMediaProxyService(deps: {
  keys: Pick<NodeKeys, 'mediaSecret'>;
  peers: Pick<PeerClient, 'getBytes'>;
  clock: Clock;
  logger: Logger;
  /** This node's own uploaded files: their path on this origin, loaded without the proxy. */
  localPathOf?: (url: string) => string | null;
  options?: Partial<{ -readonly [K in keyof typeof MEDIA_PROXY]: (typeof MEDIA_PROXY)[K] }>;
}): MediaProxyService {
  const { keys, peers, clock, logger } = deps;
  const options = { ...MEDIA_PROXY, ...deps.options };
  const cache = new Map<string, { until: number; bytes: Uint8Array; contentType: string }>();
  let cachedBytes = 0;
  const negative = new Map<string, number>();
  const inflight = new Map<string, Promise<MediaProxyOutcome>>();
  let window = { start: 0, total: 0, perHost: new Map<string, number>() };
  const now = () => clock.now().getTime();

  const sign = (url: string) =>
    createHmac('sha256', keys.mediaSecret)
      .update(url)
      .digest()
      .subarray(0, 16)
      .toString('base64url');

  function validSig(url: string, sig: string): boolean {
    const expected = Buffer.from(sign(url));
    const given = Buffer.from(sig);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  function admit(host: string): boolean {
    const at = now();
    if (at - window.start >= 60_000 || window.perHost.size >= 10_000) {
      window = { start: at, total: 0, perHost: new Map() };
    }
    const used = window.perHost.get(host) ?? 0;
    if (window.total >= options.fetchesPerMinute || used >= options.perHostPerMinute) return false;
    window.total++;
    window.perHost.set(host, used + 1);
    return true;
  }

  function keep(url: string, bytes: Uint8Array, contentType: string) {
    if (bytes.byteLength > options.cacheBytes / 4) return;
    const old = cache.get(url);
    if (old) {
      cachedBytes -= old.bytes.byteLength;
      cache.delete(url);
    }
    for (const [key, entry] of cache) {
      if (cachedBytes + bytes.byteLength <= options.cacheBytes) break;
      cache.delete(key);
      cachedBytes -= entry.bytes.byteLength;
    }
    cache.set(url, { until: now() + options.cacheTtlMs, bytes, contentType });
    cachedBytes += bytes.byteLength;
  }

  function refuse(url: string, why: string): MediaProxyOutcome {
    if (negative.size >= options.maxNegative) {
      const oldest = negative.keys().next();
      if (!oldest.done) negative.delete(oldest.value);
    }
    negative.set(url, now() + options.negativeTtlMs);
    // The cause stays in the logs; the viewer gets one answer for every failure.
    logger.info({ url: url.slice(0, 300), why }, 'media proxy: image not served');
    return { ok: false, status: 502, code: 'PEER_UNAVAILABLE', message: UNAVAILABLE };
  }

  async function fetchImage(url: string, host: string): Promise<MediaProxyOutcome> {
    if (!admit(host)) {
      logger.info({ host }, 'media proxy: fetch budget spent');
      return {
        ok: false,
        status: 429,
        code: 'RATE_LIMITED',
        message: 'Too many images are being loaded; try again in a minute.',
      };
    }
    let result: PeerBytesResult;
    try {
      result = await peers.getBytes(url, {
        maxBytes: options.maxBytes,
        timeoutMs: options.timeoutMs,
        accept: MEDIA_TYPES.join(', '),
      });
    } catch (error) {
      return refuse(url, (error as Error).message);
    }
    if (!result.ok) return refuse(url, describePeerError(result.reason));
    if (!MEDIA_TYPES.includes(result.contentType)) {
      return refuse(url, `not an image type served here: "${result.contentType}"`);
    }
    if (!looksLike(result.contentType, result.bytes)) {
      return refuse(url, `the bytes are not ${result.contentType}`);
    }
    negative.delete(url);
    keep(url, result.bytes, result.contentType);
    return { ok: true, bytes: result.bytes, contentType: result.contentType };
  }

  return {
    src(url) {
      if (!url) return null;
      const local = deps.localPathOf?.(url);
      if (local) return local;
      if (!mediaTargetOf(url).ok) return null;
      return `${options.path}?url=${encodeURIComponent(url)}&sig=${sign(url)}`;
    },

    async load({ url, sig }) {
      if (!url || !sig || url.length > 4096) {
        return {
          ok: false,
          status: 400,
          code: 'INVALID_REQUEST',
          message: 'Give `url` and `sig`.',
        };
      }
      if (!validSig(url, sig)) {
        return {
          ok: false,
          status: 403,
          code: 'FORBIDDEN',
          message: 'This node only serves images it links to itself.',
        };
      }
      const target = mediaTargetOf(url);
      if (!target.ok) return refuse(url, target.reason);
      const hit = cache.get(url);
      if (hit && hit.until <= now()) {
        cache.delete(url);
        cachedBytes -= hit.bytes.byteLength;
      } else if (hit) {
        // Most recently used last.
        cache.delete(url);
        cache.set(url, hit);
        return { ok: true, bytes: hit.bytes, contentType: hit.contentType };
      }
      if ((negative.get(url) ?? 0) > now()) {
        return { ok: false, status: 502, code: 'PEER_UNAVAILABLE', message: UNAVAILABLE };
      }
      const running = inflight.get(url);
      if (running) return running;
      const request = fetchImage(url, target.value.domain).finally(() => {
        if (inflight.get(url) === request) inflight.delete(url);
      });
      inflight.set(url, request);
      return request;
    },
  };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null);

/**
 * A copy of `data` in which every view that names an image (ActorView, ProfileView, MediaView,
 * LinkPreviewView, recognised by their members) also carries its proxied path (`avatarSrc`,
 * `headerSrc`, `src`, `imageSrc`). Pages load only those; the original URLs stay for links and
 * JSON endpoints.
 */
export function withMediaSrc<T>(
  data: T,
  src: (url: string | null | undefined) => string | null,
): T {
  const walk = (value: unknown, depth: number): unknown => {
    if (depth > 12) return value;
    if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1));
    if (!isPlainObject(value)) return value;
    // A statement prepared for the user to sign (`{action, targetDomain, body}`) goes out exactly
    // as prepared: a path added to its photos would be signed and then not match.
    if ('action' in value && 'targetDomain' in value && 'body' in value) return value;
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) out[key] = walk(member, depth + 1);
    if ('avatarUrl' in value && 'displayName' in value && 'address' in value) {
      out.avatarSrc = src(value.avatarUrl as string | null);
    }
    if ('actor' in value && 'headerUrl' in value) {
      out.headerSrc = src(value.headerUrl as string | null);
    }
    if ('url' in value && 'mimeType' in value && 'altText' in value) {
      out.src = src(value.url as string);
    }
    if ('url' in value && 'image' in value && 'title' in value && 'description' in value) {
      out.imageSrc = src(value.image as string | null);
    }
    return out;
  };
  return walk(data, 0) as T;
}
