import { TRPCError } from '@trpc/server';
import { errorBody, type ErrorCode } from '@swarm/contract';

// The web app's JSON endpoints answer failures with the error body of DESIGN §3
// (`{ error, code }`); procedures fail with TRPCErrors. This is the one mapping between them.

type TrpcCode = TRPCError['code'];

const BY_TRPC_CODE: Partial<Record<TrpcCode, { status: number; code: ErrorCode | 'CONFLICT' }>> = {
  BAD_REQUEST: { status: 400, code: 'INVALID_REQUEST' },
  UNAUTHORIZED: { status: 401, code: 'UNAUTHORIZED' },
  FORBIDDEN: { status: 403, code: 'FORBIDDEN' },
  NOT_FOUND: { status: 404, code: 'NOT_FOUND' },
  CONFLICT: { status: 409, code: 'CONFLICT' },
  TOO_MANY_REQUESTS: { status: 429, code: 'RATE_LIMITED' },
  BAD_GATEWAY: { status: 502, code: 'PEER_UNAVAILABLE' },
  GATEWAY_TIMEOUT: { status: 504, code: 'PEER_TIMEOUT' },
  SERVICE_UNAVAILABLE: { status: 503, code: 'UNAVAILABLE' },
};

/** A JSON error answer `{ error, code }` with its status. */
export function errorJson(status: number, code: string, message: string): Response {
  return Response.json({ error: message, code }, { status });
}

/**
 * A procedure's failure as an HTTP answer. `notFoundCode` names what was missing (e.g.
 * `USER_NOT_FOUND`). Anything that is not an expected TRPCError is our fault: 500 `INTERNAL`,
 * with the details left to `log`.
 */
export function apiErrorResponse(
  error: unknown,
  options: { notFoundCode?: ErrorCode; log?: (error: unknown) => void } = {},
): Response {
  const mapped = error instanceof TRPCError ? BY_TRPC_CODE[error.code] : undefined;
  if (!mapped || !(error instanceof TRPCError)) {
    options.log?.(error);
    const body = errorBody('INTERNAL', 'Something went wrong on this node; it has been logged.');
    return Response.json(body, { status: 500 });
  }
  const code = mapped.status === 404 && options.notFoundCode ? options.notFoundCode : mapped.code;
  return errorJson(mapped.status, code, error.message);
}
