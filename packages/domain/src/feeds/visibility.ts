import { localActorKey, type Prisma, type PrismaClient } from '@swarm/db';
import type { Viewer } from './post-views.ts';

/**
 * Which of a local author's posts a viewer may see on the author's profile and threads: the
 * author everything; an accepted follower `public` and `followers` posts; everyone else `public`
 * ones (threads add `unlisted`: reachable by id, not listed). Someone the author blocked sees
 * none of them on this node (issue #15).
 */
export async function visibilityFor(
  prisma: PrismaClient,
  viewer: Viewer | null,
  authorId: string,
  reachableById: boolean,
  /** This node's domain: with it, an author who blocked the viewer shows them nothing. */
  self?: string,
): Promise<Prisma.PostWhereInput> {
  if (viewer?.id === authorId) return {};
  if (viewer && self) {
    const blocked = await prisma.userBlock.count({
      where: {
        userId: authorId,
        blockedAddress: { equals: `${viewer.handle}@${self}`, mode: 'insensitive' },
      },
    });
    if (blocked > 0) return { id: { in: [] } };
  }
  const open: ('public' | 'unlisted' | 'followers')[] = reachableById
    ? ['public', 'unlisted']
    : ['public'];
  if (viewer) {
    const follows = await prisma.follow.count({
      where: {
        followerKey: localActorKey(viewer.id),
        followeeKey: localActorKey(authorId),
        state: 'accepted',
      },
    });
    if (follows > 0) open.push('followers');
  }
  return { visibility: { in: open } };
}
