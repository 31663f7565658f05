import { z } from 'zod';
import { viewerOf } from './reads.edge.ts';
import { unwrap } from './refusals.ts';
import { publicProcedure, router } from './trpc.ts';

export const threadsRouter = router({
  /** A post page: our UUID, or `swarm:{domain}:{postId}` fetched from its node; with replies. */
  get: publicProcedure
    .input(z.object({ id: z.string().min(1).max(600) }))
    .query(async ({ ctx, input }) => unwrap(await ctx.node.threads.get(viewerOf(ctx), input.id))),
});
