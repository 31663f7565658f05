import { ok, type Result } from '@swarm/contract';
import {
  postViewSelect,
  rowToPostView,
  withViewerState,
  type Viewer,
} from '../feeds/post-views.ts';
import {
  formatCursor,
  pageOrder,
  parseCursor,
  pastPosition,
  scanPage,
  type PageDirection,
  type RowPosition,
} from '../feeds/row-paging.ts';
import { refuse, type Refusal } from '../refusal.ts';
import { readableByViewer, viewerFilter } from '../views/visibility.ts';
import {
  BOOKMARK_PAGE,
  BOOKMARK_SCAN_MAX_ROWS,
  type BookmarkDeps,
  type BookmarkEntry,
  type BookmarkPage,
  type BookmarkQuery,
} from './bookmark-types.ts';

/**
 * The viewer's bookmarks, newest bookmarked first, by the one visibility rule: posts deleted
 * since, of authors hidden or suspended since, of people the viewer muted or blocked (or who
 * blocked them), of nodes this node blocked, drop out of the list (their rows stay, and come
 * back if the cause goes).
 */
export async function listBookmarks(
  deps: BookmarkDeps,
  viewer: Viewer,
  query: BookmarkQuery,
): Promise<Result<BookmarkPage, Refusal>> {
  const prisma = deps.db.prisma;
  const self = deps.config.domain;
  if (query.before !== undefined && query.after !== undefined) {
    return refuse('INVALID_REQUEST', 'Page either before or after a bookmark, not both.');
  }
  const direction: PageDirection = query.after !== undefined ? 'newer' : 'older';
  const raw = query.after ?? query.before;
  let start: RowPosition | null = null;
  if (raw !== undefined) {
    const parsed = parseCursor(raw);
    if (!parsed.ok) return refuse('INVALID_REQUEST', `Not a bookmarks cursor: ${parsed.reason}.`);
    start = parsed.value;
  }
  const limit = Math.min(
    Math.max(1, Math.trunc(query.limit ?? BOOKMARK_PAGE.default)),
    BOOKMARK_PAGE.max,
  );
  const [filter, blocked] = await Promise.all([
    viewerFilter(prisma, { viewer, self, operatorMutes: false }),
    deps.registry.blockedDomains(),
  ]);
  const readable = readableByViewer(viewer.id);
  const page = await scanPage({
    start,
    limit,
    maxRows: BOOKMARK_SCAN_MAX_ROWS,
    read: (from, take) =>
      prisma.bookmark.findMany({
        where: {
          userId: viewer.id,
          post: readable,
          ...(from ? pastPosition(from, direction) : {}),
        },
        orderBy: [...pageOrder(direction)],
        take,
        select: { id: true, createdAt: true, postId: true, post: { select: postViewSelect } },
      }),
    position: (row) => ({ at: row.createdAt, id: row.id }),
    view: (row) => {
      const view = rowToPostView(row.post, self);
      if (!view || filter.hides(view) || blocked.has(view.nodeDomain)) return null;
      return { view, row };
    },
  });
  const read = direction === 'older' ? page.items : [...page.items].reverse();
  const posts = await withViewerState(
    prisma,
    viewer,
    read.map((entry) => entry.item.view),
  );
  const entries: BookmarkEntry[] = read.map((entry, i) => ({
    post: posts[i]!,
    bookmarkId: entry.item.row.id,
    postRowId: entry.item.row.postId,
    bookmarkedAt: entry.item.row.createdAt.toISOString(),
    cursor: formatCursor(entry.position),
  }));
  const oldest = entries[entries.length - 1]?.cursor ?? null;
  return ok({
    entries,
    posts,
    next:
      direction === 'older'
        ? page.next && formatCursor(page.next)
        : (oldest ?? (start && formatCursor(start))),
    prev: entries[0]?.cursor ?? null,
  });
}
