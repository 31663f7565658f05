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

/** A bare refusal (to put in a result by hand, or to carry in an error at the tRPC edge). */
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
 * A refusal carried by an exception, at the tRPC edge only: `toTrpcError` puts it as the
 * TRPCError's cause so the error formatter and the web app's forms read it back whole. Services
 * and transactions never throw it: they return refusals (`commitIfOk` rolls back on one).
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
