import type { Prisma, PrismaClient } from '@swarm/db';
import type { AccountRecord } from './client-records.ts';
import {
  accountRemoteSelect,
  accountUserSelect,
  remoteAccount,
  userAccount,
} from './status-loader.ts';

/**
 * Who liked or reposted a post (`favourited_by`, `reblogged_by`), newest first, paged by an
 * opaque cursor: the time of the like or repost and its row id, so equal times never lose one.
 * Hidden local accounts are left out.
 */

export interface ActorPage {
  accounts: AccountRecord[];
  /** The cursor of the next (older) page, null at the end. */
  next: string | null;
  /** The cursor of the previous (newer) page: the first entry's. */
  prev: string | null;
}

/** `<milliseconds>.<uuid>`: what `max_id` / `since_id` carry for these lists. */
export function parseActorCursor(value: string): { at: Date; id: string } | null {
  const match = /^(\d{1,15})\.([0-9a-f-]{36})$/.exec(value);
  return match ? { at: new Date(Number(match[1])), id: match[2]! } : null;
}

const cursorOf = (row: { createdAt: Date; id: string }) => `${row.createdAt.getTime()}.${row.id}`;

const actorSelect = {
  id: true,
  createdAt: true,
  user: { select: accountUserSelect },
  remoteActor: { select: accountRemoteSelect },
} as const;

export async function actorsOf(
  prisma: PrismaClient,
  input: {
    kind: 'likes' | 'reposts';
    postId: string;
    self: string;
    limit: number;
    maxId?: { at: Date; id: string };
    sinceId?: { at: Date; id: string };
  },
): Promise<ActorPage> {
  const older = input.maxId
    ? {
        OR: [
          { createdAt: { lt: input.maxId.at } },
          { createdAt: input.maxId.at, id: { lt: input.maxId.id } },
        ],
      }
    : {};
  const newer = input.sinceId
    ? {
        OR: [
          { createdAt: { gt: input.sinceId.at } },
          { createdAt: input.sinceId.at, id: { gt: input.sinceId.id } },
        ],
      }
    : {};
  const where = { postId: input.postId, AND: [older, newer] };
  const orderBy = [{ createdAt: 'desc' }, { id: 'desc' }] as const satisfies
    Prisma.LikeOrderByWithRelationInput[] | Prisma.RepostOrderByWithRelationInput[];
  const args = { where, orderBy: [...orderBy], take: input.limit + 1, select: actorSelect };
  const rows =
    input.kind === 'likes' ? await prisma.like.findMany(args) : await prisma.repost.findMany(args);
  const page = rows.slice(0, input.limit);
  const accounts = page.flatMap((row) => {
    if (row.user) {
      const shown = row.user.suspendedAt === null && !row.user.pendingApproval;
      return shown ? [userAccount(row.user, input.self)] : [];
    }
    return row.remoteActor ? [remoteAccount(row.remoteActor)] : [];
  });
  return {
    accounts,
    next: rows.length > input.limit ? cursorOf(page[page.length - 1]!) : null,
    prev: page.length > 0 ? cursorOf(page[0]!) : null,
  };
}
