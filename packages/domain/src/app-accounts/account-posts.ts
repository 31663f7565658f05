import { localActorKey, type Db, type Prisma } from '@swarm/db';
import { visibilityFor } from '../views/visibility.ts';
import type { AppAccount } from './account-records.ts';

/**
 * A person's posts as apps page them (`/api/v1/accounts/:id/statuses`): by `api_id`, newest
 * first, from this node's database. A local person's posts and reposts under the audience rule
 * of views/visibility.ts (followers-only to accepted followers, none to someone they blocked); a
 * remote person's copies kept here, public ones, and followers-only ones to a viewer who follows
 * them (those were delivered because someone here does). The answer is row ids; the client read
 * model renders them.
 */

export interface AccountPostsQuery {
  maxId?: bigint | undefined;
  sinceId?: bigint | undefined;
  minId?: bigint | undefined;
  limit: number;
  excludeReplies: boolean;
  excludeReblogs: boolean;
  onlyMedia: boolean;
}

export const ACCOUNT_POSTS_LIMIT = { default: 20, max: 40 } as const;

export async function accountPostRows(
  prisma: Db['prisma'],
  viewer: { id: string; handle: string } | null,
  account: Pick<AppAccount, 'id' | 'isRemote'>,
  query: AccountPostsQuery,
  self: string,
): Promise<{ rowIds: string[]; apiIds: bigint[] }> {
  let audience: Prisma.PostWhereInput;
  if (!account.isRemote) {
    audience = {
      authorId: account.id,
      apId: null,
      ...(await visibilityFor(prisma, viewer, account.id, false, self)),
    };
  } else {
    const follows = viewer
      ? await prisma.follow.count({
          where: {
            followerKey: localActorKey(viewer.id),
            followeeRemoteActorId: account.id,
            state: 'accepted',
          },
        })
      : 0;
    audience = {
      remoteAuthorId: account.id,
      apId: { not: null },
      visibility: follows > 0 ? { in: ['public', 'followers'] } : 'public',
    };
  }
  const apiId: Prisma.BigIntFilter = {};
  if (query.maxId !== undefined) apiId.lt = query.maxId;
  const above = query.sinceId ?? query.minId;
  if (above !== undefined) apiId.gt = above;
  const ascending = query.minId !== undefined && query.sinceId === undefined;
  const rows = await prisma.post.findMany({
    where: {
      ...audience,
      deletedAt: null,
      ...(Object.keys(apiId).length ? { apiId } : {}),
      ...(query.excludeReplies ? { replyToId: null } : {}),
      ...(query.excludeReblogs || query.onlyMedia ? { repostOfId: null } : {}),
      ...(query.onlyMedia ? { media: { some: {} } } : {}),
    },
    orderBy: { apiId: ascending ? 'asc' : 'desc' },
    take: query.limit,
    select: { id: true, apiId: true },
  });
  if (ascending) rows.reverse();
  return { rowIds: rows.map((r) => r.id), apiIds: rows.map((r) => r.apiId) };
}
