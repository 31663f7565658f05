import { z } from 'zod';
import { FOLLOW_LIST_LIMIT } from '@swarm/contract';
import { PROFILE_POSTS_LIMIT, PROFILE_TABS } from '@swarm/domain';
import { viewerOf } from './reads.edge.ts';
import { unwrap } from './refusals.ts';
import { publicProcedure, router } from './trpc.ts';

const listInput = z.object({
  address: z.string().min(1).max(300),
  cursor: z.string().max(200).optional(),
  limit: z.int().min(1).max(FOLLOW_LIST_LIMIT.max).optional(),
});

export const profilesRouter = router({
  /** `alice` (this node) or `bob@beta.example` (fetched from its node): profile and posts. */
  get: publicProcedure
    .input(
      z.object({
        address: z.string().min(1).max(300),
        limit: z.int().min(0).max(PROFILE_POSTS_LIMIT.max).optional(),
        /** Posts (default), Posts & replies, Media. */
        tab: z.enum(PROFILE_TABS).optional(),
      }),
    )
    .query(async ({ ctx, input }) => unwrap(await ctx.node.profiles.get(viewerOf(ctx), input))),

  /** Who follows `address` (local, or read from their node), newest first, paged by cursor. */
  followers: publicProcedure
    .input(listInput)
    .query(async ({ ctx, input }) =>
      unwrap(await ctx.node.followLists.list(viewerOf(ctx), 'followers', input)),
    ),

  /** Whom `address` follows (local, or read from their node), newest first, paged by cursor. */
  following: publicProcedure
    .input(listInput)
    .query(async ({ ctx, input }) =>
      unwrap(await ctx.node.followLists.list(viewerOf(ctx), 'following', input)),
    ),
});
