import { ok, type Result } from '@swarm/contract';
import { localActorKey, type Prisma } from '@swarm/db';
import { followeeIds } from '../feeds/home-audience.ts';
import type { Refusal } from '../refusal.ts';
import {
  LISTED_ACCOUNT,
  readableByViewer,
  viewerFilter,
  type ViewerFilter,
} from '../views/visibility.ts';
import { ownedList, type ListDeps, type ListView, type RepliesPolicy } from './list-types.ts';

/**
 * Whose posts a list's timeline holds, one rule for our pages (list-timeline.ts) and for apps
 * (client-reads): the posts and reposts of members the owner still follows (an unfollow takes
 * them off; this covers any other way), local ones and the copies kept of remote ones, replies
 * by the list's policy, under the one visibility rule (views/visibility.ts). `where` is null
 * when no member is left (the timeline is empty).
 */
export interface ListAudience {
  list: ListView;
  where: Prisma.PostWhereInput | null;
  /** Who the owner muted or blocked, and who blocked them: filtered after the read. */
  filter: ViewerFilter;
  /** Nodes this node blocked: their people's posts are left out. */
  blocked: ReadonlySet<string>;
}

export async function readListAudience(
  deps: Pick<ListDeps, 'db' | 'config' | 'registry'>,
  viewer: { id: string; handle: string },
  listId: string,
): Promise<Result<ListAudience, Refusal>> {
  const prisma = deps.db.prisma;
  const self = deps.config.domain;
  const list = await ownedList(prisma, viewer.id, listId);
  if (!list.ok) return list;
  const me = localActorKey(viewer.id);
  const keys = await prisma.listMember.findMany({
    where: { listId: list.value.id },
    select: { memberKey: true },
  });
  const [members, blocked, filter] = await Promise.all([
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
  const { localIds, remoteIds } = followeeIds(members, self, blocked);
  const where: Prisma.PostWhereInput | null =
    localIds.length === 0 && remoteIds.length === 0
      ? null
      : {
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
  return ok({ list: list.value, where, filter, blocked });
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
