import { z } from 'zod';
import { PUSH_ALERTS, WEB_PUSH, type PushOwner } from '@swarm/domain';
import { unwrap } from './refusals.ts';
import { protectedProcedure, router } from './trpc.ts';

/**
 * "Push notifications on this device" in Settings (docs/clients.md "Web Push"): the browser
 * subscribes with the node's VAPID key and hands its subscription over here. It belongs to the
 * session (that browser): logging out there, or the session ending, ends it. Every
 * notification type is on; the service checks the endpoint and keys as it does an app's.
 */

const ownerOf = (ctx: { user: { id: string }; session: { sessionId: string } }): PushOwner => ({
  kind: 'session',
  sessionId: ctx.session.sessionId,
  userId: ctx.user.id,
});

const ALL_ON = Object.fromEntries(PUSH_ALERTS.map((alert) => [alert, true]));

export const pushRouter = router({
  /** The node's VAPID key, and whether this session has a subscription (and to which endpoint). */
  status: protectedProcedure.query(async ({ ctx }) => {
    const current = await ctx.node.push.subscriptions.current(ownerOf(ctx));
    return {
      vapidPublicKey: ctx.node.push.subscriptions.vapidPublicKey,
      endpoint: current?.endpoint ?? null,
    };
  }),

  subscribe: protectedProcedure
    .input(
      z.object({
        endpoint: z.string().max(WEB_PUSH.endpointMaxChars),
        keys: z.object({ p256dh: z.string().max(200), auth: z.string().max(100) }),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const made = unwrap(
        await ctx.node.push.subscriptions.subscribe(ownerOf(ctx), { ...input, alerts: ALL_ON }),
      );
      return { endpoint: made.endpoint };
    }),

  unsubscribe: protectedProcedure.mutation(async ({ ctx }) => ({
    removed: await ctx.node.push.subscriptions.remove(ownerOf(ctx)),
  })),
});
