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
   * The post as it will be pushed to the nodes of the author's followers, with a reserved id and
   * time, for the browser to sign (`userSignaturePayload({action, targetDomain, body})` with the
   * user's key) and send back as `create`'s `signed: {id, createdAt, signature}`; null when the
   * post is not pushed (unlisted). Refused when the account has no key.
   */
  prepare: protectedProcedure
    .input(createPostInputSchema)
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.actions.posts.prepare(ctx.user.id, input)),
    ),

  /**
   * Publishes a post (text, up to 4 media: photos uploaded here by `uploadId` or images by URL,
   * NSFW flag, link preview, reply target, visibility), signed by its author when `signed` is
   * given (see `prepare`); the answer carries the deliveries it made (a reply to another node's
   * post, remote mentions, the post to the nodes of the author's followers).
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
