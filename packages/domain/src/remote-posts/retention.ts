import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { tryAdvisoryXactLockSql } from '../persistence/ops.sql.ts';
import {
  countStoredCopiesSql,
  deleteExpiredCopiesSql,
  deleteOldestCopiesSql,
} from '../persistence/remote-posts.sql.ts';
import type { RemoteReadMetrics } from './poller-ports.ts';

/**
 * The retention sweep (docs/architecture.md "Stored remote content", "Retention"): remote
 * copies (posts with an `apId` that the store fetched) are kept
 * - when someone here follows their author: at least the author's newest `keepPerAuthor`, and
 *   everything younger than `keepFollowedDays`;
 * - otherwise `keepOtherDays` after they were last fetched;
 * - always when someone here interacted with them (a like, a repost, a reply or a repost
 *   written here, a notification, a bookmark) or when they are a reply in a thread of a post
 *   written here,
 *   and when they were deleted here (the tombstone keeps a deleted copy from coming back);
 * and the whole store holds at most `maxCopies` (oldest-fetched unprotected copies go first).
 * Deletes go in batches of `batchSize`, at most `maxBatches` a sweep, each logged.
 */
export interface RetentionSweep {
  sweep(): Promise<RetentionReport>;
}

export interface RetentionReport {
  /** Copies past their retention, deleted. */
  expired: number;
  /** Copies deleted to bring the store under its size budget. */
  overBudget: number;
  /** Copies held after the sweep. */
  stored: number;
  /** Another replica was sweeping: this one did nothing. */
  skipped: boolean;
}

/** One sweep at a time across the node's processes (two would both cut the same excess). */
const SWEEP_LOCK_KEY = 0x52455441;

export interface RetentionOptions {
  keepPerAuthor: number;
  keepFollowedDays: number;
  keepOtherDays: number;
  maxCopies: number;
  batchSize: number;
  maxBatches: number;
}

export const RETENTION_DEFAULTS: RetentionOptions = {
  keepPerAuthor: 200,
  keepFollowedDays: 30,
  keepOtherDays: 7,
  maxCopies: 200_000,
  batchSize: 500,
  maxBatches: 20,
};

const DAY_MS = 24 * 60 * 60_000;

export function createRetentionSweep(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  metrics?: Pick<RemoteReadMetrics, 'observeRemoteCopiesDeleted'>;
  options?: Partial<RetentionOptions>;
}): RetentionSweep {
  const { db, clock, logger, metrics } = deps;
  const options = { ...RETENTION_DEFAULTS, ...deps.options };
  const prisma = db.prisma;

  const countStored = async () =>
    (await prisma.$queryRaw<{ n: number }[]>(countStoredCopiesSql()))[0]?.n ?? 0;

  /** Runs `fn` unless another process holds the sweep's lock (Postgres; PGlite is one process). */
  async function alone(fn: () => Promise<RetentionReport>): Promise<RetentionReport> {
    if (db.kind !== 'postgres') return fn();
    return prisma.$transaction(
      async (tx) => {
        const rows = await tx.$queryRaw<{ locked: boolean }[]>(
          tryAdvisoryXactLockSql(SWEEP_LOCK_KEY),
        );
        if (!rows[0]?.locked) return { expired: 0, overBudget: 0, stored: 0, skipped: true };
        return fn();
      },
      { maxWait: 10_000, timeout: 10 * 60_000 },
    );
  }

  async function sweepNow(): Promise<RetentionReport> {
    const report: RetentionReport = { expired: 0, overBudget: 0, stored: 0, skipped: false };
    const now = clock.now().getTime();
    const followedBefore = new Date(now - options.keepFollowedDays * DAY_MS);
    const otherBefore = new Date(now - options.keepOtherDays * DAY_MS);
    let batches = 0;
    while (batches < options.maxBatches) {
      batches += 1;
      const gone = await prisma.$queryRaw<{ id: string }[]>(
        deleteExpiredCopiesSql(
          followedBefore,
          otherBefore,
          options.keepPerAuthor,
          options.batchSize,
        ),
      );
      if (gone.length === 0) break;
      report.expired += gone.length;
      metrics?.observeRemoteCopiesDeleted('expired', gone.length);
      logger.info(
        { batch: batches, deleted: gone.length, total: report.expired },
        'retention: expired remote copies deleted',
      );
      if (gone.length < options.batchSize) break;
    }
    let stored = await countStored();
    while (stored > options.maxCopies && batches < options.maxBatches) {
      batches += 1;
      const excess = stored - options.maxCopies;
      const gone = await prisma.$queryRaw<{ id: string }[]>(
        deleteOldestCopiesSql(Math.min(excess, options.batchSize)),
      );
      if (gone.length === 0) break; // what is left is protected
      report.overBudget += gone.length;
      stored -= gone.length;
      metrics?.observeRemoteCopiesDeleted('budget', gone.length);
      logger.info(
        { batch: batches, deleted: gone.length, stored, budget: options.maxCopies },
        'retention: oldest remote copies deleted (over the size budget)',
      );
    }
    report.stored = stored;
    return report;
  }

  return { sweep: () => alone(sweepNow) };
}
