import { z } from 'zod';
import { BIO_MAX_LENGTH, DISPLAY_NAME_MAX_LENGTH } from '@swarm/auth';
import { unwrap } from './refusals.ts';
import { humaneInput } from './input.ts';
import { protectedProcedure, router } from './trpc.ts';

// Types and generous caps here; the account service applies the rules (http(s) URLs only,
// lengths after trimming) so the answer is one clear sentence.
const url = z
  .string()
  .max(4096, 'at most 4096 characters')
  .nullish()
  .transform((value) => value ?? '');

export const settingsRouter = router({
  get: protectedProcedure.query(async ({ ctx }) =>
    unwrap(await ctx.auth.accounts.settings(ctx.user.id)),
  ),

  update: protectedProcedure
    .input(
      humaneInput(
        z.object({
          displayName: z.string().max(DISPLAY_NAME_MAX_LENGTH * 4, 'too long'),
          bio: z.string().max(BIO_MAX_LENGTH * 4, 'too long'),
          avatarUrl: url,
          headerUrl: url,
          website: url,
          isNsfw: z.boolean(),
          showNsfw: z.boolean(),
        }),
      ),
    )
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.auth.accounts.updateSettings(ctx.user.id, input)),
    ),

  /** The apps the person let use their account (docs/clients.md), with what they may do. */
  authorizedApps: protectedProcedure.query(({ ctx }) =>
    ctx.auth.clientTokens.authorizedApps(ctx.user.id),
  ),

  /** Ends every token the person gave the app, at once; revoking twice is not an error. */
  revokeApp: protectedProcedure
    .input(z.object({ appId: z.uuid() }))
    .mutation(async ({ ctx, input }) => ({
      revoked: await ctx.auth.clientTokens.revokeApp(ctx.user.id, input.appId),
    })),
});
