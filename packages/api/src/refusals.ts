import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { errorCodeForStatus, RefusalError, type ErrorCode, type Result } from '@swarm/contract';
import type { Refusal } from '@swarm/domain';

// The tRPC edge of the one error model (@swarm/domain `Refusal`): the only table between the
// contract's error codes and tRPC's. A refusal travels as a TRPCError whose cause is the
// `RefusalError`, so nothing is lost: the error formatter puts `errorCode`, `field` and `details`
// in the error's `data`, and the web app's form actions and JSON endpoints read them back
// (`refusalOf`).

type TrpcCode = TRPCError['code'];

/** tRPC's name for each code; its HTTP status is the code's `ERROR_STATUS` (checked by a test). */
export const TRPC_CODE = {
  INVALID_REQUEST: 'BAD_REQUEST',
  UNAUTHORIZED: 'UNAUTHORIZED',
  INVALID_SIGNATURE: 'UNAUTHORIZED',
  PROFILE_MISMATCH: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NODE_BLOCKED: 'FORBIDDEN',
  NOT_FOLLOWED: 'FORBIDDEN',
  POST_NOT_FOUND: 'NOT_FOUND',
  USER_NOT_FOUND: 'NOT_FOUND',
  NOT_FOUND: 'NOT_FOUND',
  KEY_CONFLICT: 'CONFLICT',
  HANDLE_TAKEN: 'CONFLICT',
  MESSAGE_CONFLICT: 'CONFLICT',
  DELIVERY_CONFLICT: 'CONFLICT',
  IDEMPOTENCY_CONFLICT: 'CONFLICT',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_SUPPORTED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMITED: 'TOO_MANY_REQUESTS',
  STORAGE_FULL: 'PAYLOAD_TOO_LARGE',
  UPLOAD_QUOTA_EXCEEDED: 'TOO_MANY_REQUESTS',
  INTERNAL: 'INTERNAL_SERVER_ERROR',
  PEER_UNAVAILABLE: 'BAD_GATEWAY',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  PEER_TIMEOUT: 'GATEWAY_TIMEOUT',
} as const satisfies Record<ErrorCode, TrpcCode>;

/**
 * A refusal as the TRPCError a procedure throws (the refusal rides along as its cause):
 * `throw toTrpcError(refusal('NOT_FOUND', …))`.
 */
export function toTrpcError(refusal: Refusal): TRPCError {
  return new TRPCError({
    code: TRPC_CODE[refusal.code],
    message: refusal.message,
    cause: new RefusalError(refusal),
  });
}

/** The value of a service's answer, or its refusal thrown as a TRPCError. */
export function unwrap<T>(result: Result<T, Refusal>): T {
  if (result.ok) return result.value;
  throw toTrpcError(result.reason);
}

/**
 * The refusal a procedure's error stands for: the one it carries, or, for tRPC's own errors
 * (input validation, a missing procedure), the code of its HTTP status with the input member
 * the validation named as `field`. Undefined for anything that is not a TRPCError (a bug).
 */
export function refusalOf(error: unknown): Refusal | undefined {
  if (!(error instanceof TRPCError)) return undefined;
  if (error.cause instanceof RefusalError) return error.cause.refusal;
  const code: ErrorCode = errorCodeForStatus(getHTTPStatusCodeFromError(error));
  const field = inputFieldOf(error.cause);
  return { code, message: error.message, ...(field === undefined ? {} : { field }) };
}

/** The input member a failed input validation is about (its first issue's path). */
function inputFieldOf(cause: unknown): string | undefined {
  const issues = (cause as { issues?: unknown } | undefined)?.issues;
  if (!Array.isArray(issues)) return undefined;
  const path = (issues[0] as { path?: unknown } | undefined)?.path;
  if (!Array.isArray(path) || path.length === 0) return undefined;
  const first: unknown = path[0];
  const key = typeof first === 'object' && first !== null ? (first as { key: unknown }).key : first;
  return typeof key === 'string' ? key : undefined;
}

/** Seconds to wait before retrying, when `error` is a RATE_LIMITED refusal that says. */
export function retryAfterOf(error: unknown): number | undefined {
  const seconds = refusalOf(error)?.details?.retryAfterSec;
  return typeof seconds === 'number' ? seconds : undefined;
}
