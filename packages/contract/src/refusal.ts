import type { ErrorCode } from './errors.ts';
import { err } from './result.ts';

/**
 * The one error model of the node (docs/protocol.md): every expected failure of a service, an
 * account operation or a peer exchange is a `Refusal` value. Its `code` is one of the contract's
 * error codes (`ERROR_STATUS` in @swarm/contract, listed in docs/protocol.md), so every edge maps
 * it once and the same way: the gateway answers `{ error, code, details? }` with the code's status,
 * tRPC puts `code` and `field` in the error's `data`, the web app's JSON endpoints answer like
 * the gateway, and forms show the message next to `field`.
 *
 * `C` narrows the code where a route declares which answers it can give (the gateway's OpenAPI
 * handlers are type-checked against them); it is the same type everywhere.
 */
export interface Refusal<C extends ErrorCode = ErrorCode> {
  code: C;
  /** One sentence for a person; never internals. */
  message: string;
  /** The input field the refusal is about (a form shows the message next to it). */
  field?: string;
  /** Machine-readable extras (e.g. `retryAfterSec` of RATE_LIMITED). */
  details?: Record<string, unknown>;
}

/** A refusal as a value (`{ ok: false, reason }`). */
export function refuse<C extends ErrorCode>(
  code: C,
  message: string,
  extra: { field?: string; details?: Record<string, unknown> } = {},
): { ok: false; reason: Refusal<C> } {
  return err(refusal(code, message, extra));
}

/** A refusal object (to throw in a `RefusalError`, or a value built by hand). */
export function refusal<C extends ErrorCode>(
  code: C,
  message: string,
  extra: { field?: string; details?: Record<string, unknown> } = {},
): Refusal<C> {
  return {
    code,
    message,
    ...(extra.field === undefined ? {} : { field: extra.field }),
    ...(extra.details === undefined ? {} : { details: extra.details }),
  };
}

/**
 * A refusal thrown: inside `inTransaction` it rolls the transaction back and becomes the
 * answer; anywhere else the edges recognise it (tRPC's error formatter, the web app's JSON
 * endpoints) and answer it like the value.
 */
export class RefusalError<C extends ErrorCode = ErrorCode> extends Error {
  constructor(readonly refusal: Refusal<C>) {
    super(refusal.message);
    this.name = 'RefusalError';
  }
}

export function isRefusalError(error: unknown): error is RefusalError {
  return error instanceof RefusalError;
}
