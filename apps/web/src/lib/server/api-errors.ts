import { refusalOf } from '@swarm/api';
import { ERROR_STATUS, errorBody, type ErrorCode } from '@swarm/contract';

// The web app's JSON endpoints answer failures with the error body of docs/protocol.md, Errors
// (`{ error, code, details? }`), like the gateway: a procedure's refusal keeps its own code
// (USER_NOT_FOUND stays USER_NOT_FOUND) and gets that code's status. This is the one mapping.

/** A JSON error answer `{ error, code }` with its status. */
export function errorJson(status: number, code: ErrorCode, message: string): Response {
  return Response.json({ error: message, code }, { status });
}

/**
 * A procedure's failure as an HTTP answer. Anything that is not an expected TRPCError is our
 * fault: 500 `INTERNAL`, with the details left to `log`.
 */
export function apiErrorResponse(
  error: unknown,
  options: { log?: (error: unknown) => void } = {},
): Response {
  const refusal = refusalOf(error);
  if (!refusal || refusal.code === 'INTERNAL') {
    options.log?.(error);
    const body = errorBody('INTERNAL', 'Something went wrong on this node; it has been logged.');
    return Response.json(body, { status: 500 });
  }
  return Response.json(errorBody(refusal.code, refusal.message, refusal.details), {
    status: ERROR_STATUS[refusal.code],
  });
}
