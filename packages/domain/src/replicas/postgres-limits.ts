import type pg from 'pg';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { bucketShape, retryAfterSec, type Limits } from './limits.ts';

/** Rows whose bucket is full again are deleted at most this often (per process). */
const PRUNE_EVERY_MS = 60_000;

// One statement per take, atomic under concurrent replicas: the upsert locks the row, and every
// SET expression reads the row as it was before this take. $1 name, $2 key, $3 now (ms on the
// node's clock), $4 capacity, $5 refill per ms, $6 one request's cost (units, integers).
// Same arithmetic as `takeFromBucket`.
const REFILLED = 'LEAST($4::bigint, b.units + GREATEST(0, $3::bigint - b.updated_at) * $5::bigint)';
const LEFT = `CASE WHEN ${REFILLED} >= $6::bigint THEN ${REFILLED} - $6::bigint ELSE ${REFILLED} END`;
const TAKE_SQL = `
INSERT INTO rate_limit_bucket AS b (name, key, units, updated_at, full_at, granted)
VALUES ($1, $2, $4::bigint - $6::bigint, $3::bigint,
        $3::bigint + CEIL($6::numeric / $5::bigint)::bigint, true)
ON CONFLICT (name, key) DO UPDATE SET
  granted = ${REFILLED} >= $6::bigint,
  units = ${LEFT},
  updated_at = GREATEST(b.updated_at, $3::bigint),
  full_at = GREATEST(b.updated_at, $3::bigint)
    + CEIL(($4::bigint - (${LEFT}))::numeric / $5::bigint)::bigint
RETURNING granted, units`;

/**
 * Buckets in the node's Postgres database (table `rate_limit_bucket`), shared by every gateway
 * and web process on it. A row whose bucket is full again means the same as no row: such rows
 * are pruned once a minute, so the table holds only the keys that were busy lately.
 */
export function createPostgresLimits(deps: {
  pool: pg.Pool;
  clock: Clock;
  logger: Logger;
}): Limits {
  const { pool, clock, logger } = deps;
  let lastPrune = -Infinity;

  function prune(now: number) {
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    pool
      .query('DELETE FROM rate_limit_bucket WHERE full_at <= $1', [now])
      .catch((err: unknown) => logger.warn({ err }, 'could not prune rate-limit buckets'));
  }

  return {
    store: 'postgres',
    async take(name, key, rule) {
      const now = Math.floor(clock.now().getTime());
      const { cost, capacity, perMs } = bucketShape(rule);
      const { rows } = await pool.query<{ granted: boolean; units: string }>(TAKE_SQL, [
        name,
        key,
        now,
        capacity,
        perMs,
        cost,
      ]);
      prune(now);
      const row = rows[0]!;
      return row.granted
        ? { ok: true }
        : { ok: false, retryAfterSec: retryAfterSec(Number(row.units), rule) };
    },
    async reset(name, key) {
      await pool.query('DELETE FROM rate_limit_bucket WHERE name = $1 AND key = $2', [name, key]);
    },
    async close() {},
  };
}
