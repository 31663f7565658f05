import type { PeerError } from '../peers/index.ts';
import { describePeerError, isRetryable } from '../peers/index.ts';
import type { DeliveryView } from '../views/index.ts';

/**
 * When the outbox retries and when it stops (docs/protocol.md "Delivery
 * and the outbox"). Pure functions of the row and the time, so the schedule is tested without a
 * network and the summary people read is computed the same way everywhere.
 */

/** First retry 30 s after a failed attempt, doubling each time… */
export const RETRY_BASE_MS = 30_000;
/** …up to one hour between attempts. */
export const RETRY_CAP_MS = 60 * 60_000;
/** ±20 % on every delay, so deliveries queued together do not retry in lockstep. */
export const RETRY_JITTER = 0.2;
/** Retryable failures are retried for at least this long after the delivery was made. */
export const GIVE_UP_AFTER_MS = 48 * 60 * 60_000;
export const GIVE_UP_REASON = 'gave up after 48 h';
/** `lastError` of a row held because its account was suspended after it was queued. */
export const HELD_SUSPENDED = 'held while the account is suspended';

/**
 * Delay before the next attempt after `attempts` failed ones (1 → ~30 s, 2 → ~1 min, … capped
 * at 1 h). A peer's `Retry-After` is honoured when it asks for longer, up to the cap.
 */
export function retryDelayMs(
  attempts: number,
  random: () => number = Math.random,
  retryAfterSec?: number,
): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 20);
  const base = Math.min(RETRY_BASE_MS * 2 ** exponent, RETRY_CAP_MS);
  const jittered = Math.round(base * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random()));
  const asked = retryAfterSec === undefined ? 0 : retryAfterSec * 1000;
  return Math.min(Math.max(jittered, asked), RETRY_CAP_MS);
}

/** What one failed attempt means for the row. */
export type FailureVerdict =
  | { final: false; status: number | null; error: string; retryAfterSec?: number }
  | { final: true; status: number | null; error: string };

/**
 * Timeouts, network errors, 5xx, 429 and answers that are not the expected JSON (the receiver
 * is idempotent, so sending again is safe) are retried; any other 4xx, a redirect or an address
 * the SSRF guard refuses is final.
 */
export function judgeFailure(error: PeerError): FailureVerdict {
  const status = error.kind === 'http' || error.kind === 'invalid_response' ? error.status : null;
  const retryable =
    isRetryable(error) || error.kind === 'invalid_response' || error.kind === 'too_large';
  if (retryable) {
    return {
      final: false,
      status,
      error: describePeerError(error),
      ...(error.kind === 'http' && error.retryAfter !== undefined
        ? { retryAfterSec: error.retryAfter }
        : {}),
    };
  }
  if (error.kind === 'http') {
    const reason = error.body ? humaniseCode(error.body.code) : `HTTP ${error.status}`;
    return { final: true, status, error: failureText(reason, error.body?.error) };
  }
  return { final: true, status, error: failureText('not sent', describePeerError(error)) };
}

/** `POST_NOT_FOUND` → `post not found`. */
export function humaniseCode(code: string): string {
  return code.toLowerCase().replace(/_+/g, ' ').trim() || 'refused';
}

/**
 * `lastError` of a failed row: a short reason people see after "failed: ", then the details an
 * admin wants (the peer's own sentence). The reason never contains ": ".
 */
export function failureText(reason: string, detail?: string): string {
  const short = reason.replaceAll(': ', ' ');
  return detail ? `${short}: ${detail}` : short;
}

/** The short reason of a failed row's `lastError`. */
export function failureReason(lastError: string | null): string {
  if (!lastError) return 'unknown error';
  const cut = lastError.indexOf(': ');
  return cut < 0 ? lastError : lastError.slice(0, cut);
}

/** `30 s`, `4 min`, `2 h`: rounded up, so "next in" never promises too early. */
export function formatWait(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  return `${Math.round(minutes / 60)} h`;
}

/** The fields of an outbox row the view needs (a Prisma row fits). */
export interface DeliveryRow {
  id: string;
  kind: string;
  targetDomain: string;
  status: DeliveryView['status'];
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  lastStatus: number | null;
  interactionId: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

/** For people: `queued`, `delivered`, `retrying, next in 4 min`, `failed: post not found`. */
export function deliverySummary(row: DeliveryRow, now: Date): string {
  switch (row.status) {
    case 'delivered':
      return 'delivered';
    case 'cancelled':
      return 'cancelled';
    case 'failed':
      return `failed: ${failureReason(row.lastError)}`;
    case 'pending': {
      if (row.attempts === 0) return 'queued';
      const wait = row.nextAttemptAt.getTime() - now.getTime();
      return wait <= 0 ? 'retrying now' : `retrying, next in ${formatWait(wait)}`;
    }
  }
}

export function toDeliveryView(row: DeliveryRow, now: Date): DeliveryView {
  return {
    id: row.id,
    kind: row.kind,
    targetDomain: row.targetDomain,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
    lastError: row.lastError,
    lastStatus: row.lastStatus,
    interactionId: row.interactionId,
    createdAt: row.createdAt.toISOString(),
    deliveredAt: row.deliveredAt ? row.deliveredAt.toISOString() : null,
    summary: deliverySummary(row, now),
  };
}

/**
 * The reason a sender sees next to a direct message that failed for good (docs/protocol.md
 * "Direct messages"): 403 → "not accepted", 404 → "no such person", another 4xx → the peer's own
 * sentence, the 48 h limit → "gave up after 48 h", anything else → the short reason.
 */
export function messageFailureReason(httpStatus: number | null, lastError: string): string {
  if (failureReason(lastError) === GIVE_UP_REASON) return GIVE_UP_REASON;
  if (httpStatus === 403) return 'not accepted';
  if (httpStatus === 404) return 'no such person';
  const cut = lastError.indexOf(': ');
  if (httpStatus !== null && httpStatus >= 400 && httpStatus < 500 && cut >= 0) {
    return lastError.slice(cut + 2);
  }
  return failureReason(lastError);
}
