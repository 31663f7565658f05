import { z } from 'zod';
import { createPostInputSchema } from '@swarm/domain';
import { unwrap } from './refusals.ts';
import { protectedProcedure, router } from './trpc.ts';

export const postsRouter = router({
  /**
   * Publishes a post (text, up to 4 media by URL, NSFW flag, link preview, reply target); the
   * answer carries the deliveries it made (a reply to another node's post, remote mentions).
   */
  create: protectedProcedure
    .input(createPostInputSchema)
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.actions.posts.create(ctx.user.id, input)),
    ),

  /** Deletes one's own post (soft delete). */
  delete: protectedProcedure
    .input(z.object({ id: z.string().min(1).max(600) }))
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.actions.posts.delete(ctx.user.id, input.id)),
    ),
});
