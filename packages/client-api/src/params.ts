import type { Result } from '@swarm/contract';
/**
 * The parameters of a client-API call as one record: apps send them in the query string, as a
 * form (urlencoded or multipart) or as JSON, and some mix the query string with a body. Rails
 * conventions apply to forms and query strings: a repeated key or `key[]` is a list, and
 * `a[b][c]=v` is the record `{a: {b: {c: v}}}` (JSON bodies send such records as they are).
 */

export type Params = Record<string, unknown>;

export type ParamsResult = Result<Params>;

/** `a[b][c]` → `['a', 'b', 'c']`; a key that is not of that form is one name. */
function pathOf(key: string): string[] {
  const match = /^([^[\]]+)((?:\[[^[\]]+\])+)$/.exec(key);
  if (!match) return [key];
  return [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]+)\]/g)].map((m) => m[1]!)];
}

/** Nested records are plain objects made here, never a prototype a key could name. */
function childRecord(parent: Params, key: string): Params | null {
  const existing = Object.hasOwn(parent, key) ? parent[key] : undefined;
  if (existing === undefined) {
    const created: Params = Object.create(null) as Params;
    parent[key] = created;
    return created;
  }
  return existing !== null && typeof existing === 'object' && !Array.isArray(existing)
    ? (existing as Params)
    : null;
}

/** Names that would reach an object's prototype rather than a field of it. */
const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);

function addEntry(params: Params, rawKey: string, value: unknown) {
  const list = rawKey.endsWith('[]');
  const path = pathOf(list ? rawKey.slice(0, -2) : rawKey);
  if (path.some((name) => UNSAFE.has(name))) return;
  let target: Params | null = params;
  // Rails' nested keys (`subscription[keys][auth]`): a record per bracket.
  for (const name of path.slice(0, -1)) {
    target = childRecord(target, name);
    if (!target) return; // `a=1&a[b]=2`: the nested one cannot be placed; it is dropped
  }
  const key = path[path.length - 1]!;
  const previous = Object.hasOwn(target, key) ? target[key] : undefined;
  if (list || previous !== undefined) {
    const items = Array.isArray(previous) ? previous : previous === undefined ? [] : [previous];
    target[key] = [...items, value];
  } else {
    target[key] = value;
  }
}

function fromEntries(entries: Iterable<[string, unknown]>): Params {
  const params: Params = {};
  for (const [key, value] of entries) addEntry(params, key, value);
  return params;
}

/** Query string first, then the body's fields over it. */
export async function readParams(request: Request): Promise<ParamsResult> {
  const query = fromEntries(new URL(request.url).searchParams.entries());
  if (request.method === 'GET' || request.method === 'HEAD') return { ok: true, value: query };
  const type = (request.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
  try {
    if (type === 'application/json') {
      const text = await request.text();
      if (text.trim() === '') return { ok: true, value: query };
      const body: unknown = JSON.parse(text);
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        return { ok: false, reason: 'The JSON body must be an object.' };
      }
      return { ok: true, value: { ...query, ...(body as Params) } };
    }
    if (type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data') {
      const form = await request.formData();
      const fields = [...form.entries()].filter(([, v]) => typeof v === 'string');
      return { ok: true, value: { ...query, ...fromEntries(fields) } };
    }
  } catch {
    return { ok: false, reason: 'The request body could not be read.' };
  }
  return { ok: true, value: query };
}

/**
 * A boolean as apps send one: JSON true or false, or in a form or query string `true`, `false`,
 * `1`, `0`, `on`, `off` or empty (false); undefined for anything else.
 */
export function booleanValue(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  const text = value.toLowerCase();
  if (['true', '1', 'on'].includes(text)) return true;
  if (['false', '0', 'off', ''].includes(text)) return false;
  return undefined;
}
