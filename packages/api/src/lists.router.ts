import { z } from 'zod';
import { LIST_LIMITS, LIST_TIMELINE_PAGE, REPLIES_POLICIES } from '@swarm/domain';
import { humaneInput } from './input.ts';
import { asViewer } from './reads.edge.ts';
import { unwrap } from './refusals.ts';
import { protectedProcedure, router } from './trpc.ts';

// A person's lists of people they follow, and each list's timeline (issue 25). The domain
// checks titles, bounds and who may be added; these schemas only bound what a call carries.

const listId = z.string().min(1).max(100);
// Longer than a title may be, so that the domain's sentence ("at most 100 characters") answers.
const title = z.string().max(1000);
const settings = {
  repliesPolicy: z.enum(REPLIES_POLICIES).optional(),
  exclusive: z.boolean().optional(),
};
/** `alice` (this node), `bob@beta.example`, or an account id (a user's or a remote actor's). */
const member = z.union([
  z.object({ address: z.string().trim().min(1, 'say whom').max(320, 'the address is too long') }),
  z.object({ accountId: z.string().min(1).max(100) }),
]);
const members = z.array(member).min(1, 'say whom').max(LIST_LIMITS.members);
const cursor = z.string().min(1).max(100);

export const listsRouter = router({
  /** The viewer's lists, oldest first. */
  all: protectedProcedure.query(({ ctx }) => ctx.node.lists.lists(ctx.user.id)),

  get: protectedProcedure
    .input(z.object({ listId }))
    .query(async ({ ctx, input }) => unwrap(await ctx.node.lists.get(ctx.user.id, input.listId))),

  create: protectedProcedure
    .input(humaneInput(z.object({ title, ...settings })))
    .mutation(async ({ ctx, input }) => unwrap(await ctx.node.lists.create(ctx.user.id, input))),

  /** Rename, or change the replies policy or exclusivity. */
  update: protectedProcedure
    .input(humaneInput(z.object({ listId, title: title.optional(), ...settings })))
    .mutation(async ({ ctx, input }) => {
      const { listId: id, ...change } = input;
      return unwrap(await ctx.node.lists.update(ctx.user.id, id, change));
    }),

  delete: protectedProcedure
    .input(z.object({ listId }))
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.lists.remove(ctx.user.id, input.listId)),
    ),

  members: protectedProcedure
    .input(z.object({ listId }))
    .query(async ({ ctx, input }) =>
      unwrap(await ctx.node.lists.members(ctx.user.id, input.listId)),
    ),

  /** People the viewer follows; all or none. */
  addMembers: protectedProcedure
    .input(humaneInput(z.object({ listId, members })))
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.lists.addMembers(ctx.user.id, input.listId, input.members)),
    ),

  removeMembers: protectedProcedure
    .input(humaneInput(z.object({ listId, members })))
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.lists.removeMembers(ctx.user.id, input.listId, input.members)),
    ),

  /** The viewer's lists holding this person. */
  withMember: protectedProcedure
    .input(z.object({ member }))
    .query(async ({ ctx, input }) =>
      unwrap(await ctx.node.lists.listsWith(ctx.user.id, input.member)),
    ),

  /** Newest first; `next` is the `before` of the following page. */
  timeline: protectedProcedure
    .input(
      z.object({
        listId,
        before: cursor.optional(),
        after: cursor.optional(),
        limit: z.int().min(1).max(LIST_TIMELINE_PAGE.max).optional(),
      }),
    )
    .query(async ({ ctx, input }) => {
      const { listId: id, ...query } = input;
      return unwrap(await ctx.node.lists.timeline(asViewer(ctx.user), id, query));
    }),
});
