import { describe, expect, it } from 'vitest';
import { createTokenBucketLimiter } from './token-bucket.ts';

describe('token bucket', () => {
  it('bursts up to the budget, then refills one request per 60/perMinute seconds', () => {
    const limiter = createTokenBucketLimiter({ perMinute: 3 });
    for (let i = 0; i < 3; i++) expect(limiter.take('a', 0).ok).toBe(true);
    expect(limiter.take('a', 0)).toEqual({ ok: false, retryAfterSec: 20 });
    expect(limiter.take('b', 0).ok).toBe(true);
    expect(limiter.take('a', 19_999)).toEqual({ ok: false, retryAfterSec: 1 });
    expect(limiter.take('a', 20_000).ok).toBe(true);
    expect(limiter.take('a', 20_000).ok).toBe(false);
    // Idle for long: back to a full burst, never more.
    for (let i = 0; i < 3; i++) expect(limiter.take('a', 10_000_000).ok).toBe(true);
    expect(limiter.take('a', 10_000_000).ok).toBe(false);
  });

  it('keeps at most maxKeys buckets, dropping idle ones first', () => {
    const limiter = createTokenBucketLimiter({ perMinute: 1, maxKeys: 2 });
    expect(limiter.take('a', 0).ok).toBe(true);
    expect(limiter.take('b', 0).ok).toBe(true);
    expect(limiter.take('c', 0).ok).toBe(true); // evicts the oldest busy key
    expect(limiter.take('b', 0).ok).toBe(false); // still tracked
  });

  it('allows a burst larger than the refill rate', () => {
    const limiter = createTokenBucketLimiter({ perMinute: 1, burst: 5 });
    for (let i = 0; i < 5; i++) expect(limiter.take('a', 0).ok).toBe(true);
    expect(limiter.take('a', 0)).toEqual({ ok: false, retryAfterSec: 60 });
    expect(limiter.take('a', 60_000).ok).toBe(true);
    expect(limiter.take('a', 60_000).ok).toBe(false);
  });

  it('refills slow budgets per hour: 5 an hour is one every 12 minutes', () => {
    const limiter = createTokenBucketLimiter({ perHour: 5 });
    for (let i = 0; i < 5; i++) expect(limiter.take('a', 0).ok).toBe(true);
    expect(limiter.take('a', 0)).toEqual({ ok: false, retryAfterSec: 720 });
    expect(limiter.take('a', 719_000)).toEqual({ ok: false, retryAfterSec: 1 });
    expect(limiter.take('a', 720_000).ok).toBe(true);
    expect(limiter.take('a', 720_000).ok).toBe(false);
    expect(limiter.take('b', 720_000).ok).toBe(true);
  });

  it('forgets a key on reset', () => {
    const limiter = createTokenBucketLimiter({ perMinute: 1, burst: 2 });
    expect(limiter.take('a', 0).ok).toBe(true);
    expect(limiter.take('a', 0).ok).toBe(true);
    expect(limiter.take('a', 0).ok).toBe(false);
    limiter.reset('a');
    expect(limiter.take('a', 0).ok).toBe(true);
  });
});
