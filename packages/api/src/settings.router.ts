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
          isBot: z.boolean().optional(),
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

  /** Settings → Development: the person's own apps (bots), without their secrets. */
  developerApps: protectedProcedure.query(({ ctx }) => ctx.auth.developerApps.list(ctx.user.id)),

  /** Makes an app and a token for the person's own account; the secrets are answered once. */
  createDeveloperApp: protectedProcedure
    .input(
      humaneInput(
        z.object({
          name: z.string().max(400, 'too long'),
          website: z.string().max(4096, 'too long').optional(),
          scopes: z.array(z.string().max(40)).max(40, 'too many scopes'),
        }),
      ),
    )
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.auth.developerApps.create(ctx.user.id, input)),
    ),

  /** Deletes one of the person's apps and ends its tokens; deleting twice is not an error. */
  deleteDeveloperApp: protectedProcedure
    .input(z.object({ appId: z.uuid() }))
    .mutation(async ({ ctx, input }) => ({
      deleted: await ctx.auth.developerApps.remove(ctx.user.id, input.appId),
    })),
});
