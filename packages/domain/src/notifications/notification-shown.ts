import type { Db, Prisma } from '@swarm/db';
import {
  SHOWN_NOTIFICATION_ACTOR,
  hiddenSetFor,
  notificationsShownWhere,
} from '../views/visibility.ts';

/**
 * Who may be seen (views/visibility.ts): notifications by hidden accounts, by people and nodes
 * the recipient muted or blocked, or by people who blocked them, are silently left out. Pages
 * and apps read through the same rule.
 */
export async function shownNotificationsWhere(
  prisma: Db['prisma'],
  userId: string,
  self: string,
): Promise<Prisma.NotificationWhereInput> {
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { handle: true } });
  const viewer = user ? { id: userId, handle: user.handle } : null;
  const set = await hiddenSetFor(prisma, { viewer, self, operatorMutes: false });
  return { AND: [SHOWN_NOTIFICATION_ACTOR, notificationsShownWhere(set, self)] };
}
