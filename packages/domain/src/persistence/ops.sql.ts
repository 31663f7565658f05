import { Prisma } from '@swarm/db';
import { sqlStatement } from './catalog.ts';

// Health and metrics (ops/): read-only statements over migrations, the outbox and the registry,
// and the advisory locks that let one process at a time do a node-wide job.

const EXAMPLE_TIME = new Date('2026-01-01T00:00:00.000Z');

/** The database answers at all (readiness). */
export const pingSql = sqlStatement('ops.ping', [], () => Prisma.sql`SELECT 1`);

/** Whether the migration `head` finished, and how many migrations failed half-way. */
export const migrationStateSql = sqlStatement(
  'ops.migrationState',
  ['00000000000000_head'],
  (head: string) => Prisma.sql`
    SELECT bool_or(migration_name = ${head} AND finished_at IS NOT NULL) AS head,
           count(*) FILTER (WHERE finished_at IS NULL) AS failed
    FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
);

/** Outbox deliveries by status. */
export const outboxByStatusSql = sqlStatement(
  'ops.outboxByStatus',
  [],
  () => Prisma.sql`
    SELECT status::text AS state, count(*)::int AS n FROM outbox_deliveries GROUP BY status`,
);

/** The oldest pending delivery already due. */
export const oldestDueDeliverySql = sqlStatement(
  'ops.oldestDueDelivery',
  [EXAMPLE_TIME],
  (now: Date) => Prisma.sql`
    SELECT min(next_attempt_at) AS due FROM outbox_deliveries
    WHERE status = 'pending' AND next_attempt_at <= ${now}::timestamptz`,
);

/** Known nodes by state (active, inactive, unverified). */
export const nodesByStateSql = sqlStatement(
  'ops.nodesByState',
  [],
  () => Prisma.sql`
    SELECT CASE WHEN is_active THEN 'active' WHEN is_verified THEN 'inactive'
                ELSE 'unverified' END AS state, count(*)::int AS n
    FROM swarm_nodes GROUP BY 1`,
);

/** Waits for a transaction-scoped advisory lock (released at commit or rollback). */
export const advisoryXactLockSql = sqlStatement(
  'ops.advisoryXactLock',
  [1],
  (key: number) => Prisma.sql`SELECT 1 AS locked FROM pg_advisory_xact_lock(${key}::bigint)`,
);

/** Takes a transaction-scoped advisory lock if free: `locked` says whether it did. */
export const tryAdvisoryXactLockSql = sqlStatement(
  'ops.tryAdvisoryXactLock',
  [1],
  (key: number) => Prisma.sql`SELECT pg_try_advisory_xact_lock(${key}::bigint) AS locked`,
);

/**
 * Waits for a transaction-scoped advisory lock on a text key within a lock space (e.g. one per
 * node domain), released at commit or rollback.
 */
export const advisoryXactLockOnTextSql = sqlStatement(
  'ops.advisoryXactLockOnText',
  [1, 'example.test'],
  (space: number, key: string) => Prisma.sql`
    SELECT 1 AS locked FROM pg_advisory_xact_lock(${space}::int, hashtext(${key}))`,
);
