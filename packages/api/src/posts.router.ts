import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { createPostInputSchema, type ActionError } from '@swarm/domain';
import { protectedProcedure, router } from './trpc.ts';

/** The value of a user action, or its refusal thrown as a TRPCError (codes are named alike). */
export function unwrapAction<T>(
  result: { ok: true; value: T } | { ok: false; reason: ActionError },
): T {
  if (result.ok) return result.value;
  throw new TRPCError({ code: result.reason.code, message: result.reason.message });
}

export const postsRouter = router({
  /**
   * Publishes a post (text, up to 4 media by URL, NSFW flag, link preview, reply target); the
   * answer carries the deliveries it made (a reply to another node's post, remote mentions).
   */
  create: protectedProcedure
    .input(createPostInputSchema)
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.actions.posts.create(ctx.user.id, input)),
    ),

  /** Deletes one's own post (soft delete). */
  delete: protectedProcedure
    .input(z.object({ id: z.string().min(1).max(600) }))
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.actions.posts.delete(ctx.user.id, input.id)),
    ),
});
