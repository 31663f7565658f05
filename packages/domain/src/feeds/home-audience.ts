import { localActorKey, type Prisma, type PrismaClient } from '@swarm/db';
import type { RegistryService } from '../registry/index.ts';
import { LISTED_ACCOUNT, viewerFilter, type ViewerFilter } from '../views/visibility.ts';

/** Copies pages show: written from what their node sent (not a placeholder from a hint). */
export const COPY_SHOWN = { fetchedAt: { not: null } } as const satisfies Prisma.PostWhereInput;

/**
 * Whose posts a person's home timeline holds, one rule for our pages (feed.service.ts) and for
 * apps (client-reads): their own, the listed local people they follow, and the copies of remote
 * people they follow (pushed or polled: no peer is asked while anyone waits), except members of
 * their exclusive lists (read in those lists) and people of blocked nodes. Top-level posts and
 * reposts only: replies live on their threads.
 */
export interface HomeAudience {
  /** The posts' rows, before paging. */
  where: Prisma.PostWhereInput;
  /** Who the viewer muted or blocked, and who blocked them: filtered after the read. */
  filter: ViewerFilter;
  followsNobody: boolean;
}

/** A follow row's followee, as the home and list rules read it. */
export interface FolloweeRow {
  followeeUserId: string | null;
  followeeRemoteActorId: string | null;
  followeeRemoteActor: { nodeDomain: string } | null;
}

/**
 * The local people and the remote actors these follows name, remote ones only of other nodes
 * that are not blocked: whose posts (stored copies) a home or a list timeline reads.
 */
export function followeeIds(
  follows: readonly FolloweeRow[],
  self: string,
  blocked: ReadonlySet<string>,
): { localIds: string[]; remoteIds: string[] } {
  const localIds = follows.flatMap((f) => (f.followeeUserId ? [f.followeeUserId] : []));
  const remoteIds = follows.flatMap((f) =>
    f.followeeRemoteActorId &&
    f.followeeRemoteActor &&
    f.followeeRemoteActor.nodeDomain !== self &&
    !blocked.has(f.followeeRemoteActor.nodeDomain)
      ? [f.followeeRemoteActorId]
      : [],
  );
  return { localIds, remoteIds };
}

export async function readHomeAudience(
  deps: { prisma: PrismaClient; registry: Pick<RegistryService, 'blockedDomains'>; self: string },
  viewer: { id: string; handle: string },
): Promise<HomeAudience> {
  const { prisma, registry, self } = deps;
  const [follows, blocked, filter, exclusive] = await Promise.all([
    prisma.follow.findMany({
      where: { followerKey: localActorKey(viewer.id) },
      select: {
        followeeKey: true,
        followeeUserId: true,
        followeeRemoteActorId: true,
        followeeRemoteActor: { select: { nodeDomain: true } },
      },
    }),
    registry.blockedDomains(),
    viewerFilter(prisma, { viewer, self, operatorMutes: false }),
    prisma.listMember.findMany({
      where: { list: { userId: viewer.id, exclusive: true } },
      select: { memberKey: true },
    }),
  ]);
  const elsewhere = new Set(exclusive.map((m) => m.memberKey));
  const homeFollows = follows.filter((f) => !elsewhere.has(f.followeeKey));
  const { localIds: followees, remoteIds: remotes } = followeeIds(homeFollows, self, blocked);
  return {
    where: {
      OR: [
        // Their own, and listed people they follow (views/visibility.ts).
        { authorId: viewer.id, apId: null },
        { authorId: { in: followees }, author: LISTED_ACCOUNT, apId: null },
        // Followers-only copies were delivered because someone here follows the author.
        { remoteAuthorId: { in: remotes }, apId: { not: null }, ...COPY_SHOWN },
      ],
      deletedAt: null,
      replyToId: null,
    },
    filter,
    followsNobody: follows.length === 0,
  };
}
