import { Prisma } from '@swarm/db';
import { sqlStatement } from './catalog.ts';

// The delivery outbox (`outbox_deliveries`): claims, which must hold under concurrent workers
// and replicas (a typed Prisma update cannot lock-and-skip).

const EXAMPLE_TIME = new Date('2026-01-01T00:00:00.000Z');
const EXAMPLE_ID = '00000000-0000-0000-0000-000000000000';

/**
 * The claim: one UPDATE over due, unclaimed rows. The inner SELECT locks what it takes and
 * skips rows another transaction holds; the outer conditions are checked again on the locked
 * row version, so two claimers never both win a row.
 */
export const claimDueDeliveriesSql = sqlStatement(
  'delivery.claimDue',
  [EXAMPLE_TIME, EXAMPLE_TIME, 'worker', 10],
  (now: Date, until: Date, owner: string, limit: number) => Prisma.sql`
    UPDATE outbox_deliveries
    SET locked_until = ${until}::timestamptz, locked_by = ${owner}, updated_at = ${now}::timestamptz
    WHERE id IN (
        SELECT id FROM outbox_deliveries
        WHERE status = 'pending' AND next_attempt_at <= ${now}::timestamptz
          AND (locked_until IS NULL OR locked_until < ${now}::timestamptz)
        ORDER BY next_attempt_at, id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      AND status = 'pending'
      AND (locked_until IS NULL OR locked_until < ${now}::timestamptz)
    RETURNING id::text AS id`,
);

/** Claims one row for an immediate attempt; `revive` also takes a failed row back. */
export const claimDeliverySql = sqlStatement(
  'delivery.claimOne',
  [EXAMPLE_ID, EXAMPLE_TIME, EXAMPLE_TIME, 'worker', false],
  (id: string, now: Date, until: Date, owner: string, revive: boolean) => Prisma.sql`
    UPDATE outbox_deliveries
    SET locked_until = ${until}::timestamptz, locked_by = ${owner}, updated_at = ${now}::timestamptz,
        status = 'pending', next_attempt_at = LEAST(next_attempt_at, ${now}::timestamptz)
    WHERE id = ${id}::uuid
      AND (status = 'pending' OR (${revive} AND status = 'failed'))
      AND (locked_until IS NULL OR locked_until < ${now}::timestamptz)`,
);
