import { ok } from '@swarm/contract';
import { commitIfOk } from '../refusal.ts';
import type { ActionDeps } from './action-support.ts';
import { postPushBody, queuePostPushes } from './post-fan-out.ts';
import { pushedPostOf } from './post-push-body.ts';

/**
 * Pushing a post again when its counts have grown enough to matter (docs/protocol.md "Post
 * delivery", "Sending"): when its likes, reposts or replies reach the next threshold, the post
 * goes again to the nodes of the author's followers with `counts`, the same post object and the
 * same stored `postSignature` (counts are outside the signature). Run by the outbox worker before
 * its batches, at most once a minute per process: crossings within that minute are coalesced
 * into one push, and the scan costs a few indexed queries a minute.
 */

/** A post is pushed again when one of its counts reaches the next of these. */
export const REPUSH_THRESHOLDS = [1, 5, 10, 50, 100, 500, 1_000, 5_000, 10_000] as const;
/** Only posts this young are pushed again; older ones are read, not pushed. */
export const REPUSH_MAX_AGE_MS = 7 * 24 * 3_600_000;
/** Posts pushed again per run (the rest next time). */
export const REPUSH_BATCH = 20;
/** A run at most this often (per process; another replica's run is harmless, see `repush`). */
export const REPUSH_INTERVAL_MS = 60_000;

/** How many thresholds the largest of the counts has reached. */
export function engagementLevel(counts: {
  likesCount: number;
  repostsCount: number;
  repliesCount: number;
}): number {
  const most = Math.max(counts.likesCount, counts.repostsCount, counts.repliesCount);
  return REPUSH_THRESHOLDS.filter((t) => most >= t).length;
}

export interface PostRepush {
  /** Queues the pushes of the posts whose counts reached a new threshold: how many posts. */
  queueDue(): Promise<number>;
}

const rowSelect = {
  id: true,
  authorId: true,
  content: true,
  createdAt: true,
  isNsfw: true,
  visibility: true,
  postSignature: true,
  postDelegation: true,
  pushedLevel: true,
  likesCount: true,
  repostsCount: true,
  repliesCount: true,
  linkPreviewUrl: true,
  linkPreviewTitle: true,
  linkPreviewDescription: true,
  linkPreviewImage: true,
  replyTo: { select: { id: true, apId: true } },
  media: { select: { url: true, mimeType: true, altText: true }, orderBy: { position: 'asc' } },
  author: {
    select: { handle: true, displayName: true, avatarUrl: true, did: true, isNsfw: true },
  },
} as const;

export function createPostRepush(deps: Pick<ActionDeps, 'db' | 'clock' | 'config' | 'delivery'>) {
  const { db, clock, config, delivery } = deps;
  const prisma = db.prisma;
  const self = config.domain;
  let lastRun: number | null = null;

  /** Local, live, pushed posts (not reposts, not moved in) at `level` whose counts passed it. */
  function dueAt(level: number, since: Date, take: number) {
    const t = REPUSH_THRESHOLDS[level]!;
    return prisma.post.findMany({
      where: {
        apId: null,
        authorId: { not: null },
        deletedAt: null,
        repostOfId: null,
        movedFrom: null,
        visibility: { in: ['public', 'followers'] },
        createdAt: { gte: since },
        pushedLevel: level,
        OR: [
          { likesCount: { gte: t } },
          { repostsCount: { gte: t } },
          { repliesCount: { gte: t } },
        ],
      },
      select: { id: true, pushedLevel: true },
      orderBy: { createdAt: 'desc' },
      take,
    });
  }

  /** One post: the level moved on (once, whoever else runs this) and its pushes queued. */
  async function repush(id: string, from: number): Promise<boolean> {
    const done = await commitIfOk(db, async (tx) => {
      const row = await tx.post.findUnique({ where: { id }, select: rowSelect });
      if (!row?.author || !row.authorId) return ok(false);
      if (row.visibility === 'unlisted') return ok(false);
      const level = engagementLevel(row);
      const claimed = await tx.post.updateMany({
        where: { id, pushedLevel: from },
        data: { pushedLevel: level },
      });
      if (claimed.count === 0 || level <= from) return ok(false);
      const post = pushedPostOf({
        id: row.id,
        content: row.content,
        createdAt: row.createdAt,
        isNsfw: row.isNsfw,
        visibility: row.visibility,
        replyToId: row.replyTo ? (row.replyTo.apId ?? row.replyTo.id) : null,
        media: row.media,
        linkPreview: {
          url: row.linkPreviewUrl,
          title: row.linkPreviewTitle,
          description: row.linkPreviewDescription,
          image: row.linkPreviewImage,
        },
      });
      const body = postPushBody({
        post,
        author: row.author,
        self,
        at: clock.now(),
        postSignature: row.postSignature,
        postDelegation: row.postDelegation
          ? (JSON.parse(row.postDelegation) as Record<string, unknown>)
          : null,
        counts: {
          likesCount: row.likesCount,
          repostsCount: row.repostsCount,
          repliesCount: row.repliesCount,
        },
      });
      await queuePostPushes(tx, delivery, {
        authorId: row.authorId,
        postId: id,
        self,
        body,
        delegated: row.postDelegation !== null,
      });
      return ok(true);
    });
    return done.ok && done.value;
  }

  return {
    async queueDue() {
      const now = clock.now().getTime();
      if (lastRun !== null && now - lastRun < REPUSH_INTERVAL_MS) return 0;
      lastRun = now;
      const since = new Date(now - REPUSH_MAX_AGE_MS);
      let pushed = 0;
      let room = REPUSH_BATCH;
      for (let level = 0; level < REPUSH_THRESHOLDS.length && room > 0; level++) {
        const due = await dueAt(level, since, room);
        room -= due.length;
        for (const row of due) if (await repush(row.id, row.pushedLevel)) pushed++;
      }
      return pushed;
    },
  } satisfies PostRepush;
}
