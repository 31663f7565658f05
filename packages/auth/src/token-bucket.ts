/**
 * Token buckets keyed by a string (client IP, source domain, login handle), in memory. Each key
 * may burst up to `burst` requests (default: the rate's count) and refills continuously at
 * `perMinute` per minute, or `perHour` per hour for slow budgets (sign-ups). Time comes from the
 * caller (the node's clock), so tests advance it instead of sleeping. Shared by the gateway's
 * request limits, the login throttle and the sign-up limit.
 */
export interface TokenBucketLimiter {
  take(key: string, nowMs: number): { ok: true } | { ok: false; retryAfterSec: number };
  /** Back to a full bucket (e.g. a handle's budget after a successful login). */
  reset(key: string): void;
}

/** Bucket contents in integer units (one request = 3 600 000 units, refill = perHour units/ms): no float drift. */
const UNITS_PER_REQUEST = 3_600_000;

export type TokenBucketRate = { perMinute: number } | { perHour: number };

export function createTokenBucketLimiter(
  opts: TokenBucketRate & {
    /** Requests a full bucket allows at once; defaults to the rate's count. */
    burst?: number;
    /** Keys tracked at most; full (idle) buckets are dropped first when exceeded. */
    maxKeys?: number;
  },
): TokenBucketLimiter {
  const count = 'perHour' in opts ? opts.perHour : opts.perMinute;
  const perHour = Math.max(1, Math.floor(count)) * ('perHour' in opts ? 1 : 60);
  const capacity = Math.max(1, Math.floor(opts.burst ?? count)) * UNITS_PER_REQUEST;
  const maxKeys = opts.maxKeys ?? 50_000;
  const buckets = new Map<string, { units: number; at: number }>();

  function refill(bucket: { units: number; at: number }, nowMs: number) {
    const elapsed = Math.max(0, Math.floor(nowMs) - bucket.at);
    bucket.units = Math.min(capacity, bucket.units + elapsed * perHour);
    bucket.at += elapsed;
  }

  function sweep(nowMs: number) {
    for (const [key, bucket] of buckets) {
      refill(bucket, nowMs);
      if (bucket.units >= capacity) buckets.delete(key);
    }
    // Still too many busy keys: forget the oldest (a forgotten key starts with a full bucket).
    for (const key of buckets.keys()) {
      if (buckets.size < maxKeys) break;
      buckets.delete(key);
    }
  }

  return {
    take(key, nowMs) {
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= maxKeys) sweep(nowMs);
        bucket = { units: capacity, at: Math.floor(nowMs) };
        buckets.set(key, bucket);
      } else {
        refill(bucket, nowMs);
      }
      if (bucket.units >= UNITS_PER_REQUEST) {
        bucket.units -= UNITS_PER_REQUEST;
        return { ok: true };
      }
      const waitMs = Math.ceil((UNITS_PER_REQUEST - bucket.units) / perHour);
      return { ok: false, retryAfterSec: Math.max(1, Math.ceil(waitMs / 1000)) };
    },
    reset(key) {
      buckets.delete(key);
    },
  };
}
