import {
  LIMITS,
  SWARM_PATHS,
  peerSwarmUserResponseSchema,
  timelineResponseSchema,
  type TimelineResponse,
} from '@swarm/contract';
import { localActorKey, type Db, type Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import { LISTED, NEWEST_FIRST, TIMELINE_LIVE, TOP_LEVEL } from '../content/content.service.ts';
import { LISTED_ACCOUNT, viewerFilter } from '../views/visibility.ts';
import type { ContentService } from '../content/index.ts';
import type { RegistryService } from '../registry/index.ts';
import { createReadCache } from '../read-cache.ts';
import type { PostView } from '../views/index.ts';
import type { PeerReader } from './peer-reads.ts';
import type { SeenPosts } from './seen-posts.ts';
import {
  actorView,
  byNewest,
  pageEntries,
  postViewSelect,
  profilePostToView,
  rowToPostView,
  timelinePostToView,
  withViewerState,
  type FeedEntry,
  type PostViewRow,
  type Viewer,
} from './post-views.ts';

/**
 * What people read in lists: their home timeline (themselves and whom they follow, here and on
 * other nodes), this node's public timeline, and the swarm feed (every active peer's public
 * timeline merged). Remote parts go through the PeerReader: per-peer budget, short cache and
 * circuit breaker, so a page answers in about one budget whatever the peers do.
 */

export interface HomeTimeline {
  posts: PostView[];
  nextBefore: string | null;
  /** The viewer follows nobody yet (the page says so instead of an empty list). */
  followsNobody: boolean;
  /** Domains of followed people whose node did not answer in time. */
  unreachable: string[];
}

export interface LocalTimeline {
  posts: PostView[];
  nextBefore: string | null;
}

export interface SwarmFeedNode {
  domain: string;
  ok: boolean;
  ms: number;
  error?: string;
}

export interface SwarmFeed {
  posts: PostView[];
  /** Every node asked (this one first), with how it went. */
  nodes: SwarmFeedNode[];
  /** Nodes that did not answer (failed, timed out, or skipped by an open breaker). */
  unreachable: string[];
  /** NSFW posts left out of this page because the viewer did not opt in. */
  hiddenNsfw: number;
}

export interface FeedService {
  home(viewer: Viewer, query: { before?: string; limit?: number }): Promise<HomeTimeline>;
  local(viewer: Viewer | null, query: { before?: string; limit?: number }): Promise<LocalTimeline>;
  swarm(viewer: Viewer | null, query: { limit?: number }): Promise<SwarmFeed>;
}

export interface FeedServiceDeps {
  db: Db;
  clock: Clock;
  config: Pick<NodeConfig, 'domain'>;
  registry: Pick<RegistryService, 'activePeers' | 'blockedDomains'>;
  content: Pick<ContentService, 'timeline'>;
  reader: PeerReader;
  /** Told of the remote posts shown (see seen-posts.ts). */
  seen?: Pick<SeenPosts, 'remember'>;
}

export const FEED_LIMITS = {
  home: { default: 20, max: 50 },
  local: { default: 20, max: 50 },
  swarm: { default: 40, max: 100 },
} as const;

/** Posts asked of each followed remote user / each peer's timeline per read (cached as such). */
const REMOTE_USER_POSTS = 20;
const PEER_TIMELINE_POSTS = LIMITS.timeline.default;

/**
 * Mutes and blocks are applied to rows after the query (a muted person may be the author or the
 * reposter, here or on another node), so a page is read on until it is full: at most this many
 * rows per page view. Past it the page ends early with a cursor where the reading stopped, so
 * a viewer who muted nearly everyone costs a bounded read and still pages on.
 */
export const FEED_SCAN_MAX_ROWS = 500;
const SCAN_BATCH = 50;

/** How long the list of active peers is reused (node clock). */
export const ACTIVE_PEERS_TTL_MS = 5_000;

const clampLimit = (value: number | undefined, bounds: { default: number; max: number }) =>
  Math.min(Math.max(1, Math.trunc(value ?? bounds.default)), bounds.max);

const entryOf = (view: PostView, at: Date | string): FeedEntry => ({
  view,
  at: new Date(at).getTime(),
});

export function createFeedService(deps: FeedServiceDeps): FeedService {
  const { db, clock, config, registry, content, reader } = deps;
  const shownPosts = deps.seen;
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

  // The registry changes on gossip time scales; asking it once per page view is wasted work.
  const peersCache = createReadCache<{ domain: string }[]>({
    clock,
    ttlMs: ACTIVE_PEERS_TTL_MS,
    maxEntries: 1,
  });
  const activePeers = async () =>
    peersCache.get('active') ??
    (await peersCache.load('active', () => registry.activePeers())) ??
    [];

  // A cached peer answer is mapped once, not on every page view that reuses it.
  const mapped = new WeakMap<TimelineResponse, FeedEntry[]>();
  function timelineEntries(answer: TimelineResponse, domain: string): FeedEntry[] {
    let entries = mapped.get(answer);
    if (!entries) {
      entries = answer.posts.flatMap((post) => {
        const view = timelinePostToView(post, domain, self);
        return view ? [entryOf(view, post.createdAt)] : [];
      });
      mapped.set(answer, entries);
    }
    return entries;
  }

  return {
    async home(viewer, query) {
      const limit = clampLimit(query.limit, FEED_LIMITS.home);
      const [follows, blocked, filter] = await Promise.all([
        prisma.follow.findMany({
          where: { followerKey: localActorKey(viewer.id) },
          select: {
            followeeUserId: true,
            followeeRemoteActor: { select: { handle: true, nodeDomain: true } },
          },
        }),
        registry.blockedDomains(),
        viewerFilter(prisma, { viewer, self, operatorMutes: false }),
      ]);
      const followees = follows.flatMap((f) => (f.followeeUserId ? [f.followeeUserId] : []));
      const remotes = follows.flatMap((f) =>
        f.followeeRemoteActor &&
        f.followeeRemoteActor.nodeDomain !== self &&
        !blocked.has(f.followeeRemoteActor.nodeDomain)
          ? [f.followeeRemoteActor]
          : [],
      );
      const before = query.before === undefined ? Infinity : new Date(query.before).getTime();

      const keep = (entry: FeedEntry) => !filter.hides(entry.view);
      const [local, remoteReads] = await Promise.all([
        // Top-level posts and reposts (replies live on their threads), limit + 1 shown ones to
        // know if there is a next page.
        keptEntries(
          {
            // Their own, and listed people they follow (views/visibility.ts).
            OR: [{ authorId: viewer.id }, { authorId: { in: followees }, author: LISTED_ACCOUNT }],
            apId: null,
            deletedAt: null,
            replyToId: null,
            ...beforeFilter(query.before),
          },
          limit + 1,
          keep,
        ),
        Promise.all(
          remotes.map((actor) =>
            reader.read(
              actor.nodeDomain,
              `${SWARM_PATHS.user(actor.handle)}?limit=${REMOTE_USER_POSTS}`,
              peerSwarmUserResponseSchema,
            ),
          ),
        ),
      ]);

      const entries = [...local.entries];
      const unreachable = new Set<string>();
      remoteReads.forEach((read) => {
        if (!read.ok) {
          unreachable.add(read.domain);
          return;
        }
        const { profile, posts } = read.value;
        const author = actorView(
          {
            handle: profile.handle,
            domain: read.domain,
            displayName: profile.displayName,
            avatarUrl: profile.avatarUrl,
          },
          self,
        );
        for (const post of posts) {
          const view = profilePostToView(post, author, read.domain, self);
          const entry = entryOf(view, post.createdAt);
          if (entry.at < before && keep(entry)) entries.push(entry);
        }
      });

      const page = pageWithin(entries, limit, local.frontier);
      await shownPosts?.remember(page.views);
      return {
        posts: await withViewerState(prisma, viewer, page.views),
        nextBefore: page.nextBefore,
        followsNobody: follows.length === 0,
        unreachable: [...unreachable].sort(),
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
      const started = performance.now();
      const [own, peers, filter] = await Promise.all([
        content.timeline({ limit: PEER_TIMELINE_POSTS }),
        activePeers(),
        viewerFilter(prisma, { viewer, self, operatorMutes: true }),
      ]);
      const ownMs = Math.round(performance.now() - started);
      const reads = await Promise.all(
        peers.map((peer) =>
          reader.read(
            peer.domain,
            `${SWARM_PATHS.timeline}?limit=${PEER_TIMELINE_POSTS}`,
            timelineResponseSchema,
          ),
        ),
      );

      const nodes: SwarmFeedNode[] = [{ domain: self, ok: true, ms: ownMs }];
      const candidates: FeedEntry[] = [...timelineEntries(own, self)];
      for (const read of reads) {
        if (read.ok) {
          nodes.push({ domain: read.domain, ok: true, ms: read.ms });
          candidates.push(...timelineEntries(read.value, read.domain));
        } else {
          nodes.push({ domain: read.domain, ok: false, ms: read.ms, error: read.error });
        }
      }

      // Newest first, one per id; NSFW left out unless the viewer opted in, counted only when
      // it would have shown on this page (newer than the oldest post shown).
      const seen = new Set<string>();
      const unique = candidates.sort(byNewest).filter((entry) => {
        if (seen.has(entry.view.id) || filter.hides(entry.view)) return false;
        seen.add(entry.view.id);
        return true;
      });
      const showNsfw = viewer?.showNsfw ?? false;
      const shown = unique.filter((entry) => showNsfw || !entry.view.isNsfw).slice(0, limit);
      const oldestShown = shown.length === limit ? shown[shown.length - 1]!.at : -Infinity;
      const hiddenNsfw = showNsfw
        ? 0
        : unique.filter((entry) => entry.view.isNsfw && entry.at >= oldestShown).length;

      const views = shown.map((entry) => entry.view);
      await shownPosts?.remember(views);
      return {
        posts: await withViewerState(prisma, viewer, views),
        nodes,
        unreachable: nodes.filter((n) => !n.ok).map((n) => n.domain),
        hiddenNsfw,
      };
    },
  };
}
