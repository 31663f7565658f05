import { z } from 'zod';
import { SEARCH_LIMITS } from '@swarm/domain';
import { viewerOf } from './reads.edge.ts';
import { unwrap } from './refusals.ts';
import { publicProcedure, router } from './trpc.ts';

export const searchRouter = router({
  /** People, posts and hashtags for one query (the results page's three tabs). */
  query: publicProcedure
    .input(z.object({ q: z.string().max(SEARCH_LIMITS.queryChars * 4) }))
    .query(async ({ ctx, input }) => unwrap(await ctx.node.search.search(viewerOf(ctx), input))),

  /** A tag page: the public posts with `#tag` that this node holds, newest first. */
  tag: publicProcedure
    .input(
      z.object({
        tag: z.string().min(1).max(100),
        before: z.string().max(40).optional(),
        limit: z.int().min(1).max(SEARCH_LIMITS.tagPage.max).optional(),
      }),
    )
    .query(async ({ ctx, input }) => unwrap(await ctx.node.search.tag(viewerOf(ctx), input))),
});
