import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import {
  LINK_PREVIEW,
  createPostInputSchema,
  type ActionError,
  type LinkPreviewErrorCode,
} from '@swarm/domain';
import { protectedProcedure, router } from './trpc.ts';

/** The value of a user action, or its refusal thrown as a TRPCError (codes are named alike). */
export function unwrapAction<T>(
  result: { ok: true; value: T } | { ok: false; reason: ActionError },
): T {
  if (result.ok) return result.value;
  throw new TRPCError({ code: result.reason.code, message: result.reason.message });
}

const PREVIEW_CODE = {
  INVALID_REQUEST: 'BAD_REQUEST',
  FORBIDDEN: 'FORBIDDEN',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMITED: 'TOO_MANY_REQUESTS',
  PEER_UNAVAILABLE: 'BAD_GATEWAY',
} as const satisfies Record<LinkPreviewErrorCode, TRPCError['code']>;

export const postsRouter = router({
  /**
   * The card of a link for the post being written (Open Graph / Twitter card / title), fetched
   * by the node through its SSRF guard and cached per URL; refusals say why (a private address,
   * not HTML, too large…).
   */
  linkPreview: protectedProcedure
    .input(z.object({ url: z.string().min(1).max(LINK_PREVIEW.maxUrlChars) }))
    .query(async ({ ctx, input }) => {
      const result = await ctx.node.linkPreviews.preview(ctx.user.id, input.url);
      if (result.ok) return result.value;
      throw new TRPCError({
        code: PREVIEW_CODE[result.reason.code],
        message: result.reason.message,
      });
    }),

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
