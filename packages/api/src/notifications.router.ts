import { z } from 'zod';
import { NOTIFICATIONS_LIMIT } from '@swarm/domain';
import { timestampSchema, uuidSchema } from '@swarm/contract';
import { protectedProcedure, router } from './trpc.ts';

export const notificationsRouter = router({
  /** The viewer's notifications, newest first; `nextBefore` pages back. */
  list: protectedProcedure
    .input(
      z
        .object({
          before: timestampSchema.optional(),
          limit: z.int().min(1).max(NOTIFICATIONS_LIMIT.max).optional(),
        })
        .optional(),
    )
    .query(({ ctx, input }) => ctx.node.notifications.list(ctx.user.id, input ?? {})),

  unreadCount: protectedProcedure.query(({ ctx }) =>
    ctx.node.notifications.unreadCount(ctx.user.id),
  ),

  /** Marks some of the viewer's notifications read, or all when `ids` is absent. */
  markRead: protectedProcedure
    .input(z.object({ ids: z.array(uuidSchema).max(200).optional() }).optional())
    .mutation(({ ctx, input }) => ctx.node.notifications.markRead(ctx.user.id, input?.ids)),
});
