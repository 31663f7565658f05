import { localActorKey, type Db, type Prisma } from '@swarm/db';
import { decodeFollowCursor, encodeFollowCursor } from '../profiles/follow-lists.ts';
import { listedFollowSide } from '../views/visibility.ts';
import { accountsByIds, type AppAccount } from './account-records.ts';

/**
 * A person's followers or following for apps, local or remote alike, from the follows this node
 * knows: all of them for a local person; for a remote person, the follows between them and
 * people here (the whole list lives on their node, whose entries have no ids here). Accepted
 * follows only, listed people only (views/visibility.ts), newest first, paged by the follow's
 * opaque cursor (time and id), which apps get back in Link headers.
 */

export type FollowSide = 'followers' | 'following';

export interface FollowPageQuery {
  /** Older than this cursor. */
  maxId?: string | undefined;
  /** Newer than this cursor, newest first. */
  sinceId?: string | undefined;
  /** Newer than this cursor, the oldest of them first (then answered newest first). */
  minId?: string | undefined;
  limit: number;
}

export interface FollowPage {
  accounts: AppAccount[];
  /** Cursors of the last and first entry, for `max_id` and `min_id` links; null when empty. */
  oldest: string | null;
  newest: string | null;
}

export const FOLLOW_PAGE_LIMIT = { default: 40, max: 80 } as const;

export async function followPage(
  prisma: Db['prisma'],
  account: { id: string; isRemote: boolean; actorKey: string },
  side: FollowSide,
  query: FollowPageQuery,
  self: string,
): Promise<FollowPage> {
  const key = account.actorKey;
  const before = query.maxId === undefined ? null : decodeFollowCursor(query.maxId);
  const afterText = query.minId ?? query.sinceId;
  const after = afterText === undefined ? null : decodeFollowCursor(afterText);
  // An unreadable cursor matches nothing rather than everything.
  if ((query.maxId !== undefined && !before) || (afterText !== undefined && !after)) {
    return { accounts: [], oldest: null, newest: null };
  }
  const where: Prisma.FollowWhereInput = {
    state: 'accepted',
    ...(side === 'followers' ? { followeeKey: key } : { followerKey: key }),
    ...listedFollowSide(side),
    AND: [
      before
        ? {
            OR: [
              { createdAt: { lt: before.createdAt } },
              { createdAt: before.createdAt, id: { lt: before.id } },
            ],
          }
        : {},
      after
        ? {
            OR: [
              { createdAt: { gt: after.createdAt } },
              { createdAt: after.createdAt, id: { gt: after.id } },
            ],
          }
        : {},
    ],
  };
  const ascending = query.minId !== undefined;
  const rows = await prisma.follow.findMany({
    where,
    orderBy: ascending
      ? [{ createdAt: 'asc' }, { id: 'asc' }]
      : [{ createdAt: 'desc' }, { id: 'desc' }],
    take: query.limit,
    select: {
      id: true,
      createdAt: true,
      followerUserId: true,
      followerRemoteActorId: true,
      followeeUserId: true,
      followeeRemoteActorId: true,
    },
  });
  if (ascending) rows.reverse();
  const otherIds = rows.map((r) =>
    side === 'followers'
      ? (r.followerUserId ?? r.followerRemoteActorId)
      : (r.followeeUserId ?? r.followeeRemoteActorId),
  );
  const records = await accountsByIds(
    prisma,
    otherIds.filter((id): id is string => id !== null),
    self,
  );
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    accounts: otherIds.flatMap((id) => {
      const record = id ? records.get(id) : undefined;
      return record ? [record] : [];
    }),
    newest: first ? encodeFollowCursor(first.createdAt, first.id) : null,
    oldest: last ? encodeFollowCursor(last.createdAt, last.id) : null,
  };
}

/** The key follows use for a record. */
export async function actorKeyOf(
  prisma: Db['prisma'],
  account: Pick<AppAccount, 'id' | 'isRemote'>,
): Promise<string | null> {
  if (!account.isRemote) return localActorKey(account.id);
  const row = await prisma.remoteActor.findUnique({
    where: { id: account.id },
    select: { actorUrl: true },
  });
  return row?.actorUrl ?? null;
}
