import type { Db } from '@swarm/db';

/**
 * Dismissing notifications, as apps do (`POST /api/v1/notifications/:id/dismiss`, `/clear`): the
 * notification is deleted, so it leaves the person's pages too. Another person's notification
 * is not found, and dismissing twice is not an error.
 */
export function createNotificationDismissal(deps: { db: Db }) {
  const { prisma } = deps.db;
  return {
    /** True when the person had that notification. */
    async dismiss(userId: string, apiId: bigint): Promise<boolean> {
      const { count } = await prisma.notification.deleteMany({
        where: { recipientId: userId, apiId },
      });
      return count > 0;
    },
    /** Deletes every notification of the person; how many. */
    async clear(userId: string): Promise<number> {
      const { count } = await prisma.notification.deleteMany({ where: { recipientId: userId } });
      return count;
    },
  };
}
