import { getRequestListener } from '@hono/node-server';
import type { Context } from 'hono';

// Why this exists: the node never swaps the global Response for @hono/node-server's lightweight
// one (the web app beside the gateway needs the platform's, issue 12), so every answer Hono
// builds is an undici Response whose body @hono/node-server must read back through a web stream
// before writing it. For an answer whose text we already hold (a cached public read), that
// read is most of the work of the request. Answers registered here are handed to the adapter
// as its own lightweight Response over the same status, headers and text, which it writes with
// one `writeHead` and one `end`. Nothing else changes: same bytes, same headers.

/** Answers whose whole body is this text (registered by the read cache). */
const texts = new WeakMap<Response, string>();

/** Marks `response` as carrying exactly `text` (it must: the bytes sent are `text`). */
export function withKnownText(response: Response, text: string): Response {
  texts.set(response, text);
  return response;
}

type ResponseClass = new (body: string, init: ResponseInit) => Response;

/**
 * @hono/node-server's lightweight Response class, which its request listener writes without a
 * stream. It is not exported: the listener installs it as the global `Response` when asked to,
 * so it is read from there once and the platform's globals are put back at once (nothing runs
 * in between). Undefined if that ever stops working: answers then go the ordinary way.
 */
function adapterResponseClass(): ResponseClass | undefined {
  const saved = {
    Request: Object.getOwnPropertyDescriptor(globalThis, 'Request'),
    Response: Object.getOwnPropertyDescriptor(globalThis, 'Response'),
  };
  const platform = globalThis.Response;
  let found: ResponseClass | undefined;
  try {
    getRequestListener(() => new platform(null), { overrideGlobalObjects: true });
    const installed = globalThis.Response as unknown;
    if (installed !== platform) found = installed as ResponseClass;
  } finally {
    for (const name of ['Request', 'Response'] as const) {
      const descriptor = saved[name];
      if (descriptor) Object.defineProperty(globalThis, name, descriptor);
    }
  }
  return found;
}

const AdapterResponse = adapterResponseClass();

/** `response`, or the adapter's lightweight twin when its text is known. */
export function forAdapter(response: Response): Response {
  const text = AdapterResponse && texts.get(response);
  if (text === undefined || !AdapterResponse) return response;
  return new AdapterResponse(text, { status: response.status, headers: response.headers });
}

type BodyFn = (
  data: string,
  arg?: unknown,
  headers?: Record<string, string | string[]>,
) => Response;

/**
 * Makes `c.json()` of this request mark its answer with its text, so the adapter writes it
 * without a stream too. Same answer as Hono's own `c.json()`: the body is
 * `JSON.stringify(object)` and `Content-Type: application/json` unless the caller's headers say
 * otherwise.
 */
export function markJsonAnswers(c: Context): void {
  const body = c.body as unknown as BodyFn;
  const json = (object: unknown, arg?: unknown, headers?: Record<string, string | string[]>) => {
    const text = JSON.stringify(object) as string | undefined;
    if (text === undefined) return body(text as unknown as string, arg, headers);
    return withKnownText(body(text, arg, { 'Content-Type': 'application/json', ...headers }), text);
  };
  c.json = json as unknown as typeof c.json;
}
