import { describe, expect, it } from 'vitest';
import type { PeerError } from '../peers/index.ts';
import {
  RETRY_CAP_MS,
  deliverySummary,
  failureReason,
  formatWait,
  judgeFailure,
  retryDelayMs,
  type DeliveryRow,
} from './delivery-policy.ts';

const D = 'beta.test';

describe('retryDelayMs', () => {
  it('doubles from 30 s and stops at 1 h, within ±20 % jitter', () => {
    const middle = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 30].map((n) => retryDelayMs(n, middle))).toEqual([
      30_000,
      60_000,
      120_000,
      240_000,
      480_000,
      960_000,
      1_920_000,
      RETRY_CAP_MS,
      RETRY_CAP_MS,
      RETRY_CAP_MS,
    ]);
    expect(retryDelayMs(1, () => 0)).toBe(24_000);
    expect(retryDelayMs(1, () => 0.999_999)).toBeCloseTo(36_000, -1);
    expect(retryDelayMs(12, () => 0.999_999)).toBe(RETRY_CAP_MS);
  });

  it('honours a longer Retry-After, never beyond the cap', () => {
    expect(retryDelayMs(1, () => 0.5, 600)).toBe(600_000);
    expect(retryDelayMs(1, () => 0.5, 5)).toBe(30_000);
    expect(retryDelayMs(1, () => 0.5, 86_400)).toBe(RETRY_CAP_MS);
  });
});

describe('judgeFailure', () => {
  const http = (status: number, code?: string): PeerError => ({
    kind: 'http',
    domain: D,
    status,
    body: code ? { error: 'No post 1 on this node.', code } : undefined,
    retryAfter: undefined,
  });

  it('retries timeouts, network errors, 5xx, 429 and unreadable answers', () => {
    const retried: PeerError[] = [
      { kind: 'timeout', domain: D, timeoutMs: 5000 },
      { kind: 'unreachable', domain: D, reason: 'ECONNREFUSED' },
      http(500),
      http(503, 'INTERNAL'),
      http(429, 'RATE_LIMITED'),
      { kind: 'invalid_response', domain: D, status: 200, reason: 'not JSON' },
    ];
    for (const error of retried) expect(judgeFailure(error).final).toBe(false);
  });

  it('stops at other 4xx with the peer’s reason, and at redirects and refused addresses', () => {
    expect(judgeFailure(http(404, 'POST_NOT_FOUND'))).toEqual({
      final: true,
      status: 404,
      error: 'post not found: No post 1 on this node.',
    });
    expect(judgeFailure(http(410)).error).toBe('HTTP 410');
    expect(judgeFailure({ kind: 'redirect', domain: D, status: 301, location: null }).final).toBe(
      true,
    );
    expect(
      judgeFailure({ kind: 'blocked_address', domain: D, address: '10.0.0.1', reason: 'private' })
        .final,
    ).toBe(true);
  });
});

describe('deliverySummary', () => {
  const now = new Date('2026-11-22T12:00:00.000Z');
  const row = (over: Partial<DeliveryRow>): DeliveryRow => ({
    id: 'x',
    kind: 'like',
    targetDomain: D,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    lastError: null,
    lastStatus: null,
    interactionId: null,
    createdAt: now,
    deliveredAt: null,
    ...over,
  });
  const inMs = (ms: number) => new Date(now.getTime() + ms);

  it('says what people need to know', () => {
    expect(deliverySummary(row({}), now)).toBe('queued');
    expect(deliverySummary(row({ status: 'delivered', attempts: 1 }), now)).toBe('delivered');
    expect(deliverySummary(row({ attempts: 3, nextAttemptAt: inMs(4 * 60_000 - 500) }), now)).toBe(
      'retrying, next in 4 min',
    );
    expect(deliverySummary(row({ attempts: 1, nextAttemptAt: inMs(29_500) }), now)).toBe(
      'retrying, next in 30 s',
    );
    expect(
      deliverySummary(
        row({ status: 'failed', attempts: 1, lastError: 'post not found: No post 1 here.' }),
        now,
      ),
    ).toBe('failed: post not found');
    expect(
      deliverySummary(
        row({ status: 'failed', lastError: 'gave up after 48 h: beta.test timed out.' }),
        now,
      ),
    ).toBe('failed: gave up after 48 h');
  });

  it('formats waits rounded up', () => {
    expect(formatWait(1)).toBe('1 s');
    expect(formatWait(59_001)).toBe('1 min');
    expect(formatWait(89 * 60_000)).toBe('89 min');
    expect(formatWait(3 * 60 * 60_000)).toBe('3 h');
    expect(failureReason(null)).toBe('unknown error');
  });
});
