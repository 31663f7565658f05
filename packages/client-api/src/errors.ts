import type { Context } from 'hono';
import {
  ERROR_STATUS,
  errorCodeForStatus,
  type ClientApiError,
  type ErrorCode,
  type Refusal,
} from '@swarm/contract';

/**
 * Mastodon's error answer, `{ error }` with the status. It carries the contract's `code` too, as
 * every other JSON answer of the node does; Mastodon clients read `error` and ignore the rest.
 */
export function apiError(
  c: Context,
  status: number,
  error: string,
  options: { code?: ErrorCode; headers?: Record<string, string> } = {},
) {
  const code = options.code ?? (status === 422 ? 'INVALID_REQUEST' : errorCodeForStatus(status));
  return c.json<ClientApiError & { code: ErrorCode }>(
    { error, code },
    status as 400,
    options.headers,
  );
}

/**
 * A domain or auth refusal as Mastodon answers it: invalid input is a 422 (Mastodon's
 * validation failure), a throttle a 429 with Retry-After; other codes keep their status.
 */
export function refusalAnswer(c: Context, refused: Refusal) {
  const { code } = refused;
  if (code === 'RATE_LIMITED') {
    const retryAfter = Number(refused.details?.retryAfterSec ?? 60);
    return apiError(c, 429, refused.message, {
      code,
      headers: { 'retry-after': String(retryAfter) },
    });
  }
  const status = code === 'INVALID_REQUEST' ? 422 : ERROR_STATUS[code];
  return apiError(c, status, refused.message, { code });
}
