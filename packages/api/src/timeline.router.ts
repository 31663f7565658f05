import { z } from 'zod';
import { FEED_LIMITS } from '@swarm/domain';
import { timestampSchema } from '@swarm/contract';
import { asViewer, viewerOf } from './reads.edge.ts';
import { protectedProcedure, publicProcedure, router } from './trpc.ts';

const limit = (bounds: { max: number }) => z.int().min(1).max(bounds.max).optional();

export const timelineRouter = router({
  /** The viewer's own posts and those of whom they follow, here and on other nodes. */
  home: protectedProcedure
    .input(
      z.object({ before: timestampSchema.optional(), limit: limit(FEED_LIMITS.home) }).optional(),
    )
    .query(({ ctx, input }) => ctx.node.feeds.home(asViewer(ctx.user), input ?? {})),

  /** This node's public top-level posts. */
  local: publicProcedure
    .input(
      z.object({ before: timestampSchema.optional(), limit: limit(FEED_LIMITS.local) }).optional(),
    )
    .query(({ ctx, input }) => ctx.node.feeds.local(viewerOf(ctx), input ?? {})),

  /** Our public posts and the stored copies of other nodes' public posts, newest first. */
  swarm: publicProcedure
    .input(
      z.object({ before: timestampSchema.optional(), limit: limit(FEED_LIMITS.swarm) }).optional(),
    )
    .query(({ ctx, input }) => ctx.node.feeds.swarm(viewerOf(ctx), input ?? {})),
});
