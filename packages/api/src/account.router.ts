import { z } from 'zod';
import { ARCHIVE_LIMITS, refuse, signatureSchema } from '@swarm/contract';
import {
  admitSignUp,
  hashPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  SIGNUP_REASON_MAX,
} from '@swarm/auth';
import { unwrap } from './refusals.ts';
import { protectedProcedure, publicProcedure, router } from './trpc.ts';

// The account as a whole (issue #15; docs/protocol.md "Deleting posts and accounts", "Account
// archive", "Moving an account"). Statements peers act on are prepared here, signed in the
// browser with the user's key (`userSignaturePayload({ action, targetDomain, body })`) and sent
// back as `{ body, signature }`.

const signed = z.object({
  body: z.record(z.string(), z.unknown()),
  signature: signatureSchema,
});
const password = z.string().max(PASSWORD_MAX_LENGTH * 4);

export const accountRouter = router({
  /** The deletion statement to sign: the whole account, or one post. */
  prepareDeletion: protectedProcedure
    .input(
      z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('account') }),
        z.object({ kind: z.literal('post'), postId: z.string().min(1).max(600) }),
      ]),
    )
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.ownership.prepareDeletion(ctx.user.id, input)),
    ),

  /** Deletes the account (password asked again); peers holding its content are told. */
  delete: protectedProcedure
    .input(z.object({ password, signed: signed.nullish() }))
    .mutation(async ({ ctx, input }) => {
      unwrap(await ctx.auth.accounts.confirmPassword(ctx.user.id, input.password));
      return unwrap(await ctx.node.ownership.deleteAccount(ctx.user.id, input.signed ?? null));
    }),

  /** Deletes one's own post; with a signed statement the nodes holding a copy are told. */
  deletePost: protectedProcedure
    .input(z.object({ id: z.string().min(1).max(600), signed: signed.nullish() }))
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.ownership.deletePost(ctx.user.id, input.id, input.signed ?? null)),
    ),

  /** The archive to sign (action `export`); the browser adds `signature` and saves the file. */
  prepareExport: protectedProcedure.mutation(async ({ ctx }) =>
    unwrap(await ctx.node.ownership.prepareExport(ctx.user.id)),
  ),

  /**
   * Creates the archived account here. `proof`: the user's signature (action `import`, this
   * node) over `{ archiveSignature }`, made with the key decrypted from the archive's backup
   * with `password`, which becomes the account's password here.
   */
  import: publicProcedure
    .input(
      z.object({
        archive: z.string().max(ARCHIVE_LIMITS.bytes),
        password,
        proof: signatureSchema,
        /** As for a sign-up: why you want to join (approval mode), the invite code (closed mode). */
        reason: z.string().max(SIGNUP_REASON_MAX).nullish(),
        invite: z.string().max(200).nullish(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      if (input.password.length < PASSWORD_MIN_LENGTH) {
        unwrap(
          refuse('INVALID_REQUEST', `Password needs at least ${PASSWORD_MIN_LENGTH} characters.`, {
            field: 'password',
          }),
        );
      }
      return unwrap(
        await ctx.node.ownership.importArchive({
          archiveText: input.archive,
          proof: input.proof,
          hashPassword: () => hashPassword(input.password),
          clientIp: ctx.clientIp,
          admit: (tx) =>
            admitSignUp(tx, {
              isFirst: false,
              reason: input.reason,
              invite: input.invite,
              now: ctx.node.clock.now(),
            }),
        }),
      );
    }),

  /** The move statement to sign: from the node this account was imported from, to here. */
  prepareMove: protectedProcedure.mutation(async ({ ctx }) =>
    unwrap(await ctx.node.ownership.prepareMove(ctx.user.id)),
  ),

  /** Sends the signed move to the old node (which tells the followers' nodes). */
  move: protectedProcedure
    .input(z.object({ signed }))
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.ownership.move(ctx.user.id, input.signed)),
    ),
});
