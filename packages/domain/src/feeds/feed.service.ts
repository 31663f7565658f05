import type { Db, Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';
import { LISTED, NEWEST_FIRST, TIMELINE_LIVE, TOP_LEVEL } from '../content/content.service.ts';
import { viewerFilter } from '../views/visibility.ts';
import type { RegistryService } from '../registry/index.ts';
import { createReadCache } from '../read-cache.ts';
import type { PostView } from '../views/index.ts';
import { COPY_SHOWN, readHomeAudience } from './home-audience.ts';
import {
  pageEntries,
  postViewSelect,
  rowToPostView,
  withViewerState,
  type FeedEntry,
  type PostViewRow,
  type Viewer,
} from './post-views.ts';

/**
 * What people read in lists: their home timeline (themselves and whom they follow, here and on
 * other nodes), this node's public timeline, and the swarm feed (this node's public posts and
 * the copies of other nodes' public posts kept here). Every list reads this node's database
 * only: remote posts arrive beforehand, pushed by their nodes or read by the poller and the
 * crawler (docs/architecture.md "Stored remote content"), so no page view waits on a peer.
 */

export interface HomeTimeline {
  posts: PostView[];
  nextBefore: string | null;
  /** The viewer follows nobody yet (the page says so instead of an empty list). */
  followsNobody: boolean;
}

export interface LocalTimeline {
  posts: PostView[];
  nextBefore: string | null;
}

/** How much of the swarm the stored feed covers, and how fresh it is (the page says so). */
export interface SwarmFeedCoverage {
  /** Peers whose public timeline was read in the last day, besides this node. */
  nodes: number;
  /** The most recent and the least recent of those reads. */
  newestReadAt: string | null;
  oldestReadAt: string | null;
}

export interface SwarmFeed {
  posts: PostView[];
  nextBefore: string | null;
  coverage: SwarmFeedCoverage;
  /** NSFW posts left out of this page because the viewer did not opt in. */
  hiddenNsfw: number;
}

export interface FeedService {
  home(viewer: Viewer, query: { before?: string; limit?: number }): Promise<HomeTimeline>;
  local(viewer: Viewer | null, query: { before?: string; limit?: number }): Promise<LocalTimeline>;
  swarm(viewer: Viewer | null, query: { before?: string; limit?: number }): Promise<SwarmFeed>;
}

export interface FeedServiceDeps {
  db: Db;
  clock: Clock;
  config: { domain: string };
  registry: Pick<RegistryService, 'blockedDomains'>;
}

export const FEED_LIMITS = {
  home: { default: 20, max: 50 },
  local: { default: 20, max: 50 },
  swarm: { default: 40, max: 100 },
} as const;

/**
 * Mutes and blocks are applied to rows after the query (a muted person may be the author or the
 * reposter, here or on another node), so a page is read on until it is full: at most this many
 * rows per page view. Past it the page ends early with a cursor where the reading stopped, so
 * a viewer who muted nearly everyone costs a bounded read and still pages on.
 */
export const FEED_SCAN_MAX_ROWS = 500;
const SCAN_BATCH = 50;

/** A peer read counts toward the swarm feed's coverage for this long. */
export const COVERAGE_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How long the coverage figures are reused (node clock): they change on crawl time scales. */
const COVERAGE_TTL_MS = 5_000;

const clampLimit = (value: number | undefined, bounds: { default: number; max: number }) =>
  Math.min(Math.max(1, Math.trunc(value ?? bounds.default)), bounds.max);

const entryOf = (view: PostView, at: Date | string): FeedEntry => ({
  view,
  at: new Date(at).getTime(),
});

export function createFeedService(deps: FeedServiceDeps): FeedService {
  const { db, clock, config, registry } = deps;
  const prisma = db.prisma;
  const self = config.domain;
  const beforeFilter = (before: string | undefined) =>
    before === undefined ? {} : { createdAt: { lt: new Date(before) } };

  function rowEntries(rows: readonly PostViewRow[]): FeedEntry[] {
    return rows.flatMap((row) => {
      const view = rowToPostView(row, self);
      return view ? [entryOf(view, row.createdAt)] : [];
    });
  }

  /**
   * `want` entries of `where` that `keep` keeps, newest first, reading batch after batch (see
   * FEED_SCAN_MAX_ROWS). `frontier`: when the bound stopped the reading before `want` were
   * found, the time of the last row read (entries older than it were not looked at).
   */
  async function keptEntries(
    where: Prisma.PostWhereInput,
    want: number,
    keep: (entry: FeedEntry) => boolean,
  ): Promise<{ entries: FeedEntry[]; frontier: number | null }> {
    const entries: FeedEntry[] = [];
    let skip = 0;
    for (;;) {
      // The first batch is what one page needs when nothing is hidden.
      const take = skip === 0 ? want : Math.max(want, SCAN_BATCH);
      const rows = await prisma.post.findMany({
        where,
        orderBy: NEWEST_FIRST,
        skip,
        take,
        select: postViewSelect,
      });
      skip += rows.length;
      entries.push(...rowEntries(rows).filter(keep));
      if (rows.length < take || entries.length >= want) return { entries, frontier: null };
      if (skip >= FEED_SCAN_MAX_ROWS) {
        return { entries, frontier: rows[rows.length - 1]!.createdAt.getTime() };
      }
    }
  }

  /** A page of `entries`, ending at the scan's frontier (if any) with a cursor there. */
  function pageWithin(entries: readonly FeedEntry[], limit: number, frontier: number | null) {
    if (frontier === null) return pageEntries(entries, limit);
    const page = pageEntries(
      entries.filter((entry) => entry.at >= frontier),
      limit,
    );
    return page.nextBefore === null
      ? { ...page, nextBefore: new Date(frontier).toISOString() }
      : page;
  }

  const coverageCache = createReadCache<SwarmFeedCoverage>({
    clock,
    ttlMs: COVERAGE_TTL_MS,
    maxEntries: 1,
  });
  async function readCoverage(): Promise<SwarmFeedCoverage> {
    const since = new Date(clock.now().getTime() - COVERAGE_WINDOW_MS);
    const read = await prisma.peerCrawl.aggregate({
      where: { lastCrawledAt: { gte: since }, domain: { not: self } },
      _count: { _all: true },
      _max: { lastCrawledAt: true },
      _min: { lastCrawledAt: true },
    });
    return {
      nodes: read._count._all,
      newestReadAt: read._max.lastCrawledAt?.toISOString() ?? null,
      oldestReadAt: read._min.lastCrawledAt?.toISOString() ?? null,
    };
  }
  const feedCoverage = async () =>
    coverageCache.get('coverage') ??
    (await coverageCache.load('coverage', readCoverage)) ?? {
      nodes: 0,
      newestReadAt: null,
      oldestReadAt: null,
    };

  return {
    async home(viewer, query) {
      const limit = clampLimit(query.limit, FEED_LIMITS.home);
      const { where, filter, followsNobody } = await readHomeAudience(
        { prisma, registry, self },
        viewer,
      );
      const { entries, frontier } = await keptEntries(
        { ...where, ...beforeFilter(query.before) },
        limit + 1,
        (entry) => !filter.hides(entry.view),
      );
      const page = pageWithin(entries, limit, frontier);
      return {
        posts: await withViewerState(prisma, viewer, page.views),
        nextBefore: page.nextBefore,
        followsNobody,
      };
    },

    async local(viewer, query) {
      const limit = clampLimit(query.limit, FEED_LIMITS.local);
      const filter = await viewerFilter(prisma, { viewer, self, operatorMutes: false });
      const { entries, frontier } = await keptEntries(
        { ...TIMELINE_LIVE, ...LISTED, ...TOP_LEVEL, ...beforeFilter(query.before) },
        limit + 1,
        (entry) => !filter.hides(entry.view),
      );
      const page = pageWithin(entries, limit, frontier);
      return {
        posts: await withViewerState(prisma, viewer, page.views),
        nextBefore: page.nextBefore,
      };
    },

    async swarm(viewer, query) {
      const limit = clampLimit(query.limit, FEED_LIMITS.swarm);
      const [blocked, filter, coverage] = await Promise.all([
        registry.blockedDomains(),
        viewerFilter(prisma, { viewer, self, operatorMutes: true }),
        feedCoverage(),
      ]);
      const showNsfw = viewer?.showNsfw ?? false;
      let hiddenNsfw = 0;
      const { entries, frontier } = await keptEntries(
        {
          OR: [{ ...TIMELINE_LIVE }, { apId: { not: null }, ...COPY_SHOWN }],
          deletedAt: null,
          ...LISTED,
          ...TOP_LEVEL,
          ...beforeFilter(query.before),
        },
        limit + 1,
        (entry) => {
          // Blocked nodes are few: left out here rather than by a join in the query.
          if (filter.hides(entry.view) || blocked.has(entry.view.nodeDomain)) return false;
          if (entry.view.isNsfw && !showNsfw) {
            hiddenNsfw += 1;
            return false;
          }
          return true;
        },
      );
      const page = pageWithin(entries, limit, frontier);
      return {
        posts: await withViewerState(prisma, viewer, page.views),
        nextBefore: page.nextBefore,
        coverage,
        hiddenNsfw,
      };
    },
  };
}
