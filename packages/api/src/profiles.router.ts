import { z } from 'zod';
import { PROFILE_POSTS_LIMIT } from '@swarm/domain';
import { unwrapRead, viewerOf } from './reads.edge.ts';
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
    .query(async ({ ctx, input }) => unwrapRead(await ctx.node.profiles.get(viewerOf(ctx), input))),
});
