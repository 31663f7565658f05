import { z } from 'zod';
import { signatureSchema } from '@swarm/contract';
import { unwrap } from './refusals.ts';
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

function onPostAction(kind: 'like' | 'unlike' | 'repost' | 'unrepost') {
  return protectedProcedure
    .input(onPost)
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.actions.interactions[kind](ctx.user.id, input)),
    );
}

function onPersonAction(kind: 'follow' | 'unfollow') {
  return protectedProcedure
    .input(onPerson)
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.actions.interactions[kind](ctx.user.id, input)),
    );
}

export const interactionsRouter = router({
  /**
   * `{local: true}` for a post of this node; otherwise the exact body to sign:
   * `userSignaturePayload({action, targetDomain, body})` with the user's key.
   */
  prepare: protectedProcedure
    .input(z.object({ kind: z.enum(['like', 'unlike', 'repost', 'unrepost']), postId }))
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.actions.interactions.prepare(ctx.user.id, input)),
    ),

  /** `signed` is required for a post on another node. */
  like: onPostAction('like'),
  unlike: onPostAction('unlike'),
  repost: onPostAction('repost'),
  /** Idempotent: undoing a repost that is not there answers `{delivery: null}`. */
  unrepost: onPostAction('unrepost'),

  /** `alice` (this node) or `bob@beta.example`; a remote follow is pending until accepted. */
  follow: onPersonAction('follow'),
  unfollow: onPersonAction('unfollow'),
});
