import type { Clock } from '../clock.ts';

/**
 * Named rate limits, shared by every process of one node (docs/deployment.md "Replicas").
 *
 * A limit is a token bucket per (name, key): a full bucket holds `burst` tokens (default
 * `points`), each request takes one, and it refills continuously at `points` per `windowMs`.
 * `name` says which limit ("swarm-ip", "login-handle", "signup-ip"…), `key` whom it counts
 * (a client address, a handle, a peer's domain). The rule travels with each call, so a new
 * limit needs no registration: pick a name nobody uses and call `take`.
 *
 * Three stores, picked once in the node context: in memory (embedded mode: one process),
 * a Postgres table (several processes on one Postgres), Redis (`REDIS_URL`). All three run
 * the same arithmetic on the node's clock, so a limit behaves the same whatever the store.
 */
export interface Limits {
  /** Which store: `memory`, `postgres` or `redis`. */
  readonly store: LimitStore;
  /** Takes one token from the bucket of `key` under limit `name`. */
  take(name: string, key: string, rule: LimitRule): Promise<LimitResult>;
  /** Refills the bucket (e.g. a handle's after a successful login). */
  reset(name: string, key: string): Promise<void>;
  close(): Promise<void>;
}

export type LimitStore = 'memory' | 'postgres' | 'redis';

export interface LimitRule {
  /** Tokens refilled per `windowMs`. */
  points: number;
  windowMs: number;
  /** Tokens a full bucket holds (requests allowed at once); defaults to `points`. */
  burst?: number;
}

/** `remaining`: whole requests the bucket still allows now (for `X-RateLimit-Remaining`). */
export type LimitResult = { ok: true; remaining: number } | { ok: false; retryAfterSec: number };

/** Whole requests `units` allow under `rule`. */
export function remainingOf(units: number, rule: LimitRule): number {
  return Math.floor(units / bucketShape(rule).cost);
}

/**
 * A bucket as every store keeps it: `units` left at `at` (ms on the node's clock). Integer
 * arithmetic, no float drift: one request costs `windowMs` units and the bucket refills
 * `points` units per ms, so `points` requests per window.
 */
export interface Bucket {
  units: number;
  at: number;
}

/** The rule in units: what one request costs, what a full bucket holds, the refill per ms. */
export function bucketShape(rule: LimitRule): { cost: number; capacity: number; perMs: number } {
  const points = Math.max(1, Math.floor(rule.points));
  const burst = Math.max(1, Math.floor(rule.burst ?? points));
  const cost = Math.max(1, Math.floor(rule.windowMs));
  return { cost, capacity: burst * cost, perMs: points };
}

/**
 * One take on a bucket (undefined: never seen, i.e. full). The Postgres statement and the
 * Redis script do exactly this.
 */
export function takeFromBucket(
  bucket: Bucket | undefined,
  now: number,
  rule: LimitRule,
): { bucket: Bucket; result: LimitResult; fullAt: number } {
  const { cost, capacity, perMs } = bucketShape(rule);
  now = Math.floor(now);
  const at = Math.max(bucket?.at ?? now, now);
  const refilled = bucket
    ? Math.min(capacity, bucket.units + Math.max(0, now - bucket.at) * perMs)
    : capacity;
  const granted = refilled >= cost;
  const units = granted ? refilled - cost : refilled;
  return {
    bucket: { units, at },
    result: granted
      ? { ok: true, remaining: remainingOf(units, rule) }
      : { ok: false, retryAfterSec: retryAfterSec(units, rule) },
    fullAt: at + Math.ceil((capacity - units) / perMs),
  };
}

/** Whole seconds (at least 1) until `units` grew to one request's cost. */
export function retryAfterSec(units: number, rule: LimitRule): number {
  const { cost, perMs } = bucketShape(rule);
  return Math.max(1, Math.ceil(Math.ceil((cost - units) / perMs) / 1000));
}

/**
 * Buckets in this process's memory: right for the embedded mode (one process holds the
 * database) and for tests. At most `maxKeys` buckets; full ones go first, then the oldest.
 */
export function createMemoryLimits(deps: { clock: Clock; maxKeys?: number }): Limits {
  const maxKeys = deps.maxKeys ?? 50_000;
  const buckets = new Map<string, { bucket: Bucket; fullAt: number }>();
  const id = (name: string, key: string) => `${name}\u0000${key}`;

  function sweep(now: number) {
    for (const [k, entry] of buckets) if (entry.fullAt <= now) buckets.delete(k);
    for (const k of buckets.keys()) {
      if (buckets.size < maxKeys) break;
      buckets.delete(k);
    }
  }

  return {
    store: 'memory',
    async take(name, key, rule) {
      const now = deps.clock.now().getTime();
      const k = id(name, key);
      const entry = buckets.get(k);
      if (!entry && buckets.size >= maxKeys) sweep(now);
      const step = takeFromBucket(entry?.bucket, now, rule);
      buckets.delete(k);
      buckets.set(k, { bucket: step.bucket, fullAt: step.fullAt });
      return step.result;
    },
    async reset(name, key) {
      buckets.delete(id(name, key));
    },
    async close() {
      buckets.clear();
    },
  };
}
