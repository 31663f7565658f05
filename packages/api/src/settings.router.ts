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
});
