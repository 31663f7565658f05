import { ok, type Result } from '@swarm/contract';
import { localActorKey, type Prisma } from '@swarm/db';
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
import { LISTED_ACCOUNT, readableByViewer, viewerFilter } from '../views/visibility.ts';
import {
  LIST_SCAN_MAX_ROWS,
  LIST_TIMELINE_PAGE,
  ownedList,
  type ListDeps,
  type ListTimeline,
  type RepliesPolicy,
} from './list-types.ts';

/**
 * A list's timeline: the posts and reposts of its members whom the owner still follows, newest
 * first, from this node's database only (remote members' posts are the copies their nodes pushed
 * or the poller read: no page waits on another node). The one visibility rule applies
 * (views/visibility.ts): deleted posts, hidden or suspended authors, people and nodes the viewer
 * muted or blocked, people who blocked them and nodes this node blocked are left out. Replies
 * follow the list's policy.
 */
export async function listTimeline(
  deps: ListDeps,
  viewer: Viewer,
  listId: string,
  query: { before?: string; after?: string; limit?: number },
): Promise<Result<ListTimeline, Refusal>> {
  const prisma = deps.db.prisma;
  const self = deps.config.domain;
  const list = await ownedList(prisma, viewer.id, listId);
  if (!list.ok) return list;
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
  const me = localActorKey(viewer.id);
  const keys = await prisma.listMember.findMany({
    where: { listId: list.value.id },
    select: { memberKey: true },
  });
  const [members, blocked, filter] = await Promise.all([
    // Only members still followed (an unfollow takes them off; this covers any other way).
    prisma.follow.findMany({
      where: { followerKey: me, followeeKey: { in: keys.map((m) => m.memberKey) } },
      select: {
        followeeUserId: true,
        followeeRemoteActorId: true,
        followeeRemoteActor: { select: { nodeDomain: true } },
      },
    }),
    deps.registry.blockedDomains(),
    viewerFilter(prisma, { viewer, self, operatorMutes: false }),
  ]);
  const localIds = members.flatMap((m) => (m.followeeUserId ? [m.followeeUserId] : []));
  const remoteIds = members.flatMap((m) =>
    m.followeeRemoteActorId &&
    m.followeeRemoteActor &&
    m.followeeRemoteActor.nodeDomain !== self &&
    !blocked.has(m.followeeRemoteActor.nodeDomain)
      ? [m.followeeRemoteActorId]
      : [],
  );
  if (localIds.length === 0 && remoteIds.length === 0) {
    return ok({ posts: [], next: null, prev: null, cursors: [] });
  }
  const where: Prisma.PostWhereInput = {
    AND: [
      {
        OR: [
          { authorId: { in: localIds }, author: LISTED_ACCOUNT, apId: null },
          { remoteAuthorId: { in: remoteIds }, apId: { not: null } },
        ],
      },
      readableByViewer(viewer.id),
      repliesWhere(list.value.repliesPolicy, me, viewer.id, localIds, remoteIds),
    ],
  };
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

/** Which replies the list shows: top-level posts and reposts always. */
function repliesWhere(
  policy: RepliesPolicy,
  me: string,
  viewerId: string,
  localIds: string[],
  remoteIds: string[],
): Prisma.PostWhereInput {
  if (policy === 'none') return { replyToId: null };
  const parent: Prisma.PostWhereInput =
    policy === 'list'
      ? { OR: [{ authorId: { in: localIds } }, { remoteAuthorId: { in: remoteIds } }] }
      : {
          OR: [
            { authorId: viewerId },
            { author: { followers: { some: { followerKey: me } } } },
            { remoteAuthor: { followers: { some: { followerKey: me } } } },
          ],
        };
  return { OR: [{ replyToId: null }, { replyTo: parent }] };
}
