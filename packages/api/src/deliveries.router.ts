import { z } from 'zod';
import { refusal } from '@swarm/contract';
import { toTrpcError, unwrap } from './refusals.ts';
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
      if (!delivery) throw toTrpcError(refusal('NOT_FOUND', `You have no delivery ${input.id}.`));
      return delivery;
    }),

  /**
   * Sends one of the user's own pending or failed deliveries now (others' are NOT_FOUND);
   * CONFLICT when there is nothing to retry or it is being sent right now.
   */
  retry: protectedProcedure
    .input(z.object({ id: z.string().min(1).max(100) }))
    .mutation(async ({ ctx, input }) => {
      const mine = await ctx.node.delivery.get(input.id, { createdById: ctx.user.id });
      if (!mine) throw toTrpcError(refusal('NOT_FOUND', `You have no delivery ${input.id}.`));
      const retried = await ctx.node.delivery.retryNow(mine.id);
      return unwrap(retried);
    }),
});
