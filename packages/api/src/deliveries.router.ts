import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { protectedProcedure, router } from './trpc.ts';

/** The signed-in user's deliveries to other nodes, with their state for people (`summary`). */
export const deliveriesRouter = router({
  /** Newest first. */
  mine: protectedProcedure
    .input(z.object({ limit: z.int().min(1).max(200).optional() }).optional())
    .query(({ ctx, input }) =>
      ctx.node.delivery.list({ createdById: ctx.user.id, limit: input?.limit ?? 50 }),
    ),

  /** One of the user's own deliveries (others' are NOT_FOUND, not FORBIDDEN: ids stay private). */
  get: protectedProcedure
    .input(z.object({ id: z.string().min(1).max(100) }))
    .query(async ({ ctx, input }) => {
      const delivery = await ctx.node.delivery.get(input.id, { createdById: ctx.user.id });
      if (!delivery) {
        throw new TRPCError({ code: 'NOT_FOUND', message: `You have no delivery ${input.id}.` });
      }
      return delivery;
    }),
});
