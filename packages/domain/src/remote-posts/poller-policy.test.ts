import { describe, expect, it } from 'vitest';
import { POLL_POLICY, delayAfterFailure, intervalAfterSuccess } from './poller-policy.ts';

const now = new Date('2026-03-01T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const DAY = 24 * 60 * 60_000;

describe('poll interval policy', () => {
  it('reads an author whose node pushes only to fill gaps, until a read finds what pushes missed', () => {
    const quiet = { intervalMs: POLL_POLICY.initialMs, newestPostAt: ago(1_000), now };
    expect(intervalAfterSuccess({ ...quiet, newPosts: 0, pushes: true })).toBe(
      POLL_POLICY.pushedMs,
    );
    const missed = intervalAfterSuccess({
      ...quiet,
      intervalMs: POLL_POLICY.pushedMs,
      newPosts: 1,
      pushes: true,
    });
    expect(missed).toBe(POLL_POLICY.recentCapMs);
  });

  it('halves the interval when a read found new posts, never below the minimum', () => {
    const after = (intervalMs: number) =>
      intervalAfterSuccess({ intervalMs, newPosts: 3, newestPostAt: ago(1_000), now });
    expect(after(8 * 60_000)).toBe(4 * 60_000);
    expect(after(90_000)).toBe(POLL_POLICY.minMs);
    // Busy authors converge to the minimum.
    let interval: number = POLL_POLICY.maxMs;
    for (let i = 0; i < 10; i++) interval = after(interval);
    expect(interval).toBe(POLL_POLICY.minMs);
  });

  it('stretches the interval of quiet authors up to the maximum', () => {
    let interval: number = POLL_POLICY.initialMs;
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) {
      interval = intervalAfterSuccess({
        intervalMs: interval,
        newPosts: 0,
        newestPostAt: ago(30 * DAY),
        now,
      });
      seen.push(interval);
    }
    expect(seen[0]).toBe(POLL_POLICY.initialMs * 1.5);
    expect(seen.every((v, i) => i === 0 || v >= seen[i - 1]!)).toBe(true);
    expect(interval).toBe(POLL_POLICY.maxMs);
    // Never posted at all: as quiet as it gets.
    expect(
      intervalAfterSuccess({ intervalMs: POLL_POLICY.maxMs, newPosts: 0, newestPostAt: null, now }),
    ).toBe(POLL_POLICY.maxMs);
  });

  it('keeps someone who posted today within the recent cap even when this read was empty', () => {
    const interval = intervalAfterSuccess({
      intervalMs: POLL_POLICY.maxMs,
      newPosts: 0,
      newestPostAt: ago(DAY / 2),
      now,
    });
    expect(interval).toBe(POLL_POLICY.recentCapMs);
    expect(interval).toBeLessThan(POLL_POLICY.maxMs);
  });

  it('backs off exponentially on failures, up to the cap', () => {
    expect(delayAfterFailure(1)).toBe(POLL_POLICY.failureBaseMs);
    expect(delayAfterFailure(2)).toBe(2 * POLL_POLICY.failureBaseMs);
    expect(delayAfterFailure(4)).toBe(8 * POLL_POLICY.failureBaseMs);
    expect(delayAfterFailure(50)).toBe(POLL_POLICY.failureCapMs);
    expect(delayAfterFailure(0)).toBe(POLL_POLICY.failureBaseMs);
  });
});
