import { formatTimestamp, uuidSchema } from '@swarm/contract';
import type { Db, Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import { pageNewestFirst } from '../content/content.service.ts';
import { actorView, postPath } from '../feeds/post-views.ts';
import type { NotificationView } from '../views/index.ts';
import {
  createNotificationAppReads,
  type AppNotificationQuery,
  type AppNotificationRow,
} from './notification-app-reads.ts';
import { createNotificationDismissal } from './notification-dismissal.ts';
import { shownNotificationsWhere } from './notification-shown.ts';

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
  /** Apps' reads: paged by `api_id`, filtered by kind and actor (notification-app-reads.ts). */
  appPage(userId: string, query: AppNotificationQuery): Promise<AppNotificationRow[]>;
  appGet(userId: string, apiId: bigint): Promise<AppNotificationRow | null>;
  /** Deletes one notification of the person (apps' dismiss); true when it was theirs. */
  dismiss(userId: string, apiId: bigint): Promise<boolean>;
  /** Deletes all of the person's notifications; how many. */
  clear(userId: string): Promise<number>;
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
  const shown = (userId: string) => shownNotificationsWhere(prisma, userId, config.domain);
  const appReads = createNotificationAppReads({ db, self: config.domain });
  const dismissal = createNotificationDismissal({ db });

  return {
    appPage: appReads.page,
    appGet: appReads.get,
    dismiss: dismissal.dismiss,
    clear: dismissal.clear,

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
