import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import { upsertRemoteActor } from '../interactions/interaction-effects.ts';
import type { Logger } from '../logger.ts';
import type { PostView } from '../views/index.ts';

/**
 * Remote posts this node has just shown (swarm feed, home, profiles, post pages), as their
 * nodes sent them. Two uses (docs/decisions.md "Web app"):
 * - a first action on a remote post whose node is down right now can still make its copy row
 *   from what the user was looking at, instead of being refused;
 * - a placeholder copy (made from an author hint, empty content) is corrected from the first
 *   successful read of the post: fetched data always wins over a hint.
 */
export interface SeenPosts {
  /** Remembers the remote ones among `views` and refreshes placeholder copies of them. */
  remember(views: readonly PostView[]): Promise<void>;
  /** The remote post last shown under this id (`swarm:{domain}:{postId}`), if still kept. */
  lookup(id: string): PostView | undefined;
}

/** Posts kept at most (least recently shown out first). */
export const SEEN_POSTS_MAX = 5_000;

export function createSeenPosts(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  maxEntries?: number;
}): SeenPosts {
  const { db, clock, logger } = deps;
  const prisma = db.prisma;
  const max = deps.maxEntries ?? SEEN_POSTS_MAX;
  const posts = new Map<string, PostView>();

  /** Placeholder copies are the ones with no content and no media (a real post has one). */
  async function refreshPlaceholders(views: Map<string, PostView>) {
    const placeholders = await prisma.post.findMany({
      where: { apId: { in: [...views.keys()] }, content: '', media: { none: {} } },
      select: { id: true, apId: true },
    });
    for (const copy of placeholders) {
      const view = copy.apId ? views.get(copy.apId) : undefined;
      if (!view || !view.author.isRemote) continue;
      if (view.content === '' && view.media.length === 0) continue;
      const { author } = view;
      await prisma.$transaction(async (tx) => {
        const stored = await upsertRemoteActor(
          tx,
          {
            handle: author.handle,
            domain: author.domain,
            displayName: author.displayName,
            avatarUrl: author.avatarUrl ?? '',
            bio: '',
          },
          { now: clock.now() },
        );
        const { count } = await tx.post.updateMany({
          where: { id: copy.id, content: '' },
          data: {
            remoteAuthorId: stored.id,
            content: view.content,
            isNsfw: view.isNsfw,
            createdAt: new Date(view.createdAt),
            linkPreviewUrl: view.linkPreview?.url ?? null,
            likesCount: view.likesCount,
            repostsCount: view.repostsCount,
            repliesCount: view.repliesCount,
          },
        });
        // A concurrent read refreshed it first: its media are in already.
        if (count > 0 && view.media.length > 0) {
          await tx.mediaItem.createMany({
            data: view.media.map((item, position) => ({
              postId: copy.id,
              url: item.url,
              mimeType: item.mimeType,
              altText: item.altText,
              position,
            })),
          });
        }
      });
      logger.info({ post: copy.apId }, 'placeholder copy refreshed from its node');
    }
  }

  return {
    async remember(views) {
      const remote = new Map<string, PostView>();
      for (const view of views) {
        if (!view.isRemote || !view.id.startsWith('swarm:')) continue;
        remote.set(view.id, view);
        posts.delete(view.id);
        posts.set(view.id, view);
      }
      while (posts.size > max) posts.delete(posts.keys().next().value as string);
      if (remote.size === 0) return;
      try {
        await refreshPlaceholders(remote);
      } catch (error) {
        // A read must not fail because a copy could not be corrected; the next read tries again.
        logger.warn({ err: error }, 'placeholder copies not refreshed');
      }
    },
    lookup: (id) => posts.get(id),
  };
}
