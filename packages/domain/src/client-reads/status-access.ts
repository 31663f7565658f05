import { localActorKey, type PrismaClient } from '@swarm/db';
import { SHOWN_ACCOUNT, visibilityFor } from '../views/visibility.ts';
import type { ClientViewer } from './client-records.ts';

/**
 * Whether a viewer may open one post by its id (docs/security.md "Who may be seen"): a local
 * author's post by the audience rule of views/visibility.ts (unlisted reachable by id,
 * followers-only to accepted followers, nothing to someone the author blocked); a copy of a
 * remote post when public or unlisted, or followers-only to a viewer who follows its author (the
 * copy was delivered because someone here does). A repost row also needs its original readable.
 */

export interface AccessRow {
  id: string;
  authorId: string | null;
  remoteAuthorId: string | null;
  visibility: 'public' | 'unlisted' | 'followers';
}

export const accessSelect = {
  id: true,
  authorId: true,
  remoteAuthorId: true,
  visibility: true,
} as const;

async function mayRead(
  prisma: PrismaClient,
  viewer: ClientViewer | null,
  row: AccessRow,
  self: string,
): Promise<boolean> {
  if (row.authorId) {
    if (viewer?.id === row.authorId) return true;
    const audience = await visibilityFor(prisma, viewer, row.authorId, true, self);
    const count = await prisma.post.count({ where: { id: row.id, ...audience } });
    return count > 0;
  }
  if (row.visibility !== 'followers') return true;
  if (!viewer || !row.remoteAuthorId) return false;
  const follows = await prisma.follow.count({
    where: {
      followerKey: localActorKey(viewer.id),
      followeeRemoteActorId: row.remoteAuthorId,
      state: 'accepted',
    },
  });
  return follows > 0;
}

/** The row id of the post `apiId` names when `viewer` may read it, else null (not found). */
export async function readableRow(
  prisma: PrismaClient,
  viewer: ClientViewer | null,
  apiId: bigint,
  self: string,
): Promise<string | null> {
  const row = await prisma.post.findFirst({
    where: {
      apiId,
      deletedAt: null,
      OR: [{ authorId: null }, { author: SHOWN_ACCOUNT }],
    },
    select: { ...accessSelect, repostOf: { select: accessSelect } },
  });
  if (!row) return null;
  if (!(await mayRead(prisma, viewer, row, self))) return null;
  if (row.repostOf && !(await mayRead(prisma, viewer, row.repostOf, self))) return null;
  return row.id;
}

/** `readableRow` for a row id already known (a reply's parent, a thread's members). */
export async function readableRowId(
  prisma: PrismaClient,
  viewer: ClientViewer | null,
  rowId: string,
  self: string,
): Promise<boolean> {
  const row = await prisma.post.findFirst({
    where: { id: rowId, deletedAt: null, OR: [{ authorId: null }, { author: SHOWN_ACCOUNT }] },
    select: accessSelect,
  });
  return row !== null && (await mayRead(prisma, viewer, row, self));
}
