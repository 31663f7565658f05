import { SWARM_PATHS, peerTimelineResponseSchema } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { mapBounded } from '../registry/bounded.ts';
import type { RegistryService } from '../registry/index.ts';
import type { Limits } from '../replicas/index.ts';
import {
  CRAWL_POLICY,
  crawlDelayAfterFailure,
  crawlOrder,
  type CrawlPolicy,
} from './crawler-policy.ts';
import type { PeerReads, RemoteReadMetrics, WireViews } from './poller-ports.ts';
import { STORE_BATCH_MAX, type RemotePostStore } from './remote-post-store.ts';

/**
 * The crawler (docs/decisions.md "Crawling the swarm feed"): samples active peers' public
 * timelines in the background and stores what they hold, so the swarm feed reads this database.
 * Its outbound requests are on the operator's budget (SWARM_CRAWL_PER_MIN, a token bucket in the
 * node's shared limits, so several replicas share one budget), whatever the number of peers or
 * of readers; which peers it reads is `crawlOrder`'s rotation.
 */
export interface SwarmCrawler {
  /** Reads as many peers as the budget allows now, highest priority first, and stores. */
  crawlDue(): Promise<CrawlReport>;
}

export interface CrawlReport {
  /** Active peers known. */
  peers: number;
  /** Peers read successfully. */
  ok: number;
  failed: number;
  /** New copies stored. */
  created: number;
  /** The budget ran out before the peers due did. */
  budgetSpent: boolean;
}

export interface CrawlerOptions {
  /** Requests per minute (0: the crawler is off). */
  perMinute: number;
  /** Posts asked per timeline read. */
  postsPerRead: number;
  /** Reads in one tick at most, whatever the budget holds. */
  maxPerTick: number;
  concurrency: number;
  claimMs: number;
  policy: CrawlPolicy;
}

export const CRAWLER_DEFAULTS: CrawlerOptions = {
  perMinute: 6,
  postsPerRead: 20,
  maxPerTick: 10,
  concurrency: 4,
  claimMs: 2 * 60_000,
  policy: CRAWL_POLICY,
};

/** The limit the crawler's requests take from (one bucket for the whole node). */
export const CRAWL_LIMIT = { name: 'crawler', key: 'outbound' } as const;

/** The token bucket: `perMinute` a minute, at most a sixth of it at once. */
export function crawlRule(perMinute: number) {
  return { points: perMinute, windowMs: 60_000, burst: Math.max(1, Math.ceil(perMinute / 6)) };
}

export function createSwarmCrawler(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  reads: PeerReads;
  views: WireViews;
  store: Pick<RemotePostStore, 'store'>;
  registry: Pick<RegistryService, 'activePeers'>;
  limits: Pick<Limits, 'take'>;
  metrics?: Pick<RemoteReadMetrics, 'observeRemoteRead'>;
  options?: Partial<CrawlerOptions>;
}): SwarmCrawler {
  const { db, clock, logger, reads, views, store, registry, limits, metrics } = deps;
  const options = { ...CRAWLER_DEFAULTS, ...deps.options };
  const prisma = db.prisma;
  const rule = crawlRule(options.perMinute);

  async function crawlOne(domain: string, previousNewest: Date | null, failures: number) {
    const read = await reads.read(
      domain,
      `${SWARM_PATHS.timeline}?limit=${options.postsPerRead}`,
      peerTimelineResponseSchema,
    );
    if (!read.ok) {
      const now = clock.now();
      const wait = crawlDelayAfterFailure(failures + 1, options.policy);
      await prisma.peerCrawl.updateMany({
        where: { domain },
        data: {
          failures: failures + 1,
          nextCrawlAt: new Date(now.getTime() + wait),
          claimedUntil: null,
        },
      });
      logger.debug({ peer: domain, error: read.error }, 'crawl failed');
      return { ok: false, created: 0 };
    }
    const posts = read.value.posts.slice(0, STORE_BATCH_MAX);
    const inputs = posts.flatMap((post) => {
      const view = views.timelinePost(post, domain);
      return view ? [{ view }] : [];
    });
    const outcome = await store.store(inputs, 'crawl');
    const newest = posts.reduce<number>(
      (max, post) => Math.max(max, new Date(post.createdAt).getTime()),
      previousNewest?.getTime() ?? 0,
    );
    const now = clock.now();
    await prisma.peerCrawl.updateMany({
      where: { domain },
      data: {
        lastCrawledAt: now,
        nextCrawlAt: new Date(now.getTime() + options.policy.minGapMs),
        newestPostAt: newest > 0 ? new Date(newest) : null,
        lastNewPosts: outcome.created.length,
        failures: 0,
        claimedUntil: null,
      },
    });
    return { ok: true, created: outcome.created.length };
  }

  return {
    async crawlDue() {
      const report: CrawlReport = { peers: 0, ok: 0, failed: 0, created: 0, budgetSpent: false };
      if (options.perMinute <= 0) return report;
      const peers = await registry.activePeers();
      report.peers = peers.length;
      if (peers.length === 0) return report;
      const now = clock.now();
      const domains = peers.map((p) => p.domain);
      await prisma.peerCrawl.createMany({
        data: domains.map((domain) => ({ domain, nextCrawlAt: now })),
        skipDuplicates: true,
      });
      const rows = await prisma.peerCrawl.findMany({
        where: {
          domain: { in: domains },
          nextCrawlAt: { lte: now },
          OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }],
        },
      });
      const trust = new Map(peers.map((p) => [p.domain, p.trustScore]));
      const ordered = crawlOrder(
        rows.map((row) => ({ ...row, trustScore: trust.get(row.domain) ?? 0 })),
        now,
        options.policy,
      );
      // Budget first, then the claim: a token is never spent on a peer another replica took
      // only by a lost claim race, and never more requests than tokens.
      const chosen: typeof ordered = [];
      for (const row of ordered) {
        if (chosen.length >= options.maxPerTick) break;
        const token = await limits.take(CRAWL_LIMIT.name, CRAWL_LIMIT.key, rule);
        if (!token.ok) {
          report.budgetSpent = true;
          break;
        }
        const { count } = await prisma.peerCrawl.updateMany({
          where: {
            domain: row.domain,
            nextCrawlAt: { lte: now },
            OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }],
          },
          data: { claimedUntil: new Date(now.getTime() + options.claimMs) },
        });
        if (count === 1) chosen.push(row);
      }
      await mapBounded(chosen, options.concurrency, async (row) => {
        try {
          const outcome = await crawlOne(row.domain, row.newestPostAt, row.failures);
          if (outcome.ok) report.ok += 1;
          else report.failed += 1;
          report.created += outcome.created;
          metrics?.observeRemoteRead('crawl', outcome.ok ? 'ok' : 'failed');
        } catch (err) {
          report.failed += 1;
          metrics?.observeRemoteRead('crawl', 'failed');
          logger.warn({ err, peer: row.domain }, 'crawl of a peer failed');
        }
      });
      if (chosen.length > 0) {
        // At info only when something came of it: a quiet swarm does not fill the log.
        const level = report.created > 0 || report.failed > 0 ? 'info' : 'debug';
        logger[level]({ ...report, read: chosen.map((row) => row.domain) }, 'crawler: peers read');
      }
      return report;
    },
  };
}
