import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ERROR_STATUS, errorBody, type ErrorCode } from '@swarm/contract';
import type { Refusal } from '@swarm/domain';

/** The one error shape (docs/protocol.md, Errors), with the status its code stands for. */
export function errorResponse(c: Context, code: ErrorCode, error: string, details?: unknown) {
  return c.json(errorBody(code, error, details), ERROR_STATUS[code] as ContentfulStatusCode);
}

/**
 * The gateway's one mapping of the error model: answers a `Refusal` with the error body and its
 * code's status, typed per status so an OpenAPI handler's answers are checked against the
 * responses its route declares.
 */
export function sendRefusal<C extends ErrorCode>(c: Context, failure: Refusal<C>) {
  return c.json(
    errorBody(failure.code, failure.message, failure.details),
    ERROR_STATUS[failure.code] as (typeof ERROR_STATUS)[C],
  );
}

export { errorCodeForStatus } from '@swarm/contract';
