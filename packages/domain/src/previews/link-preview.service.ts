import { err, isLoopbackDomain, ok, type ErrorCode, type Result } from '@swarm/contract';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { describePeerError, mediaTargetOf, type PeerClient } from '../peers/index.ts';
import { createReadCache } from '../read-cache.ts';
import type { Refusal } from '../refusal.ts';
import type { Limits } from '../replicas/index.ts';
import { parseLinkMetadata } from './link-metadata.ts';

/**
 * Link previews (issue #14, docs/security.md "Link previews"): while a post is being written the
 * composer asks for the card of its first link. The page is fetched through the peer client
 * (SSRF guard, no private addresses; `https` only, plain `http` only for loopback hosts in
 * development mode; 5 s; 1 MiB), only HTML is read, its Open Graph / Twitter card / `<title>`
 * metadata becomes the card. Up to 3 redirects are followed, each hop vetted again. Results
 * (and failures, for less long) are cached per URL in a bounded cache, and each user's fetches
 * are rate-limited, so the feature cannot be used to make the node hammer a site.
 */
export const LINK_PREVIEW = {
  maxBytes: 1024 * 1024,
  timeoutMs: 5_000,
  maxRedirects: 3,
  cacheEntries: 1_000,
  cacheTtlMs: 60 * 60_000,
  failureTtlMs: 5 * 60_000,
  /** Fetches (not cache hits) per user: 20 a minute, 10 at once. */
  perUser: { points: 20, windowMs: 60_000, burst: 10 },
  maxUrlChars: 2048,
} as const;

export const HTML_TYPES = ['text/html', 'application/xhtml+xml'];

export interface LinkPreviewCard {
  /** The URL as asked (what the post links to), without its fragment. */
  url: string;
  title: string | null;
  description: string | null;
  image: string | null;
  siteName: string | null;
}

export type LinkPreviewErrorCode = Extract<
  ErrorCode,
  | 'INVALID_REQUEST'
  | 'FORBIDDEN'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'PEER_UNAVAILABLE'
>;

/** The one refusal type (../refusal.ts), its code narrowed to what previews answer. */
export type LinkPreviewError = Refusal<LinkPreviewErrorCode>;

export interface LinkPreviewService {
  /** The card of `url` for user `userId` (who is rate-limited), from the cache or the page. */
  preview(userId: string, url: string): Promise<Result<LinkPreviewCard, LinkPreviewError>>;
}

export interface LinkPreviewDeps {
  peers: Pick<PeerClient, 'getBytes'>;
  clock: Clock;
  logger: Logger;
  limits: Pick<Limits, 'take'>;
  options?: Partial<Pick<typeof LINK_PREVIEW, 'cacheEntries' | 'maxBytes' | 'timeoutMs'>>;
}

type Outcome = Result<LinkPreviewCard, LinkPreviewError>;

const fail = (code: LinkPreviewErrorCode, message: string) =>
  err<LinkPreviewError>({ code, message });

export function createLinkPreviewService(deps: LinkPreviewDeps): LinkPreviewService {
  const { peers, clock, logger, limits } = deps;
  const options = { ...LINK_PREVIEW, ...deps.options };
  const found = createReadCache<Outcome>({
    clock,
    ttlMs: options.cacheTtlMs,
    maxEntries: options.cacheEntries,
  });
  const failed = createReadCache<Outcome>({
    clock,
    ttlMs: options.failureTtlMs,
    maxEntries: options.cacheEntries,
  });

  async function fetchCard(asked: URL): Promise<Outcome> {
    let url = asked;
    for (let hop = 0; hop <= options.maxRedirects; hop++) {
      const result = await peers.getBytes(url.href, {
        maxBytes: options.maxBytes,
        timeoutMs: options.timeoutMs,
        accept: 'text/html, application/xhtml+xml;q=0.9',
      });
      if (!result.ok) {
        const error = result.reason;
        if (error.kind === 'redirect' && error.location && hop < options.maxRedirects) {
          const next = nextHop(url, error.location);
          if (!next.ok) return next;
          url = next.value;
          continue;
        }
        logger.info({ url: url.href.slice(0, 300), why: describePeerError(error) }, 'link preview');
        switch (error.kind) {
          case 'blocked_address':
            return fail('FORBIDDEN', PRIVATE_ADDRESS);
          case 'too_large':
            return fail(
              'PAYLOAD_TOO_LARGE',
              `That page is larger than ${Math.round(options.maxBytes / 1024)} KiB; no preview.`,
            );
          case 'timeout':
            return fail('PEER_UNAVAILABLE', 'That page did not answer in time; no preview.');
          case 'redirect':
            return fail('PEER_UNAVAILABLE', 'That page redirects too many times; no preview.');
          case 'http':
            return fail('PEER_UNAVAILABLE', `That page answered HTTP ${error.status}; no preview.`);
          default:
            return fail('PEER_UNAVAILABLE', 'That page could not be reached; no preview.');
        }
      }
      if (!HTML_TYPES.includes(result.contentType)) {
        return fail(
          'UNSUPPORTED_MEDIA_TYPE',
          `That link is not a web page (${result.contentType || 'no content type'}); previews are made of HTML pages only.`,
        );
      }
      const html = new TextDecoder('utf-8', { fatal: false }).decode(result.bytes);
      const meta = parseLinkMetadata(html, url.href);
      return ok({ url: asked.href, ...meta });
    }
    return fail('PEER_UNAVAILABLE', 'That page redirects too many times; no preview.');
  }

  return {
    async preview(userId, raw) {
      const target = targetOf(raw);
      if (!target.ok) return target;
      const key = target.value.href;
      const cached = found.get(key) ?? failed.get(key);
      if (cached) return cached;
      const running = found.pending(key);
      if (running) return (await running) ?? fail('PEER_UNAVAILABLE', 'No preview.');
      const allowed = await limits.take('link-preview-user', userId, options.perUser);
      if (!allowed.ok) {
        return err<LinkPreviewError>({
          code: 'RATE_LIMITED',
          message: `Too many link previews; try again in ${allowed.retryAfterSec} s.`,
          details: { retryAfterSec: allowed.retryAfterSec },
        });
      }
      let outcome: Outcome | undefined;
      await found.load(key, async () => {
        outcome = await fetchCard(target.value).catch((error: unknown) => {
          logger.warn({ err: error, url: key.slice(0, 300) }, 'link preview failed');
          return fail('PEER_UNAVAILABLE', 'That page could not be read; no preview.');
        });
        // Only successes stay an hour; failures go to the short-lived cache.
        return outcome.ok ? outcome : undefined;
      });
      outcome ??= found.get(key) ?? fail('PEER_UNAVAILABLE', 'No preview.');
      if (!outcome.ok && outcome.reason.code !== 'RATE_LIMITED') {
        await failed.load(key, () => Promise.resolve(outcome));
      }
      return outcome;
    },
  };
}

/** A URL this node may fetch for a preview, or a refusal a person can read. */
function targetOf(raw: string): Result<URL, LinkPreviewError> {
  const text = raw.trim();
  if (text.length === 0 || text.length > LINK_PREVIEW.maxUrlChars) {
    return fail('INVALID_REQUEST', 'Give one web address (https://…).');
  }
  const target = mediaTargetOf(text);
  if (!target.ok) {
    if (isLoopbackHost(text)) return fail('FORBIDDEN', PRIVATE_ADDRESS);
    return fail('INVALID_REQUEST', `No preview for that link: ${target.reason}.`);
  }
  return ok(target.value.url);
}

const PRIVATE_ADDRESS =
  'That link points to a private or local address; this node does not fetch it.';

function isLoopbackHost(raw: string): boolean {
  try {
    return isLoopbackDomain(new URL(raw).host);
  } catch {
    return false;
  }
}

function nextHop(from: URL, location: string): Result<URL, LinkPreviewError> {
  let next: string;
  try {
    next = new URL(location, from).href;
  } catch {
    return fail('PEER_UNAVAILABLE', 'That page redirects to an invalid address; no preview.');
  }
  const target = mediaTargetOf(next);
  if (!target.ok) {
    return fail('FORBIDDEN', `That page redirects to an address this node does not fetch.`);
  }
  return ok(target.value.url);
}
