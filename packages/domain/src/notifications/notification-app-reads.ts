import type { Db, Prisma } from '@swarm/db';
import { shownNotificationsWhere } from './notification-shown.ts';

/**
 * Notifications as apps page them (docs/clients.md "Notifications"): by their `api_id`, which
 * sorts in time order, with `max_id` (older), `since_id` (newer, newest first) and `min_id`
 * (the oldest newer ones), filtered by type and by the actor's account id. Each row names the
 * actor by account id (a local user or a remote actor kept here) and the post by its row, so the
 * client API renders them with its entities.
 */

export type NotificationKind = 'like' | 'repost' | 'follow' | 'mention' | 'reply';

export const NOTIFICATION_KINDS: readonly NotificationKind[] = [
  'like',
  'repost',
  'follow',
  'mention',
  'reply',
];

export interface AppNotificationQuery {
  maxId?: bigint | undefined;
  sinceId?: bigint | undefined;
  minId?: bigint | undefined;
  limit: number;
  /** Only these kinds (all when absent). */
  kinds?: readonly NotificationKind[] | undefined;
  /** Only those of this actor (a user or remote actor id). */
  accountId?: string | undefined;
}

export interface AppNotificationRow {
  apiId: bigint;
  type: NotificationKind;
  createdAt: Date;
  /** The actor's account id: a local user's or a remote actor's; null when neither is kept. */
  accountId: string | null;
  /** The stored post concerned (a local post or a copy), unless deleted. */
  postId: string | null;
  /** A remote post concerned that is not stored here (`swarm:{domain}:{postId}`). */
  postApId: string | null;
  readAt: Date | null;
}

export const APP_NOTIFICATIONS_LIMIT = { default: 40, max: 80 } as const;

const rowSelect = {
  apiId: true,
  type: true,
  createdAt: true,
  actorUserId: true,
  actorRemoteActorId: true,
  postApId: true,
  readAt: true,
  post: { select: { id: true, deletedAt: true } },
} as const satisfies Prisma.NotificationSelect;

type Row = Prisma.NotificationGetPayload<{ select: typeof rowSelect }>;

function toRow(row: Row): AppNotificationRow {
  return {
    apiId: row.apiId,
    type: row.type,
    createdAt: row.createdAt,
    accountId: row.actorUserId ?? row.actorRemoteActorId,
    postId: row.post && !row.post.deletedAt ? row.post.id : null,
    postApId: row.postApId,
    readAt: row.readAt,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createNotificationAppReads(deps: { db: Db; self: string }) {
  const { prisma } = deps.db;

  /**
   * A remote post named only by its id when the notification came (a mention in a post never
   * copied here) may have been stored since (read by someone, or fetched for an app): its row.
   */
  async function withCopies(rows: AppNotificationRow[]): Promise<AppNotificationRow[]> {
    const apIds = [...new Set(rows.flatMap((r) => (!r.postId && r.postApId ? [r.postApId] : [])))];
    if (apIds.length === 0) return rows;
    const copies = await prisma.post.findMany({
      where: { apId: { in: apIds }, deletedAt: null },
      select: { id: true, apId: true },
    });
    const rowOf = new Map(copies.map((c) => [c.apId!, c.id]));
    return rows.map((r) => {
      const postId = !r.postId && r.postApId ? rowOf.get(r.postApId) : undefined;
      return postId ? { ...r, postId } : r;
    });
  }

  return {
    async page(userId: string, query: AppNotificationQuery): Promise<AppNotificationRow[]> {
      if (query.kinds && query.kinds.length === 0) return [];
      if (query.accountId !== undefined && !UUID.test(query.accountId)) return [];
      const apiId: Prisma.BigIntFilter = {};
      if (query.maxId !== undefined) apiId.lt = query.maxId;
      const after = query.minId ?? query.sinceId;
      if (after !== undefined) apiId.gt = after;
      const ascending = query.minId !== undefined;
      const rows = await prisma.notification.findMany({
        where: {
          recipientId: userId,
          ...(await shownNotificationsWhere(prisma, userId, deps.self)),
          ...(Object.keys(apiId).length ? { apiId } : {}),
          ...(query.kinds ? { type: { in: [...query.kinds] } } : {}),
          ...(query.accountId !== undefined
            ? {
                OR: [{ actorUserId: query.accountId }, { actorRemoteActorId: query.accountId }],
              }
            : {}),
        },
        orderBy: { apiId: ascending ? 'asc' : 'desc' },
        take: query.limit,
        select: rowSelect,
      });
      if (ascending) rows.reverse();
      return withCopies(rows.map(toRow));
    },

    /** One of the person's notifications by its api id, or null (another's is not found). */
    async get(userId: string, apiId: bigint): Promise<AppNotificationRow | null> {
      const row = await prisma.notification.findFirst({
        where: {
          recipientId: userId,
          apiId,
          ...(await shownNotificationsWhere(prisma, userId, deps.self)),
        },
        select: rowSelect,
      });
      return row ? ((await withCopies([toRow(row)]))[0] ?? null) : null;
    },
  };
}
