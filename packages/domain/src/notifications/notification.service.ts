import { formatTimestamp, uuidSchema } from '@swarm/contract';
import type { Db, Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import { pageNewestFirst } from '../content/content.service.ts';
import { actorView, postPath } from '../feeds/post-views.ts';
import type { NotificationView } from '../views/index.ts';
import {
  SHOWN_NOTIFICATION_ACTOR,
  hiddenSetFor,
  notificationsShownWhere,
} from '../views/visibility.ts';

/**
 * A user's notifications (likes, reposts, follows, mentions, replies from local and remote
 * actors): newest first with `before` paging, the unread count, and marking read. The actor is
 * the snapshot taken when the notification was made, so listing needs no join or remote fetch.
 */

export interface NotificationPage {
  items: NotificationView[];
  nextBefore: string | null;
}

export interface NotificationService {
  list(userId: string, query: { before?: string; limit?: number }): Promise<NotificationPage>;
  unreadCount(userId: string): Promise<number>;
  /** Marks the given notifications of `userId` read (all unread ones when `ids` is absent); others' ids are ignored. */
  markRead(userId: string, ids?: readonly string[]): Promise<{ updated: number }>;
}

export interface NotificationServiceDeps {
  db: Db;
  clock: Clock;
  config: Pick<NodeConfig, 'domain'>;
}

export const NOTIFICATIONS_LIMIT = { default: 30, max: 100 } as const;

const notificationSelect = {
  id: true,
  type: true,
  actorHandle: true,
  actorDisplayName: true,
  actorAvatarUrl: true,
  actorNodeDomain: true,
  postApId: true,
  content: true,
  readAt: true,
  createdAt: true,
  post: { select: { id: true, apId: true, deletedAt: true } },
} as const satisfies Prisma.NotificationSelect;

type NotificationRow = Prisma.NotificationGetPayload<{ select: typeof notificationSelect }>;

/** The post page a notification leads to: the local post concerned, or a remote one by swarm id. */
function notificationPostPath(row: NotificationRow): string | null {
  if (row.post && !row.post.deletedAt) return postPath(row.post.apId ?? row.post.id);
  return row.postApId ? postPath(row.postApId) : null;
}

export function toNotificationView(row: NotificationRow, self: string): NotificationView {
  return {
    id: row.id,
    type: row.type,
    actor: actorView(
      {
        handle: row.actorHandle,
        domain: row.actorNodeDomain ?? self,
        displayName: row.actorDisplayName,
        avatarUrl: row.actorAvatarUrl,
      },
      self,
    ),
    postPath: notificationPostPath(row),
    excerpt: row.content,
    createdAt: formatTimestamp(row.createdAt),
    read: row.readAt !== null,
  };
}

export function createNotificationService(deps: NotificationServiceDeps): NotificationService {
  const { db, clock, config } = deps;
  const prisma = db.prisma;
  // Who may be seen (views/visibility.ts): notifications by hidden accounts, by people and nodes
  // the recipient muted or blocked, or by people who blocked them, are silently left out.
  const shown = async (userId: string): Promise<Prisma.NotificationWhereInput> => {
    const user = await prisma.user.findUnique({ where: { id: userId }, select: { handle: true } });
    const viewer = user ? { id: userId, handle: user.handle } : null;
    const set = await hiddenSetFor(prisma, { viewer, self: config.domain, operatorMutes: false });
    return { AND: [SHOWN_NOTIFICATION_ACTOR, notificationsShownWhere(set, config.domain)] };
  };

  return {
    async list(userId, query) {
      const limit = Math.min(
        Math.max(1, Math.trunc(query.limit ?? NOTIFICATIONS_LIMIT.default)),
        NOTIFICATIONS_LIMIT.max,
      );
      const rows = await prisma.notification.findMany({
        where: {
          recipientId: userId,
          ...(await shown(userId)),
          ...(query.before === undefined ? {} : { createdAt: { lt: new Date(query.before) } }),
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: limit + 1,
        select: notificationSelect,
      });
      const page = pageNewestFirst(rows, limit);
      return {
        items: page.map((row) => toNotificationView(row, config.domain)),
        nextBefore:
          rows.length > limit && page.length > 0
            ? formatTimestamp(page[page.length - 1]!.createdAt)
            : null,
      };
    },

    async unreadCount(userId) {
      return prisma.notification.count({
        where: { recipientId: userId, readAt: null, ...(await shown(userId)) },
      });
    },

    async markRead(userId, ids) {
      // Ids that are not UUIDs cannot be notifications (and must not reach a uuid column).
      const wanted = ids?.filter((id) => uuidSchema.safeParse(id).success);
      if (wanted && wanted.length === 0) return { updated: 0 };
      const { count } = await prisma.notification.updateMany({
        where: {
          recipientId: userId,
          readAt: null,
          ...(wanted ? { id: { in: wanted } } : {}),
        },
        data: { readAt: clock.now() },
      });
      return { updated: count };
    },
  };
}
