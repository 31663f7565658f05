import type { Logger } from '../logger.ts';
import { isDatabaseUnavailableError } from './database-errors.ts';

/**
 * Logs repeated failures of one kind (the database is unreachable, a background job fails the
 * same way) once per interval instead of once per request: the first occurrence is logged with
 * its error, later ones are counted and the count is logged with the next line. When the kind
 * recovers, one line says so.
 */
export interface FailureLog {
  /** One failure of `kind`; logged at error level unless one was logged less than an interval ago. */
  report(kind: string, error: unknown, fields?: Record<string, unknown>): void;
  /** The kind works again: logged once (at info) if failures were reported since. */
  recovered(kind: string): void;
  /** Whether `kind` had failures since it last recovered. */
  failing(kind: string): boolean;
}

export const FAILURE_LOG_INTERVAL_MS = 60_000;

export function createFailureLog(deps: {
  logger: Logger;
  intervalMs?: number;
  /** Milliseconds, monotonic enough for spacing log lines (default Date.now). */
  now?: () => number;
}): FailureLog {
  const intervalMs = deps.intervalMs ?? FAILURE_LOG_INTERVAL_MS;
  const now = deps.now ?? Date.now;
  const state = new Map<string, { lastLoggedAt: number; suppressed: number; total: number }>();
  return {
    report(kind, error, fields = {}) {
      const t = now();
      const entry = state.get(kind);
      if (entry && t - entry.lastLoggedAt < intervalMs) {
        entry.suppressed += 1;
        entry.total += 1;
        return;
      }
      const suppressed = entry?.suppressed ?? 0;
      const total = (entry?.total ?? 0) + 1;
      state.set(kind, { lastLoggedAt: t, suppressed: 0, total });
      deps.logger.error(
        { ...fields, err: error, failure: kind, suppressed, failuresSoFar: total },
        `${kind}: ${summary(error)}` +
          (suppressed > 0 ? ` (${suppressed} more since the last line)` : ''),
      );
    },
    recovered(kind) {
      const entry = state.get(kind);
      if (!entry) return;
      state.delete(kind);
      deps.logger.info({ failure: kind, failures: entry.total }, `${kind}: recovered`);
    },
    failing: (kind) => state.has(kind),
  };
}

/** The last non-empty line of an error's message (Prisma puts the cause there), shortened. */
function summary(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1);
  return (line ?? 'unknown error').slice(0, 200);
}

/** The failure kind for an unreachable database (one line per interval for all of them). */
export const DATABASE_UNAVAILABLE = 'database unavailable';

/**
 * A background job's step failed: an unreachable database counts as DATABASE_UNAVAILABLE (one
 * line per interval for the whole outage), anything else under the job's own name.
 */
export function reportJobFailure(
  node: { logger: Logger; failures?: FailureLog },
  job: string,
  error: unknown,
): void {
  if (!node.failures) {
    node.logger.error({ err: error }, job);
    return;
  }
  node.failures.report(isDatabaseUnavailableError(error) ? DATABASE_UNAVAILABLE : job, error, {
    job,
  });
}

/** `Retry-After` (seconds) of a 503 UNAVAILABLE answered during a database outage. */
export const UNAVAILABLE_RETRY_AFTER_S = 5;
