import { ok, type Result } from '@swarm/contract';
import {
  postViewSelect,
  rowToPostView,
  withViewerState,
  type Viewer,
} from '../feeds/post-views.ts';
import { refuse, type Refusal } from '../refusal.ts';
import type { PostView } from '../views/index.ts';
import { readableByViewer } from '../views/visibility.ts';
import { bookmarkTarget } from './bookmark-target.ts';
import type { BookmarkDeps } from './bookmark-types.ts';

/**
 * Removes the viewer's bookmark of a post, whether or not they can still read it (a bookmark of
 * a post whose author is hidden since can be dropped too). Repeating it changes nothing.
 */
export async function removeBookmark(
  deps: BookmarkDeps,
  viewer: Viewer,
  postId: string,
): Promise<Result<PostView | null, Refusal>> {
  const prisma = deps.db.prisma;
  const self = deps.config.domain;
  const target = bookmarkTarget(postId, self);
  if (!target.ok) return target;
  const row = await prisma.post.findFirst({ where: target.value.where, select: { id: true } });
  if (!row) return refuse('POST_NOT_FOUND', `There is no post ${postId} here.`);
  await prisma.bookmark.deleteMany({ where: { userId: viewer.id, postId: row.id } });
  const readable = await prisma.post.findFirst({
    where: { AND: [{ id: row.id }, readableByViewer(viewer.id)] },
    select: postViewSelect,
  });
  const view = readable && rowToPostView(readable, self);
  if (!view) return ok(null);
  const [shown] = await withViewerState(prisma, viewer, [view]);
  return ok(shown!);
}
