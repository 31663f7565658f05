import { z } from 'zod';
import { PROFILE_POSTS_LIMIT } from '@swarm/domain';
import { viewerOf } from './reads.edge.ts';
import { unwrap } from './refusals.ts';
import { publicProcedure, router } from './trpc.ts';

export const profilesRouter = router({
  /** `alice` (this node) or `bob@beta.example` (fetched from its node): profile and posts. */
  get: publicProcedure
    .input(
      z.object({
        address: z.string().min(1).max(300),
        limit: z.int().min(0).max(PROFILE_POSTS_LIMIT.max).optional(),
      }),
    )
    .query(async ({ ctx, input }) => unwrap(await ctx.node.profiles.get(viewerOf(ctx), input))),
});
