/**
 * Which peers the crawler reads next (docs/decisions.md "Crawling the swarm feed"). Pure, so
 * that the crawler, the docs and the tests agree.
 *
 * Every active peer has a priority `age × activity × trust`, and the crawler reads the highest
 * first, as far as its budget allows:
 * - `age`: time since its timeline was last read (a peer never read counts as `neverReadAgeMs`),
 *   so a peer just read drops to the back and every peer comes round in turn;
 * - `activity`: 1 + log2(1 + posts new at its last read), so a busy peer comes round sooner
 *   without starving quiet ones (a peer with 15 new posts waits about a fifth as long, not 1/16);
 * - `trust`: 0.5 at trust 0 to 2 at trust 100 (the registry's reputation).
 * Ties go to the domain's alphabetical order, so a run is reproducible.
 */
export const CRAWL_POLICY = {
  neverReadAgeMs: 24 * 60 * 60_000,
  /** A peer just read is not read again before this, whatever its priority. */
  minGapMs: 60_000,
  failureBaseMs: 60_000,
  failureCapMs: 6 * 60 * 60_000,
} as const;

export type CrawlPolicy = typeof CRAWL_POLICY;

export interface CrawlCandidate {
  domain: string;
  trustScore: number;
  lastCrawledAt: Date | null;
  lastNewPosts: number;
}

export function crawlPriority(
  peer: CrawlCandidate,
  now: Date,
  policy: CrawlPolicy = CRAWL_POLICY,
): number {
  const age = peer.lastCrawledAt
    ? Math.max(0, now.getTime() - peer.lastCrawledAt.getTime())
    : policy.neverReadAgeMs;
  const activity = 1 + Math.log2(1 + Math.max(0, peer.lastNewPosts));
  const trust = 0.5 + (1.5 * Math.min(100, Math.max(0, peer.trustScore))) / 100;
  return age * activity * trust;
}

/** The candidates in the order the crawler reads them. */
export function crawlOrder<T extends CrawlCandidate>(
  peers: readonly T[],
  now: Date,
  policy: CrawlPolicy = CRAWL_POLICY,
): T[] {
  return peers
    .map((peer) => ({ peer, priority: crawlPriority(peer, now, policy) }))
    .sort((a, b) => b.priority - a.priority || (a.peer.domain < b.peer.domain ? -1 : 1))
    .map(({ peer }) => peer);
}

/** How long to leave a peer after its `failures`-th failed read in a row. */
export function crawlDelayAfterFailure(
  failures: number,
  policy: CrawlPolicy = CRAWL_POLICY,
): number {
  const exponent = Math.max(0, Math.min(failures - 1, 30));
  return Math.min(policy.failureBaseMs * 2 ** exponent, policy.failureCapMs);
}
