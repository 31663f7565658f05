import { z } from 'zod';
import { unwrapRead, viewerOf } from './reads.edge.ts';
import { publicProcedure, router } from './trpc.ts';

export const threadsRouter = router({
  /** A post page: our UUID, or `swarm:{domain}:{postId}` fetched from its node; with replies. */
  get: publicProcedure
    .input(z.object({ id: z.string().min(1).max(600) }))
    .query(async ({ ctx, input }) =>
      unwrapRead(await ctx.node.threads.get(viewerOf(ctx), input.id)),
    ),
});
