import type { Context } from 'hono';
import type { Params } from './params.ts';

/**
 * Paging of the accounts' lists (docs/clients.md "Paging"; `paging.ts` pages statuses): `limit`
 * (a default and a maximum per list; out-of-range values are clamped, as Mastodon does), `max_id` (older), `since_id` (newer,
 * newest first), `min_id` (the oldest of the newer ones), and a `Link` header with `next` (older)
 * and `prev` (newer) URLs that apps follow as they are.
 */

export function pageLimit(params: Params, bounds: { default: number; max: number }): number {
  const raw = params.limit;
  const n = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : bounds.default;
  return Math.min(Math.max(n, 1), bounds.max);
}

/** A string parameter, or undefined when absent or not a single string. */
export function textParam(params: Params, name: string): string | undefined {
  const value = params[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Sets `Link` for a page whose oldest and newest items have these cursors. */
export function setLinkHeader(
  c: Context,
  baseUrl: string,
  cursors: { oldest: string | null; newest: string | null },
  limit: number,
  keep: Record<string, string | string[]> = {},
) {
  const request = new URL(c.req.url);
  const link = (name: 'max_id' | 'min_id', value: string) => {
    const url = new URL(request.pathname, baseUrl);
    for (const [key, v] of Object.entries(keep)) {
      for (const item of Array.isArray(v) ? v : [v]) {
        url.searchParams.append(Array.isArray(v) ? `${key}[]` : key, item);
      }
    }
    url.searchParams.set('limit', String(limit));
    url.searchParams.set(name, value);
    return url.href;
  };
  const parts: string[] = [];
  if (cursors.oldest) parts.push(`<${link('max_id', cursors.oldest)}>; rel="next"`);
  if (cursors.newest) parts.push(`<${link('min_id', cursors.newest)}>; rel="prev"`);
  if (parts.length) c.header('Link', parts.join(', '));
}

/** A list parameter (`types[]=a&types[]=b`, `types=a`, or a JSON array). */
export function listParam(params: Params, name: string): string[] | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  const items = Array.isArray(value) ? value : [value];
  return items.filter((v): v is string => typeof v === 'string').slice(0, 100);
}
