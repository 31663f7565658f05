/**
 * How a message's status reads for its sender: sending, "retrying, next in 3 min", sent,
 * delivered, read, "failed: not accepted". Pure, so server, browser and tests agree.
 */

export interface MessageStatusInfo {
  /** sending, retrying (sending after a failed attempt), sent, delivered, read, failed. */
  status: string;
  failureReason?: string | null;
  delivery?: { status: string; nextAttemptAt?: string | null } | null;
}

function inWords(ms: number): string {
  if (ms < 60_000) return `${Math.max(1, Math.ceil(ms / 1000))} s`;
  if (ms < 3_600_000) return `${Math.ceil(ms / 60_000)} min`;
  return `${Math.ceil(ms / 3_600_000)} h`;
}

export function messageStatusText(info: MessageStatusInfo, now: number = Date.now()): string {
  switch (info.status) {
    case 'failed':
      return `failed: ${info.failureReason || 'not delivered'}`;
    case 'sending':
    case 'retrying': {
      // The countdown is worked out here (not taken from the node's summary) so it moves while
      // the thread is open.
      const next = info.delivery?.nextAttemptAt ? Date.parse(info.delivery.nextAttemptAt) : NaN;
      if (info.status === 'retrying' || (info.delivery?.status === 'pending' && next > now)) {
        return next > now ? `retrying, next in ${inWords(next - now)}` : 'retrying now';
      }
      return 'sending';
    }
    default:
      return info.status;
  }
}

/** The outbox's reason once it stopped retrying a message its peer never answered. */
export const GAVE_UP_REASON = 'gave up after 48 h';

/**
 * Whether "Retry now" fits: the message waits for another attempt (its node did not answer), or
 * the outbox gave up on it for that reason. Refusals (not accepted, no such person, …) do not
 * change by sending again.
 */
export function canRetryNow(info: MessageStatusInfo, now: number = Date.now()): boolean {
  if (info.status === 'failed') {
    return info.failureReason === GAVE_UP_REASON && info.delivery?.status === 'failed';
  }
  return messageStatusText(info, now).startsWith('retrying');
}
