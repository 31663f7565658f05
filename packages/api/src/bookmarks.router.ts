import { z } from 'zod';
import { BOOKMARK_PAGE } from '@swarm/domain';
import { asViewer } from './reads.edge.ts';
import { unwrap } from './refusals.ts';
import { protectedProcedure, router } from './trpc.ts';

// A person's bookmarks (issue 25): private to them, never sent to another node.

const postId = z.object({ postId: z.string().min(1).max(600) });
const cursor = z.string().min(1).max(100);

export const bookmarksRouter = router({
  /** Newest bookmarked first; `next` is the `before` of the following page. */
  list: protectedProcedure
    .input(
      z
        .object({
          before: cursor.optional(),
          after: cursor.optional(),
          limit: z.int().min(1).max(BOOKMARK_PAGE.max).optional(),
        })
        .optional(),
    )
    .query(async ({ ctx, input }) =>
      unwrap(await ctx.node.bookmarks.list(asViewer(ctx.user), input ?? {})),
    ),

  /** A post the viewer can read (local UUID or `swarm:{domain}:{postId}`); idempotent. */
  add: protectedProcedure
    .input(postId)
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.bookmarks.bookmark(asViewer(ctx.user), input.postId)),
    ),

  /** Idempotent; answers the post, or null when the viewer cannot read it any more. */
  remove: protectedProcedure
    .input(postId)
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.bookmarks.unbookmark(asViewer(ctx.user), input.postId)),
    ),
});
