import { ok, type Result } from '@swarm/contract';
import {
  postViewSelect,
  rowToPostView,
  withViewerState,
  type Viewer,
} from '../feeds/post-views.ts';
import { refuse, type Refusal } from '../refusal.ts';
import { isBlockedBy } from '../views/blocks.ts';
import type { PostView } from '../views/index.ts';
import { readableByViewer } from '../views/visibility.ts';
import { bookmarkTarget } from './bookmark-target.ts';
import { BOOKMARKS_MAX, type BookmarkDeps } from './bookmark-types.ts';

/**
 * Bookmarks a post the viewer can read (views/visibility.ts `readableByViewer`, and not by an
 * author who blocked them): ours, or a copy stored here (a remote post this node holds no copy
 * of cannot be kept, since pages read only this node's database). Nothing leaves the node.
 */
export async function addBookmark(
  deps: BookmarkDeps,
  viewer: Viewer,
  postId: string,
): Promise<Result<PostView, Refusal>> {
  const { db, clock, config, registry } = deps;
  const prisma = db.prisma;
  const self = config.domain;
  const target = bookmarkTarget(postId, self);
  if (!target.ok) return target;
  if (target.value.domain !== self && (await registry.isBlocked(target.value.domain))) {
    return refuse('NODE_BLOCKED', `This node does not talk to ${target.value.domain} (blocked).`);
  }
  const row = await prisma.post.findFirst({
    where: { AND: [target.value.where, readableByViewer(viewer.id)] },
    select: postViewSelect,
  });
  const view = row && rowToPostView(row, self);
  const blocked =
    row?.authorId != null && (await isBlockedBy(prisma, row.authorId, `${viewer.handle}@${self}`));
  if (!row || !view || blocked) {
    return refuse(
      'POST_NOT_FOUND',
      target.value.domain === self
        ? `There is no post ${postId} here.`
        : `This node keeps no copy of ${postId}: open it from a timeline or a profile first.`,
    );
  }
  const key = { userId_postId: { userId: viewer.id, postId: row.id } };
  if (!(await prisma.bookmark.findUnique({ where: key, select: { id: true } }))) {
    const held = await prisma.bookmark.count({ where: { userId: viewer.id } });
    if (held >= BOOKMARKS_MAX) {
      return refuse(
        'INVALID_REQUEST',
        `You can keep at most ${BOOKMARKS_MAX.toLocaleString('en')} bookmarks: remove some first.`,
      );
    }
    await prisma.bookmark.createMany({
      data: [{ userId: viewer.id, postId: row.id, createdAt: clock.now() }],
      skipDuplicates: true,
    });
  }
  const [shown] = await withViewerState(prisma, viewer, [view]);
  return ok(shown!);
}
