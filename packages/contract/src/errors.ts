import { z } from 'zod';

/** Error codes (docs/protocol.md, Errors), with the HTTP status each one is answered with. */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401, // admin authentication missing or wrong
  INVALID_SIGNATURE: 401,
  PROFILE_MISMATCH: 401, // a peer known to speak our profile sent a request in the origin profile's format
  FORBIDDEN: 403,
  NODE_BLOCKED: 403,
  NOT_FOLLOWED: 403, // a post pushed for an author nobody here follows (and no copy to refresh)
  POST_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  NOT_FOUND: 404,
  KEY_CONFLICT: 409,
  HANDLE_TAKEN: 409, // admin API: creating a user whose handle exists
  MESSAGE_CONFLICT: 409, // direct messages: a known message id with different content
  DELIVERY_CONFLICT: 409, // outbox: the delivery is delivered, cancelled or being sent right now
  IDEMPOTENCY_CONFLICT: 409, // client API: a retry whose Idempotency-Key's first request still runs
  METHOD_NOT_ALLOWED: 405, // the endpoint exists but does not answer this HTTP method
  PAYLOAD_TOO_LARGE: 413,
  STORAGE_FULL: 413, // uploads: the node's storage budget has no room for this file
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  UPLOAD_QUOTA_EXCEEDED: 429, // uploads: the account's bytes of the last 24 hours are used up
  INTERNAL: 500,
  PEER_UNAVAILABLE: 502,
  UNAVAILABLE: 503, // this node's database is unreachable (outage, restart); try again
  PEER_TIMEOUT: 504,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as readonly ErrorCode[];

/** The code of an error answer for a bare HTTP status (a library's error that carries none). */
export function errorCodeForStatus(status: number): ErrorCode {
  const byStatus: Partial<Record<number, ErrorCode>> = {
    400: 'INVALID_REQUEST',
    401: 'UNAUTHORIZED',
    403: 'FORBIDDEN',
    404: 'NOT_FOUND',
    405: 'METHOD_NOT_ALLOWED',
    413: 'PAYLOAD_TOO_LARGE',
    415: 'UNSUPPORTED_MEDIA_TYPE',
    429: 'RATE_LIMITED',
    502: 'PEER_UNAVAILABLE',
    503: 'UNAVAILABLE',
    504: 'PEER_TIMEOUT',
  };
  return byStatus[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_REQUEST');
}

export const errorCodeSchema = z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]);

/**
 * Every non-2xx answer: `{ error, code, details? }`. When reading a peer's error the code is any
 * UPPER_SNAKE word (other implementations have their own); what we send uses `ErrorCode`.
 */
export const errorBodySchema = z.object({
  error: z.string(),
  code: z
    .string()
    .regex(/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/, { message: 'code must be UPPER_SNAKE' }),
  details: z.unknown().optional(),
});

export type ErrorBody = z.output<typeof errorBodySchema>;

export function errorBody(
  code: ErrorCode,
  error: string,
  details?: unknown,
): ErrorBody & { code: ErrorCode } {
  return details === undefined ? { error, code } : { error, code, details };
}
