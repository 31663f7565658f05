import { localActorKey, type Prisma, type PrismaClient } from '@swarm/db';
import type { Viewer } from './post-views.ts';

/**
 * Which of a local author's posts a viewer may see on the author's profile and threads: the
 * author everything; an accepted follower `public` and `followers` posts; everyone else `public`
 * ones (threads add `unlisted`: reachable by id, not listed).
 */
export async function visibilityFor(
  prisma: PrismaClient,
  viewer: Viewer | null,
  authorId: string,
  reachableById: boolean,
): Promise<Prisma.PostWhereInput> {
  if (viewer?.id === authorId) return {};
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
