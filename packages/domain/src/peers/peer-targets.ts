import { baseUrlForDomain, err, ok, parseDomain, type Result } from '@swarm/contract';
import type { PeerError } from './peer-errors.ts';

// Absolute URLs the peer client fetches or posts to (media, link previews, Web Push endpoints)
// rather than a peer's API paths, and what such requests answer.

/** The status a POST of bytes was answered with, or why there was none. */
export type PeerStatusResult =
  { ok: true; status: number; ms: number } | { ok: false; reason: PeerError; ms: number };

/** An answer's bytes and its declared content type (lower-case, without parameters). */
export type PeerBytesResult =
  | { ok: true; bytes: Uint8Array; contentType: string; status: number; ms: number }
  | { ok: false; reason: PeerError; ms: number };

/** The host and URL of an absolute http(s) URL a node may fetch, or why not. */
export function mediaTargetOf(raw: string): Result<{ domain: string; url: URL }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return err('not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return err('not an http(s) URL');
  if (url.username || url.password) return err('a URL with credentials');
  const domain = parseDomain(url.host);
  if (!domain.ok) return err(`not a host this node can contact: ${domain.reason}`);
  const expected = new URL(baseUrlForDomain(domain.value)).protocol;
  if (url.protocol !== expected) return err(`only ${expected}// URLs are fetched for this host`);
  url.hash = '';
  return ok({ domain: domain.value, url });
}
