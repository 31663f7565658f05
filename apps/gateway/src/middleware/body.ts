import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { NUL_REFUSED, containsNul, errorBody, type Result, err, ok } from '@swarm/contract';
import { errorResponse } from '../errors.ts';
import { isWriteMethod, type SecurityEnv } from './security-env.ts';

// Bodies (DESIGN §3): application/json only, capped per endpoint, read once. Handlers parse JSON
// from the very bytes a node signature covers (`readJsonBody`), never from a second read.

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

/** Hono's bodyLimit, answering 413 PAYLOAD_TOO_LARGE with the error body. */
export function limitBody(maxBytes: number): MiddlewareHandler<SecurityEnv> {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: (c) =>
      errorResponse(c, 'PAYLOAD_TOO_LARGE', `The body is larger than ${maxBytes} bytes.`, {
        maxBytes,
      }),
  });
  return async (c, next) => {
    if (!isWriteMethod(c.req.method)) return next();
    c.set('bodyCap', maxBytes);
    return limit(c, next);
  };
}

/** The exact body bytes, read once and kept for the signature check and the handler. */
export async function readRawBody(c: Context<SecurityEnv>): Promise<Uint8Array> {
  const cached = c.get('rawBody');
  if (cached) return cached;
  const raw = new Uint8Array(await c.req.arrayBuffer());
  c.set('rawBody', raw);
  return raw;
}

/** JSON from bytes: UTF-8 (a leading BOM is dropped, as fetch does), then JSON.parse. */
export function parseJsonBytes(raw: Uint8Array): Result<unknown, string> {
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
  return ok(value);
}

/** 400 INVALID_REQUEST for malformed JSON; otherwise the parsed body is kept for the handler. */
export function parseJsonBody(): MiddlewareHandler<SecurityEnv> {
  return async (c, next) => {
    if (!isWriteMethod(c.req.method) || isBodilessDelete(c)) return next();
    const raw = await readRawBody(c);
    const cap = c.get('bodyCap');
    if (cap !== undefined && raw.length > cap) {
      return errorResponse(c, 'PAYLOAD_TOO_LARGE', `The body is larger than ${cap} bytes.`, {
        maxBytes: cap,
      });
    }
    const parsed = parseJsonBytes(raw);
    if (!parsed.ok) return errorResponse(c, 'INVALID_REQUEST', parsed.reason);
    c.set('jsonBody', parsed.value);
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
  const parsed = parseJsonBytes(await readRawBody(ctx));
  if (!parsed.ok) {
    throw new HTTPException(400, {
      res: Response.json(errorBody('INVALID_REQUEST', parsed.reason), { status: 400 }),
    });
  }
  ctx.set('jsonBody', parsed.value);
  return parsed.value;
}
