import { z } from 'zod';
import {
  REGISTRATION_MODES,
  REPORT_CATEGORIES,
  REPORT_POSTS_MAX,
  type Refusal,
  type Result,
} from '@swarm/contract';
import { REPORT_ACTIONS, type NodeContext } from '@swarm/domain';
import { humaneInput } from './input.ts';
import { unwrap as unwrapAction } from './refusals.ts';
import { adminProcedure, protectedProcedure, router } from './trpc.ts';

/**
 * Safety and moderation (issue #15). People: mutes, blocks (one list with messages), reports.
 * Operators (`adminProcedure`, checked on every call): the reports queue and its actions,
 * suspension and silence, node mutes, registrations, invites, the audit log. Every operator
 * action takes a reason and is written to the audit log by the domain services.
 */

const address = z.string().trim().min(1, 'say whom').max(320, 'the address is too long');
const reason = z.string().trim().min(1, 'give a reason').max(1000, 'at most 1000 characters');

/** The admin acting, as the audit log and the moderation services name them. */
const actorOf = (user: { handle: string; id: string }) => ({
  handle: user.handle,
  userId: user.id,
});

/**
 * The resolver of an operator's action on the reports (acting on a report, suspending or
 * silencing an account, muting a node): the admin acts under their audit name, with the reason
 * the audit log keeps.
 */
function onReports<I extends { reason: string }, T>(
  act: (
    reports: NodeContext['moderation']['reports'],
    actor: ReturnType<typeof actorOf>,
    input: I,
  ) => Promise<Result<T, Refusal>>,
) {
  return async (opts: {
    ctx: { node: NodeContext; user: { handle: string; id: string } };
    input: I;
  }) =>
    unwrapAction(await act(opts.ctx.node.moderation.reports, actorOf(opts.ctx.user), opts.input));
}

const safetyRouter = router({
  mutes: protectedProcedure.query(({ ctx }) => ctx.node.moderation.safety.mutes(ctx.user.id)),
  mute: protectedProcedure
    .input(humaneInput(z.object({ target: address })))
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.moderation.safety.mute(ctx.user.id, input.target)),
    ),
  unmute: protectedProcedure
    .input(humaneInput(z.object({ target: address })))
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.moderation.safety.unmute(ctx.user.id, input.target)),
    ),
  blocks: protectedProcedure.query(({ ctx }) => ctx.node.moderation.safety.blocks(ctx.user.id)),
  block: protectedProcedure
    .input(humaneInput(z.object({ address })))
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.moderation.safety.block(ctx.user.id, input.address)),
    ),
  unblock: protectedProcedure
    .input(humaneInput(z.object({ address })))
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.moderation.safety.unblock(ctx.user.id, input.address)),
    ),
});

const reportInput = z.object({
  target: z.string().trim().max(320).optional(),
  postId: z.string().trim().max(600).optional(),
  /** Several posts of one person (read instead of `postId`), as our report form names them. */
  postIds: z
    .array(z.string().trim().max(600))
    .max(REPORT_POSTS_MAX, `at most ${REPORT_POSTS_MAX} posts`)
    .optional(),
  category: z.enum(REPORT_CATEGORIES, { error: `one of ${REPORT_CATEGORIES.join(', ')}` }),
  comment: z.string().max(1000, 'at most 1000 characters').optional(),
  forward: z.boolean().optional(),
});

const adminRouter = router({
  reports: adminProcedure
    .input(
      humaneInput(
        z
          .object({ status: z.enum(['open', 'resolved', 'dismissed', 'all']).default('open') })
          .optional(),
      ),
    )
    .query(({ ctx, input }) => ctx.node.moderation.reports.queue({ status: input?.status })),
  openReports: adminProcedure.query(({ ctx }) => ctx.node.moderation.reports.openCount()),
  act: adminProcedure
    .input(
      humaneInput(
        z.object({
          reportId: z.string().trim().max(100),
          action: z.enum(REPORT_ACTIONS, { error: `one of ${REPORT_ACTIONS.join(', ')}` }),
          reason,
        }),
      ),
    )
    .mutation(
      onReports((reports, actor, input) =>
        reports.act(actor, input.reportId, input.action, input.reason),
      ),
    ),
  suspend: adminProcedure
    .input(humaneInput(z.object({ handle: address, suspended: z.boolean(), reason })))
    .mutation(
      onReports((reports, actor, input) =>
        reports.setSuspended(actor, input.handle, input.suspended, input.reason),
      ),
    ),
  silence: adminProcedure
    .input(humaneInput(z.object({ handle: address, silenced: z.boolean(), reason })))
    .mutation(
      onReports((reports, actor, input) =>
        reports.setSilenced(actor, input.handle, input.silenced, input.reason),
      ),
    ),
  mutedNodes: adminProcedure.query(({ ctx }) => ctx.node.moderation.reports.mutedNodes()),
  muteNode: adminProcedure
    .input(humaneInput(z.object({ domain: address, muted: z.boolean(), reason })))
    .mutation(
      onReports((reports, actor, input) =>
        reports.muteNode(actor, input.domain, input.muted, input.reason),
      ),
    ),
  registrations: adminProcedure.query(async ({ ctx }) => {
    const { registrations } = ctx.node.moderation;
    const [settings, invites, pending] = await Promise.all([
      registrations.settings(),
      registrations.invites(),
      registrations.pending(),
    ]);
    return { ...settings, invites, pending };
  }),
  setMode: adminProcedure
    .input(
      humaneInput(
        z.object({
          mode: z.enum(REGISTRATION_MODES, { error: `one of ${REGISTRATION_MODES.join(', ')}` }),
          reason: z.string().trim().max(1000).optional(),
        }),
      ),
    )
    .mutation(async ({ ctx, input }) =>
      unwrapAction(
        await ctx.node.moderation.registrations.setMode(ctx.user.handle, input.mode, input.reason),
      ),
    ),
  setRules: adminProcedure
    .input(humaneInput(z.object({ rules: z.string().max(10_000, 'at most 10000 characters') })))
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.moderation.registrations.setRules(ctx.user.handle, input.rules)),
    ),
  createInvite: adminProcedure
    .input(
      humaneInput(
        z.object({
          maxUses: z.int({ error: 'a whole number' }).min(1).max(1000).default(1),
          expiresInDays: z.int({ error: 'a whole number' }).min(1).max(365).nullish(),
        }),
      ),
    )
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.moderation.registrations.createInvite(actorOf(ctx.user), input)),
    ),
  revokeInvite: adminProcedure
    .input(humaneInput(z.object({ id: z.string().trim().max(100) })))
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.moderation.registrations.revokeInvite(ctx.user.handle, input.id)),
    ),
  decide: adminProcedure
    .input(
      humaneInput(
        z.object({
          userId: z.string().trim().max(100),
          decision: z.enum(['approve', 'reject']),
          reason: z.string().trim().max(1000).optional(),
        }),
      ),
    )
    .mutation(async ({ ctx, input }) => {
      const { registrations } = ctx.node.moderation;
      return unwrapAction(
        input.decision === 'approve'
          ? await registrations.approve(ctx.user.handle, input.userId, input.reason)
          : await registrations.reject(ctx.user.handle, input.userId, input.reason),
      );
    }),
  audit: adminProcedure
    .input(
      humaneInput(
        z
          .object({
            q: z.string().trim().max(200).optional(),
            before: z.iso.datetime({ offset: true }).optional(),
            limit: z.int().min(1).max(200).optional(),
          })
          .optional(),
      ),
    )
    .query(({ ctx, input }) => ctx.node.moderation.audit.search(input ?? {})),
});

export const moderationRouter = router({
  safety: safetyRouter,
  /** Files a report about a post or a person; forwarded to a remote content's node. */
  report: protectedProcedure
    .input(humaneInput(reportInput))
    .mutation(async ({ ctx, input }) =>
      unwrapAction(await ctx.node.moderation.reports.file(ctx.user.id, input)),
    ),
  admin: adminRouter,
});
