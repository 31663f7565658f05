import { baseUrlForDomain, type Result } from '@swarm/contract';
import type { ApiIdPage } from '@swarm/domain';
import { formatApiId, parseApiId } from './ids.ts';
import type { Params } from './params.ts';

/**
 * Paging as Mastodon apps do it: `limit` (clamped to the endpoint's maximum, as Mastodon does),
 * and `max_id` / `since_id` / `min_id` over `api_id`s; the answer's `Link` header names the next
 * page (`max_id` of the last item) and the previous one (`min_id` of the first), on this node's
 * address with the request's other parameters kept.
 */

export interface LimitBounds {
  default: number;
  max: number;
}

export const TIMELINE_LIMIT: LimitBounds = { default: 20, max: 40 };
export const ACCOUNT_LIST_LIMIT: LimitBounds = { default: 40, max: 80 };

const INTEGER = /^-?\d{1,9}$/;

/** `limit` as given (a number or a decimal string), clamped; a value that is no number: 422. */
export function readLimit(params: Params, bounds: LimitBounds): Result<number> {
  const raw = params.limit;
  if (raw === undefined || raw === '') return { ok: true, value: bounds.default };
  const value =
    typeof raw === 'number'
      ? raw
      : typeof raw === 'string' && INTEGER.test(raw)
        ? Number(raw)
        : NaN;
  if (!Number.isInteger(value)) return { ok: false, reason: 'limit must be a whole number' };
  return { ok: true, value: Math.min(Math.max(1, value), bounds.max) };
}

/** The paging of an `api_id` list; an id in no form of ours is a 422 (it cannot page anything). */
export function readApiIdPage(params: Params, bounds: LimitBounds): Result<ApiIdPage> {
  const limit = readLimit(params, bounds);
  if (!limit.ok) return limit;
  const page: ApiIdPage = { limit: limit.value };
  for (const [name, key] of [
    ['max_id', 'maxId'],
    ['since_id', 'sinceId'],
    ['min_id', 'minId'],
  ] as const) {
    const raw = params[name];
    if (raw === undefined || raw === '') continue;
    const id = parseApiId(typeof raw === 'number' ? String(raw) : raw);
    if (id === null) return { ok: false, reason: `${name} is not an id of this node` };
    page[key] = id;
  }
  return { ok: true, value: page };
}

/** The `Link` header of a page whose items run from `first` to `last` (null when empty). */
export function linkHeader(
  domain: string,
  request: Request,
  cursors: { next: string; prev: string } | null,
): string | null {
  if (!cursors) return null;
  const url = new URL(request.url);
  const base = `${baseUrlForDomain(domain)}${url.pathname}`;
  const kept = [...url.searchParams.entries()].filter(
    ([key]) => !['max_id', 'since_id', 'min_id'].includes(key),
  );
  const link = (key: string, value: string) => {
    const query = new URLSearchParams([...kept, [key, value]]);
    return `<${base}?${query.toString()}>`;
  };
  return `${link('max_id', cursors.next)}; rel="next", ${link('min_id', cursors.prev)}; rel="prev"`;
}

/** The cursors of a page of statuses, newest first. */
export function statusCursors(
  items: readonly { apiId: bigint }[],
): { next: string; prev: string } | null {
  if (items.length === 0) return null;
  return {
    next: formatApiId(items[items.length - 1]!.apiId),
    prev: formatApiId(items[0]!.apiId),
  };
}
