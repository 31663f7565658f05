import { describe, expect, it } from 'vitest';
import {
  CRAWL_POLICY,
  crawlDelayAfterFailure,
  crawlOrder,
  crawlPriority,
} from './crawler-policy.ts';

const now = new Date('2026-03-01T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const peer = (domain: string, over: Partial<Parameters<typeof crawlPriority>[0]> = {}) => ({
  domain,
  trustScore: 50,
  lastCrawledAt: ago(10 * 60_000),
  lastNewPosts: 0,
  ...over,
});

describe('crawl order', () => {
  it('reads a peer never read before one read recently', () => {
    const order = crawlOrder([peer('a.test'), peer('b.test', { lastCrawledAt: null })], now);
    expect(order.map((p) => p.domain)).toEqual(['b.test', 'a.test']);
  });

  it('prefers, at equal age, the busier and the more trusted peer', () => {
    const order = crawlOrder(
      [
        peer('quiet.test'),
        peer('busy.test', { lastNewPosts: 15 }),
        peer('trusted.test', { trustScore: 100 }),
      ],
      now,
    );
    expect(order.map((p) => p.domain)).toEqual(['busy.test', 'trusted.test', 'quiet.test']);
  });

  it('lets a long-unread quiet peer overtake a busy one read just now (rotation)', () => {
    const busy = peer('busy.test', { lastNewPosts: 15, lastCrawledAt: ago(60_000) });
    const quiet = peer('quiet.test', { lastCrawledAt: ago(10 * 60_000) });
    expect(crawlOrder([busy, quiet], now)[0]!.domain).toBe('quiet.test');
    // Activity weighs log-wise: 15 new posts count 5×, not 16×.
    expect(crawlPriority({ ...quiet, lastNewPosts: 15 }, now) / crawlPriority(quiet, now)).toBe(5);
  });

  it('is deterministic on ties (alphabetical)', () => {
    const order = crawlOrder([peer('c.test'), peer('a.test'), peer('b.test')], now);
    expect(order.map((p) => p.domain)).toEqual(['a.test', 'b.test', 'c.test']);
  });

  it('backs off failing peers up to the cap', () => {
    expect(crawlDelayAfterFailure(1)).toBe(CRAWL_POLICY.failureBaseMs);
    expect(crawlDelayAfterFailure(3)).toBe(4 * CRAWL_POLICY.failureBaseMs);
    expect(crawlDelayAfterFailure(40)).toBe(CRAWL_POLICY.failureCapMs);
  });
});
