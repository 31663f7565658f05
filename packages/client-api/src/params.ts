import type { Result } from '@swarm/contract';
/**
 * The parameters of a client-API call as one record: apps send them in the query string, as a
 * form (urlencoded or multipart) or as JSON, and some mix the query string with a body. Rails
 * conventions apply to forms: a repeated key or `key[]` is a list.
 */

export type Params = Record<string, unknown>;

export type ParamsResult = Result<Params>;

function addEntry(params: Params, rawKey: string, value: unknown) {
  const list = rawKey.endsWith('[]');
  const key = list ? rawKey.slice(0, -2) : rawKey;
  const previous = params[key];
  if (list || previous !== undefined) {
    const items = Array.isArray(previous) ? previous : previous === undefined ? [] : [previous];
    params[key] = [...items, value];
  } else {
    params[key] = value;
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
