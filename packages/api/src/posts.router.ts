import { z } from 'zod';
import { createPostInputSchema } from '@swarm/contract';
import { LINK_PREVIEW } from '@swarm/domain';
import { unwrap } from './refusals.ts';
import { protectedProcedure, router } from './trpc.ts';

export const postsRouter = router({
  /**
   * The card of a link for the post being written (Open Graph / Twitter card / title), fetched
   * by the node through its SSRF guard and cached per URL; refusals say why (a private address,
   * not HTML, too large…).
   */
  linkPreview: protectedProcedure
    .input(z.object({ url: z.string().min(1).max(LINK_PREVIEW.maxUrlChars) }))
    .query(async ({ ctx, input }) =>
      unwrap(await ctx.node.linkPreviews.preview(ctx.user.id, input.url)),
    ),

  /**
   * Publishes a post (text, up to 4 media: photos uploaded here by `uploadId` or images by URL,
   * NSFW flag, link preview, reply target); the
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
