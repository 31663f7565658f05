import type { Db } from '@swarm/db';
import { SHOWN_POST_AUTHOR } from '../views/visibility.ts';

/**
 * The posts a person liked (`/api/v1/favourites`), the latest like first, paged by an opaque
 * cursor over the like (its time and row id: `<ms>.<uuid>`). Deleted posts and posts of hidden
 * authors are left out. Row ids: the client read model renders them.
 */

export const LIKED_POSTS_LIMIT = { default: 20, max: 40 } as const;

const CURSOR = /^(\d{1,15})\.([0-9a-f-]{36})$/;

function parseCursor(value: string | undefined) {
  if (value === undefined) return undefined;
  const match = CURSOR.exec(value);
  return match ? { at: new Date(Number(match[1])), id: match[2]! } : null;
}

export async function likedPostRows(
  prisma: Db['prisma'],
  userId: string,
  query: { maxId?: string | undefined; minId?: string | undefined; limit: number },
): Promise<{ rowIds: string[]; oldest: string | null; newest: string | null }> {
  const before = parseCursor(query.maxId);
  const after = parseCursor(query.minId);
  if (before === null || after === null) return { rowIds: [], oldest: null, newest: null };
  const ascending = after !== undefined;
  const rows = await prisma.like.findMany({
    where: {
      userId,
      post: { deletedAt: null, ...SHOWN_POST_AUTHOR },
      AND: [
        before
          ? {
              OR: [
                { createdAt: { lt: before.at } },
                { createdAt: before.at, id: { lt: before.id } },
              ],
            }
          : {},
        after
          ? {
              OR: [{ createdAt: { gt: after.at } }, { createdAt: after.at, id: { gt: after.id } }],
            }
          : {},
      ],
    },
    orderBy: ascending
      ? [{ createdAt: 'asc' }, { id: 'asc' }]
      : [{ createdAt: 'desc' }, { id: 'desc' }],
    take: query.limit,
    select: { id: true, createdAt: true, postId: true },
  });
  if (ascending) rows.reverse();
  const cursor = (r: { createdAt: Date; id: string }) => `${r.createdAt.getTime()}.${r.id}`;
  return {
    rowIds: rows.map((r) => r.postId),
    newest: rows[0] ? cursor(rows[0]) : null,
    oldest: rows.length ? cursor(rows[rows.length - 1]!) : null,
  };
}
