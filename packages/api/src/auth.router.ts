import { z } from 'zod';
import { KEY_BACKUP_MAX_BYTES, PASSWORD_MAX_LENGTH, type SignedIn } from '@swarm/auth';
import { unwrap } from './refusals.ts';
import { humaneInput } from './input.ts';
import { protectedProcedure, publicProcedure, router } from './trpc.ts';

// Shapes and size caps only: the account service checks the rules (handle syntax, password
// length, did ↔ key) so the CLI and the admin API get the same answers.
const text = (max: number) => z.string().max(max, `at most ${max} characters`);
const keySchema = z.object({
  publicKey: text(4096),
  did: text(2048),
  encryptedBackup: text(KEY_BACKUP_MAX_BYTES),
});

function sessionAnswer(signedIn: SignedIn) {
  return { token: signedIn.token, expiresAt: signedIn.expiresAt, user: signedIn.user };
}

export const authRouter = router({
  signUp: publicProcedure
    .input(
      humaneInput(
        z.object({
          handle: text(64),
          displayName: text(256),
          password: text(PASSWORD_MAX_LENGTH * 4),
          key: keySchema.nullish(),
        }),
      ),
    )
    .mutation(async ({ ctx, input }) =>
      sessionAnswer(unwrap(await ctx.auth.accounts.signUp(input, { clientIp: ctx.clientIp }))),
    ),

  logIn: publicProcedure
    .input(humaneInput(z.object({ handle: text(256), password: text(PASSWORD_MAX_LENGTH * 4) })))
    .mutation(async ({ ctx, input }) => {
      const loggedIn = unwrap(await ctx.auth.accounts.logIn(input, { clientIp: ctx.clientIp }));
      return { ...sessionAnswer(loggedIn), keyBackup: loggedIn.keyBackup };
    }),

  /** Ends this session; signed out already is fine (the cookie is cleared either way). */
  logOut: publicProcedure.mutation(async ({ ctx }) => {
    if (ctx.session) await ctx.auth.accounts.logOut(ctx.session.sessionId);
    return { ok: true as const };
  }),

  me: publicProcedure.query(({ ctx }) => ctx.session?.user ?? null),

  changePassword: protectedProcedure
    .input(
      humaneInput(
        z.object({
          currentPassword: text(PASSWORD_MAX_LENGTH * 4),
          newPassword: text(PASSWORD_MAX_LENGTH * 4),
          encryptedBackup: text(KEY_BACKUP_MAX_BYTES).nullish(),
        }),
      ),
    )
    .mutation(async ({ ctx, input }) =>
      unwrap(
        await ctx.auth.accounts.changePassword(
          { userId: ctx.user.id, sessionId: ctx.session.sessionId },
          input,
        ),
      ),
    ),

  registerKey: protectedProcedure
    .input(humaneInput(keySchema.extend({ currentPassword: text(PASSWORD_MAX_LENGTH * 4) })))
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.auth.accounts.registerKey(ctx.user.id, input)),
    ),

  keyBackup: protectedProcedure.query(({ ctx }) => ctx.auth.accounts.keyBackup(ctx.user.id)),
});
