import type pg from 'pg';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import {
  bucketShape,
  remainingOf,
  retryAfterSec,
  type LimitResult,
  type LimitRule,
  type Limits,
} from './limits.ts';

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

// The same bucket taken $7 times at one instant (requests that arrived in one turn): all granted
// when the refilled bucket holds $7 requests' cost, and then taken; else nothing is taken (the
// refill is kept, as a refused take keeps it) and the takes go one by one. Either way the
// outcome is that of $7 takes in a row.
const ALL = '$6::bigint * $7::bigint';
const ENOUGH = `${REFILLED} >= ${ALL}`;
const LEFT_ALL = `CASE WHEN ${ENOUGH} THEN ${REFILLED} - ${ALL} ELSE ${REFILLED} END`;
const FRESH_LEFT = `CASE WHEN $4::bigint >= ${ALL} THEN $4::bigint - ${ALL} ELSE $4::bigint END`;
const TAKE_ALL_SQL = `
INSERT INTO rate_limit_bucket AS b (name, key, units, updated_at, full_at, granted)
VALUES ($1, $2, ${FRESH_LEFT}, $3::bigint,
        $3::bigint + CEIL(($4::bigint - (${FRESH_LEFT}))::numeric / $5::bigint)::bigint,
        $4::bigint >= ${ALL})
ON CONFLICT (name, key) DO UPDATE SET
  granted = ${ENOUGH},
  units = ${LEFT_ALL},
  updated_at = GREATEST(b.updated_at, $3::bigint),
  full_at = GREATEST(b.updated_at, $3::bigint)
    + CEIL(($4::bigint - (${LEFT_ALL}))::numeric / $5::bigint)::bigint
RETURNING granted, units`;

interface Waiting {
  resolve: (result: LimitResult) => void;
  reject: (error: unknown) => void;
}

/** One bucket under one rule: the takes waiting for its next statement. */
interface Group {
  name: string;
  key: string;
  rule: LimitRule;
  waiting: Waiting[];
  /** A statement of this bucket is running. */
  busy: boolean;
  /** The next one is due on the next turn of the event loop. */
  scheduled: boolean;
}

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

  async function takeOne(name: string, key: string, rule: LimitRule, now: number) {
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
      ? ({ ok: true, remaining: remainingOf(Number(row.units), rule) } as const)
      : ({ ok: false, retryAfterSec: retryAfterSec(Number(row.units), rule) } as const);
  }

  /** One statement for the takes when the bucket holds enough for all; else one per take. */
  async function settle(group: Group, waiting: Waiting[], now: number) {
    const { name, key, rule } = group;
    try {
      if (waiting.length > 1) {
        const { cost, capacity, perMs } = bucketShape(rule);
        const { rows } = await pool.query<{ granted: boolean; units: string }>(TAKE_ALL_SQL, [
          name,
          key,
          now,
          capacity,
          perMs,
          cost,
          waiting.length,
        ]);
        prune(now);
        if (rows[0]!.granted) {
          // In arrival order: the last one sees what is left, each earlier one a request more.
          const left = remainingOf(Number(rows[0]!.units), rule);
          waiting.forEach((w, i) =>
            w.resolve({ ok: true, remaining: left + waiting.length - 1 - i }),
          );
          return;
        }
      }
      // In arrival order, as separate requests would have been answered.
      for (const w of waiting) w.resolve(await takeOne(name, key, rule, now));
    } catch (error) {
      for (const w of waiting) w.reject(error);
    }
  }

  // Under load many requests take from the same bucket at once (a peer's deliveries: one
  // source domain, one address). Group commit per bucket: one statement in flight, and the
  // takes arriving meanwhile go together in the next, instead of queueing for the pool one by
  // one. Takes count when their statement runs (as if the requests had arrived then).
  const groups = new Map<string, Group>();
  const run = (id: string, group: Group) => {
    group.scheduled = false;
    const waiting = group.waiting.splice(0);
    if (waiting.length === 0) {
      groups.delete(id);
      return;
    }
    group.busy = true;
    void settle(group, waiting, Math.floor(clock.now().getTime())).finally(() => {
      group.busy = false;
      schedule(id, group);
    });
  };
  const schedule = (id: string, group: Group) => {
    if (group.busy || group.scheduled) return;
    group.scheduled = true;
    // One turn of the event loop: the takes of requests that arrived together go together.
    setImmediate(() => run(id, group));
  };

  return {
    store: 'postgres',
    take(name, key, rule) {
      const { cost, capacity, perMs } = bucketShape(rule);
      const id = `${name}\u0000${key}\u0000${cost}\u0000${capacity}\u0000${perMs}`;
      let group = groups.get(id);
      if (!group) {
        group = { name, key, rule, waiting: [], busy: false, scheduled: false };
        groups.set(id, group);
      }
      const joined = group;
      const taken = new Promise<LimitResult>((resolve, reject) =>
        joined.waiting.push({ resolve, reject }),
      );
      schedule(id, joined);
      return taken;
    },
    async reset(name, key) {
      await pool.query('DELETE FROM rate_limit_bucket WHERE name = $1 AND key = $2', [name, key]);
    },
    async close() {},
  };
}
