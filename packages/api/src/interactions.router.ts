import { z } from 'zod';
import { signatureSchema } from '@swarm/contract';
import { unwrapAction } from './posts.router.ts';
import { protectedProcedure, router } from './trpc.ts';

const postId = z.string().min(1).max(600);

/** A body as `prepare` made it, signed in the browser with the user's key. */
const signed = z.object({
  body: z.record(z.string(), z.unknown()),
  signature: signatureSchema,
});

/**
 * `authorAddress`: the post's author as the page showed it (`bob@beta.example`), used only when
 * the post's node is down and this node has no copy of it yet (a placeholder copy).
 */
const onPost = z.object({
  postId,
  signed: signed.nullish(),
  authorAddress: z.string().trim().min(1).max(300).nullish(),
});
const onPerson = z.object({ address: z.string().trim().min(1).max(300) });

export const interactionsRouter = router({
  /**
   * `{local: true}` for a post of this node; otherwise the exact body to sign:
   * `userSignaturePayload({action, targetDomain, body})` with the user's key.
   */
  prepare: protectedProcedure
    .input(z.object({ kind: z.enum(['like', 'unlike', 'repost']), postId }))
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.actions.interactions.prepare(ctx.user.id, input)),
    ),

  /** `signed` is required for a post on another node. */
  like: protectedProcedure
    .input(onPost)
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.actions.interactions.like(ctx.user.id, input)),
    ),
  unlike: protectedProcedure
    .input(onPost)
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.actions.interactions.unlike(ctx.user.id, input)),
    ),
  repost: protectedProcedure
    .input(onPost)
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.actions.interactions.repost(ctx.user.id, input)),
    ),

  /** `alice` (this node) or `bob@beta.example`; a remote follow is pending until accepted. */
  follow: protectedProcedure
    .input(onPerson)
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.actions.interactions.follow(ctx.user.id, input)),
    ),
  unfollow: protectedProcedure
    .input(onPerson)
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.actions.interactions.unfollow(ctx.user.id, input)),
    ),
});
