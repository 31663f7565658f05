import { findHashtags } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { Lifecycle } from '../lifecycle.ts';
import type { Logger } from '../logger.ts';
import {
  streamFollowersSql,
  streamGonePostsSql,
  streamHiddenSql,
  streamNewNotificationsSql,
  streamNewPostsSql,
} from '../persistence/stream.sql.ts';
import { READS_TOPIC, type Invalidations } from '../replicas/invalidations.ts';
import { addressKey, isHidden, type HiddenSet } from '../views/visibility.ts';
import { LIVE_TOPIC } from './live-hub.ts';

/**
 * What apps' streaming (Mastodon's `/api/v1/streaming`, packages/client-api) is made of: the
 * posts that appear on the node, the posts that go away, and new notifications, in batches, and
 * who may receive each. One feed per process, however many sockets: it listens to the node's
 * invalidation bus (any write on any replica publishes there) and reads what changed from the
 * database, so every replica learns of every post whichever process stored it, and a slow
 * timer catches a write that published nothing.
 *
 * Reads look back a few seconds and drop what they already announced: a post written in a
 * transaction that commits late is still found. Deletions are found among the posts announced
 * recently (bounded): apps are told of what they may be showing, not of every old post. So are
 * edits: a copy announced recently and stored again with other text, images or link (another
 * `shown_hash`) is announced as updated; a copy stored again with new counts only is not.
 */

/** A post as the streams route it (viewer-independent facts). */
export interface StreamPost {
  id: string;
  apiId: string;
  /** The local author, or null for a copy. */
  authorId: string | null;
  remoteAuthorId: string | null;
  author: { handle: string; domain: string };
  /** Reposts: the reposted post's author (a viewer who muted them does not get the repost). */
  repostOf: { id: string; author: { handle: string; domain: string } } | null;
  visibility: 'public' | 'unlisted' | 'followers' | string;
  local: boolean;
  isReply: boolean;
  tags: readonly string[];
  /** May be listed on public streams: public, top-level, author listed and not silenced, node not blocked or muted by the operator. */
  listed: boolean;
  /** May reach anyone at all (author shown, node not blocked). */
  shown: boolean;
}

export interface StreamNotification {
  id: string;
  apiId: string;
  recipientId: string;
  type: string;
  createdAt: Date;
  /** Who did it: a local user's or a remote actor's id (null when neither is kept). */
  accountId: string | null;
  /** The stored post concerned, unless deleted. */
  postId: string | null;
}

export interface StreamBatch {
  posts: StreamPost[];
  /** Copies announced before whose text, images or link changed since (`status.update`). */
  updated: StreamPost[];
  /** Posts announced before that are deleted now (their facts as announced). */
  deleted: StreamPost[];
  notifications: StreamNotification[];
}

/** Who of some viewers may get which posts of a batch. */
export interface StreamAudience {
  /** Whether `viewer` follows the post's author (home streams; followers-only posts). */
  follows(viewer: string, post: StreamPost): boolean;
  /** Whether `viewer` muted or blocked the author (or reposted author), or was blocked by them. */
  hides(viewer: string, post: StreamPost): boolean;
}

export interface StreamFeed {
  /** Starts listening (once), calls `listener` with each non-empty batch; returns the stop. */
  subscribe(listener: (batch: StreamBatch) => void): () => void;
  /** The users whose notifications the feed reads (those with a user stream open here). */
  watchNotifications(users: () => Iterable<string>): void;
  audience(posts: readonly StreamPost[], viewers: readonly string[]): Promise<StreamAudience>;
  /** Reads now (tests; events schedule this by themselves). */
  poll(): Promise<void>;
}

export const STREAM_FEED_DEFAULTS = {
  /** Events within this window make one read. */
  coalesceMs: 50,
  /** A read this often even without an event (a write that published nothing). */
  pollMs: 2_000,
  /** How far each read looks back (late commits, clocks of other processes). */
  lookbackMs: 10_000,
  /** Copies dated earlier than this are not news when they arrive. */
  maxCopyAgeMs: 24 * 60 * 60 * 1000,
  /** Rows per read; the next read continues. */
  batch: 500,
  /** Posts announced in the last `recentMs`, at most `maxRecent`, are watched for deletion. */
  recentMs: 6 * 60 * 60 * 1000,
  maxRecent: 10_000,
} as const;

export type StreamFeedOptions = Partial<typeof STREAM_FEED_DEFAULTS>;

interface PostRow {
  id: string;
  api_id: string;
  author_id: string | null;
  remote_author_id: string | null;
  visibility: string;
  local: boolean;
  is_reply: boolean;
  repost_of_id: string | null;
  content: string;
  shown_hash: string;
  seen_at: Date;
  handle: string | null;
  node_domain: string | null;
  hidden: boolean;
  moved: boolean;
  silenced: boolean;
  node_blocked: boolean;
  node_muted: boolean;
  repost_handle: string | null;
  repost_node_domain: string | null;
  db_now: Date;
}

function postOf(row: PostRow, self: string): StreamPost {
  const shown = !row.hidden && !row.node_blocked && row.handle !== null;
  return {
    id: row.id,
    apiId: row.api_id,
    authorId: row.author_id,
    remoteAuthorId: row.remote_author_id,
    author: { handle: row.handle ?? '', domain: row.node_domain ?? self },
    repostOf:
      row.repost_of_id && row.repost_handle
        ? {
            id: row.repost_of_id,
            author: { handle: row.repost_handle, domain: row.repost_node_domain ?? self },
          }
        : null,
    visibility: row.visibility,
    local: row.local,
    isReply: row.is_reply,
    tags: findHashtags(row.content),
    listed:
      shown &&
      row.visibility === 'public' &&
      !row.is_reply &&
      row.repost_of_id === null &&
      !row.moved &&
      !row.silenced &&
      !row.node_muted,
    shown,
  };
}

export function createStreamFeed(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  invalidations: Invalidations;
  lifecycle?: Lifecycle;
  domain: string;
  options?: StreamFeedOptions;
}): StreamFeed {
  const { db, clock, logger, invalidations, domain: self } = deps;
  const options = { ...STREAM_FEED_DEFAULTS, ...deps.options };
  const listeners = new Set<(batch: StreamBatch) => void>();
  let watched: () => Iterable<string> = () => [];
  /** Announced ids, with when they were announced (posts also with their facts and shown hash). */
  const announcedPosts = new Map<string, { at: number; post: StreamPost; shown: string }>();
  const announcedNotifications = new Map<string, number>();
  let postsSince: Date | undefined;
  let notificationsSince: Date | undefined;
  let unsubscribe: (() => void)[] = [];
  let poller: ReturnType<typeof setInterval> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  /** Deletions are looked for on events (a deletion publishes), not on every timer read. */
  let checkGone = false;

  function start() {
    if (unsubscribe.length > 0) return;
    // After a quiet spell (no connection) the feed starts from now, not from where it stopped.
    postsSince = undefined;
    notificationsSince = undefined;
    const changed = () => schedule(true);
    unsubscribe = [
      invalidations.subscribe(READS_TOPIC, changed),
      invalidations.subscribe(LIVE_TOPIC, changed),
    ];
    poller = setInterval(() => schedule(false), options.pollMs);
    poller.unref?.();
  }

  function stop() {
    for (const off of unsubscribe) off();
    unsubscribe = [];
    clearInterval(poller);
    poller = undefined;
  }

  function schedule(event: boolean) {
    if (event) checkGone = true;
    if (timer || listeners.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      void run();
    }, options.coalesceMs);
    timer.unref?.();
  }

  async function run(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = read().finally(() => (running = undefined));
    await running;
    if (again) {
      again = false;
      schedule(false);
    }
  }

  function forget(now: number) {
    const cutoff = now - options.recentMs;
    for (const [id, entry] of announcedPosts) {
      if (entry.at >= cutoff && announcedPosts.size <= options.maxRecent) break;
      announcedPosts.delete(id);
    }
    const window = now - 3 * options.lookbackMs;
    for (const [id, at] of announcedNotifications) {
      if (at >= window) break;
      announcedNotifications.delete(id);
    }
  }

  async function read() {
    const batch: StreamBatch = { posts: [], updated: [], deleted: [], notifications: [] };
    const now = clock.now().getTime();
    try {
      const since = postsSince ?? new Date(now - options.lookbackMs);
      const rows = await db.prisma.$queryRaw<PostRow[]>(
        streamNewPostsSql(since, new Date(now - options.maxCopyAgeMs), options.batch),
      );
      for (const row of rows) {
        const known = announcedPosts.get(row.id);
        if (known?.shown === row.shown_hash) continue;
        const post = postOf(row, self);
        // An edit keeps its place among the recent (the order deletions are forgotten in).
        if (known) Object.assign(known, { post, shown: row.shown_hash });
        else announcedPosts.set(row.id, { at: now, post, shown: row.shown_hash });
        (known ? batch.updated : batch.posts).push(post);
      }
      // A full batch: the rest next time, from where this one ended; else the next read looks
      // back from the database's clock.
      const last = rows[rows.length - 1];
      if (last && rows.length >= options.batch) {
        postsSince = new Date(last.seen_at.getTime() - 1);
        again = true;
      } else {
        postsSince = new Date((last?.db_now ?? new Date(now)).getTime() - options.lookbackMs);
      }

      const recipients = [...new Set(watched())];
      if (recipients.length > 0) {
        const since = notificationsSince ?? new Date(now - options.lookbackMs);
        const notes = await db.prisma.$queryRaw<
          {
            id: string;
            api_id: string;
            recipient_id: string;
            type: string;
            created_at: Date;
            account_id: string | null;
            post_id: string | null;
          }[]
        >(streamNewNotificationsSql(recipients, since, self, options.batch));
        for (const n of notes) {
          if (announcedNotifications.has(n.id)) continue;
          announcedNotifications.set(n.id, now);
          batch.notifications.push({
            id: n.id,
            apiId: n.api_id,
            recipientId: n.recipient_id,
            type: n.type,
            createdAt: new Date(n.created_at),
            accountId: n.account_id,
            postId: n.post_id,
          });
        }
      }
      notificationsSince = new Date(now - options.lookbackMs);

      if (checkGone && announcedPosts.size > 0) {
        checkGone = false;
        const gone = await db.prisma.$queryRaw<{ id: string }[]>(
          streamGonePostsSql([...announcedPosts.keys()]),
        );
        for (const { id } of gone) {
          const entry = announcedPosts.get(id);
          if (!entry) continue;
          announcedPosts.delete(id);
          batch.deleted.push(entry.post);
        }
      }
      forget(now);
    } catch (err) {
      // The next event or tick tries again; the sockets stay open meanwhile.
      logger.warn({ err }, 'streaming: could not read what changed');
    }
    const events =
      batch.posts.length + batch.updated.length + batch.deleted.length + batch.notifications.length;
    if (events === 0) return;
    for (const listener of listeners) {
      try {
        listener(batch);
      } catch (err) {
        logger.error({ err }, 'streaming: a listener failed');
      }
    }
  }

  const feed: StreamFeed = {
    subscribe(listener) {
      listeners.add(listener);
      start();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) stop();
      };
    },
    watchNotifications(users) {
      watched = users;
    },
    async audience(posts, viewers) {
      if (posts.length === 0 || viewers.length === 0) {
        return { follows: () => false, hides: () => false };
      }
      const local = [...new Set(posts.flatMap((p) => (p.authorId ? [p.authorId] : [])))];
      const remote = [
        ...new Set(posts.flatMap((p) => (p.remoteAuthorId ? [p.remoteAuthorId] : []))),
      ];
      const people = new Set<string>();
      const nodes = new Set<string>();
      for (const post of posts) {
        for (const who of [post.author, post.repostOf?.author]) {
          if (!who) continue;
          people.add(addressKey(who.handle, who.domain));
          nodes.add(who.domain.toLowerCase());
        }
      }
      const [followRows, hiddenRows] = await Promise.all([
        db.prisma.$queryRaw<{ viewer: string; author: string }[]>(
          streamFollowersSql(viewers, local, remote),
        ),
        db.prisma.$queryRaw<{ viewer: string; target: string; kind: string }[]>(
          streamHiddenSql(viewers, [...people], [...nodes], local, self),
        ),
      ]);
      const following = new Set(followRows.map((r) => `${r.viewer} ${r.author}`));
      const hidden = new Map<string, { people: Set<string>; nodes: Set<string> }>();
      for (const row of hiddenRows) {
        let set = hidden.get(row.viewer);
        if (!set) hidden.set(row.viewer, (set = { people: new Set(), nodes: new Set() }));
        (row.kind === 'node' ? set.nodes : set.people).add(row.target);
      }
      return {
        follows: (viewer, post) =>
          following.has(`${viewer} ${post.authorId ?? post.remoteAuthorId}`),
        hides(viewer, post) {
          const set = hidden.get(viewer);
          if (!set) return false;
          const hiddenSet: HiddenSet = { ...set, empty: false };
          return (
            isHidden(hiddenSet, post.author) ||
            (post.repostOf !== null && isHidden(hiddenSet, post.repostOf.author))
          );
        },
      };
    },
    poll: () => run(),
  };
  deps.lifecycle?.onShutdown?.(() => {
    listeners.clear();
    stop();
  });
  return feed;
}
