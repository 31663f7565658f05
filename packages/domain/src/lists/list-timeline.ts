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
import { readListAudience } from './list-audience.ts';
import {
  LIST_SCAN_MAX_ROWS,
  LIST_TIMELINE_PAGE,
  type ListDeps,
  type ListTimeline,
} from './list-types.ts';

/**
 * A list's timeline as our pages page it (by time), newest first, from this node's database
 * only (remote members' posts are the copies their nodes pushed or the poller read: no page
 * waits on another node). Whose posts, which replies and what is hidden: list-audience.ts.
 */
export async function listTimeline(
  deps: ListDeps,
  viewer: Viewer,
  listId: string,
  query: { before?: string; after?: string; limit?: number },
): Promise<Result<ListTimeline, Refusal>> {
  const prisma = deps.db.prisma;
  const self = deps.config.domain;
  const audience = await readListAudience(deps, viewer, listId);
  if (!audience.ok) return audience;
  const { where, filter, blocked } = audience.value;
  if (query.before !== undefined && query.after !== undefined) {
    return refuse('INVALID_REQUEST', 'Page either before or after a post, not both.');
  }
  const direction: PageDirection = query.after !== undefined ? 'newer' : 'older';
  const raw = query.after ?? query.before;
  let start: RowPosition | null = null;
  if (raw !== undefined) {
    const parsed = parseCursor(raw);
    if (!parsed.ok) return refuse('INVALID_REQUEST', `Not a timeline cursor: ${parsed.reason}.`);
    start = parsed.value;
  }
  const limit = Math.min(
    Math.max(1, Math.trunc(query.limit ?? LIST_TIMELINE_PAGE.default)),
    LIST_TIMELINE_PAGE.max,
  );
  if (!where) return ok({ posts: [], next: null, prev: null, cursors: [] });
  const page = await scanPage({
    start,
    limit,
    maxRows: LIST_SCAN_MAX_ROWS,
    read: (from, take) =>
      prisma.post.findMany({
        where: from ? { AND: [where, pastPosition(from, direction)] } : where,
        orderBy: [...pageOrder(direction)],
        take,
        select: { ...postViewSelect, id: true, createdAt: true },
      }),
    position: (row) => ({ at: row.createdAt, id: row.id }),
    view: (row) => {
      const view = rowToPostView(row, self);
      if (!view || filter.hides(view) || blocked.has(view.nodeDomain)) return null;
      return view;
    },
  });
  const read = direction === 'older' ? page.items : [...page.items].reverse();
  const posts = await withViewerState(
    prisma,
    viewer,
    read.map((entry) => entry.item),
  );
  const cursors = read.map((entry) => formatCursor(entry.position));
  const oldest = cursors[cursors.length - 1] ?? null;
  return ok({
    posts,
    cursors,
    next:
      direction === 'older'
        ? page.next && formatCursor(page.next)
        : (oldest ?? (start && formatCursor(start))),
    prev: cursors[0] ?? null,
  });
}
