import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { LIMITS, NUL_REFUSED, containsNul, errorBody, type Result, err, ok } from '@swarm/contract';
import { errorResponse } from '../errors.ts';
import { isWriteMethod, type SecurityEnv } from './security-env.ts';

// Bodies (docs/protocol.md, "Limits and rate limits"): application/json only, capped per endpoint,
// read once. Handlers parse JSON from the very bytes a node signature covers (`readJsonBody`),
// never from a second read.

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A DELETE names its target in the path; it needs no body, and one without a body is fine. */
function isBodilessDelete(c: Context): boolean {
  if (c.req.method !== 'DELETE') return false;
  const length = c.req.header('content-length');
  return !c.req.header('transfer-encoding') && (length === undefined || length === '0');
}

/** 415 UNSUPPORTED_MEDIA_TYPE unless the body is declared `application/json`. */
export function jsonOnly(): MiddlewareHandler<SecurityEnv> {
  return async (c, next) => {
    if (!isWriteMethod(c.req.method) || isBodilessDelete(c)) return next();
    const type = (c.req.header('content-type') ?? '').split(';', 1)[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      return errorResponse(
        c,
        'UNSUPPORTED_MEDIA_TYPE',
        'The body must be JSON, sent as Content-Type: application/json.',
      );
    }
    return next();
  };
}

function tooLarge(maxBytes: number): HTTPException {
  const body = errorBody('PAYLOAD_TOO_LARGE', `The body is larger than ${maxBytes} bytes.`, {
    maxBytes,
  });
  return new HTTPException(413, { res: Response.json(body, { status: 413 }) });
}

/**
 * The route's body cap: a declared Content-Length over it is refused before reading (413
 * PAYLOAD_TOO_LARGE); `readRawBody` holds any body, chunked ones too, to the same cap.
 */
export function limitBody(maxBytes: number): MiddlewareHandler<SecurityEnv> {
  return async (c, next) => {
    if (!isWriteMethod(c.req.method)) return next();
    c.set('bodyCap', maxBytes);
    const declared = Number(c.req.header('content-length'));
    if (declared > maxBytes) throw tooLarge(maxBytes);
    return next();
  };
}

/** Reads a stream of chunks to its end, or throws 413 as soon as it passes `cap` bytes. */
async function readCapped(chunks: AsyncIterable<Uint8Array>, cap: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    if (size > cap) throw tooLarge(cap);
    parts.push(chunk);
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/**
 * The Node request behind the context when node:http serves it (@hono/node-server puts it in
 * `c.env`) and nobody has started reading it.
 */
function unreadIncoming(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming && incoming.readableFlowing === null && !incoming.readableEnded
    ? incoming
    : undefined;
}

/**
 * The exact body bytes, read once (413 past the route's cap) and kept for the signature check
 * and the handler. Served by node:http, they come straight from the Node request: asking Hono
 * for them there builds a fetch Request over a web stream of it, which capped any POST at about
 * 2,600 a second on the benchmark machine (docs/benchmarks.md).
 */
export async function readRawBody(c: Context<SecurityEnv>): Promise<Uint8Array> {
  const cached = c.get('rawBody');
  if (cached) return cached;
  const cap = c.get('bodyCap') ?? LIMITS.gossipBodyBytes;
  const incoming = unreadIncoming(c);
  // Stopping early must not destroy the Node request (that resets the socket before the 413
  // is sent); @hono/node-server drains what is left once the answer is out.
  const chunks = incoming
    ? incoming.iterator({ destroyOnReturn: false })
    : (c.req.raw.body ?? noChunks());
  const raw = await readCapped(chunks, cap);
  c.set('rawBody', raw);
  return raw;
}

async function* noChunks(): AsyncIterable<Uint8Array> {}

/**
 * Hands Hono the body text we decoded, so its `json()` (the validators') neither reads the body
 * again nor rebuilds it through a fetch Response. Hono keeps promises there, typed as values.
 */
function primeHonoText(c: Context, text: string) {
  (c.req.bodyCache as Record<string, Promise<unknown>>).text = Promise.resolve(text);
}

/** JSON and its text from bytes: UTF-8 (a leading BOM dropped, as fetch does), then JSON.parse. */
function decodeJson(raw: Uint8Array): Result<{ text: string; value: unknown }, string> {
  let text: string;
  try {
    text = strictUtf8.decode(raw);
  } catch {
    return err('The body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    return err(`The body is not valid JSON: ${(error as Error).message}`);
  }
  // A NUL can only arrive as the escape `\u0000` (raw control characters are not JSON), so
  // bodies without one skip the walk.
  if (text.includes('\\u0000') && containsNul(value)) return err(NUL_REFUSED);
  return ok({ text, value });
}

/** 400 INVALID_REQUEST for malformed JSON; otherwise the parsed body is kept for the handler. */
export function parseJsonBody(): MiddlewareHandler<SecurityEnv> {
  return async (c, next) => {
    if (!isWriteMethod(c.req.method) || isBodilessDelete(c)) return next();
    const parsed = decodeJson(await readRawBody(c));
    if (!parsed.ok) return errorResponse(c, 'INVALID_REQUEST', parsed.reason);
    keepJson(c, parsed.value);
    return next();
  };
}

/**
 * The request's JSON body, parsed from the same bytes that were signed. Use it in handlers
 * (then validate with the contract's schema). Malformed JSON throws a 400 with the error body
 * (only reachable when `parseJsonBody()` is not mounted for the route).
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  const ctx = c as unknown as Context<SecurityEnv>;
  if ('jsonBody' in (ctx.var as object)) return ctx.get('jsonBody');
  const parsed = decodeJson(await readRawBody(ctx));
  if (!parsed.ok) {
    throw new HTTPException(400, {
      res: Response.json(errorBody('INVALID_REQUEST', parsed.reason), { status: 400 }),
    });
  }
  keepJson(ctx, parsed.value);
  return parsed.value.value;
}

/** The parsed body for handlers, its text for Hono's validators. */
function keepJson(c: Context<SecurityEnv>, json: { text: string; value: unknown }) {
  c.set('jsonBody', json.value);
  primeHonoText(c, json.text);
}
