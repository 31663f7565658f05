import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ERROR_STATUS, errorBody, type ErrorCode } from '@swarm/contract';

/** The one error shape of DESIGN.md §3, with the status its code stands for. */
export function errorResponse(c: Context, code: ErrorCode, error: string, details?: unknown) {
  return c.json(errorBody(code, error, details), ERROR_STATUS[code] as ContentfulStatusCode);
}

/**
 * A refusal of a domain service as the error body with its code's status, typed per status so
 * an OpenAPI handler's answers are checked against the responses its route declares.
 */
export function refusal<C extends ErrorCode>(c: Context, failure: { code: C; message: string }) {
  return c.json(
    errorBody(failure.code, failure.message),
    ERROR_STATUS[failure.code] as (typeof ERROR_STATUS)[C],
  );
}

/** The code of an error body for a bare HTTP status (a library's HTTPException without body). */
export function errorCodeForStatus(status: number): ErrorCode {
  const byStatus: Partial<Record<number, ErrorCode>> = {
    400: 'INVALID_REQUEST',
    401: 'UNAUTHORIZED',
    403: 'FORBIDDEN',
    404: 'NOT_FOUND',
    413: 'PAYLOAD_TOO_LARGE',
    415: 'UNSUPPORTED_MEDIA_TYPE',
    429: 'RATE_LIMITED',
  };
  return byStatus[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_REQUEST');
}
