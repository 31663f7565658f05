import { ok, type Refusal, type Result } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { NodeConfig } from '../config.ts';
import { commitIfOk, refuse } from '../refusal.ts';
import {
  WEB_PUSH,
  PUSH_ALERTS,
  alertsFrom,
  checkPushEndpoint,
  checkPushKeys,
  isPushPolicy,
  type PushAlert,
  type PushPolicy,
} from './push-rules.ts';

/**
 * A person's Web Push subscriptions (docs/clients.md "Web Push"). An app's token has at most
 * one (as on Mastodon: subscribing again replaces it), and so has a session of the web app
 * (the browser that turned push on); each is deleted with its token or session by the database.
 */

/** Whose subscription: an app's token, or a browser's session of the web app. */
export type PushOwner =
  | { kind: 'token'; tokenId: string; userId: string }
  | { kind: 'session'; sessionId: string; userId: string };

export interface PushSubscriptionView {
  id: string;
  endpoint: string;
  alerts: PushAlert[];
  policy: PushPolicy;
  /** The node's VAPID public key (base64url), which the app's push service checks. */
  serverKey: string;
}

export interface PushSubscribeInput {
  endpoint: unknown;
  keys: { p256dh: unknown; auth: unknown };
  /** Mastodon's `{alert: boolean}`; absent: none on (Mastodon's default). */
  alerts?: unknown;
  policy?: unknown;
}

export interface PushSubscriptionService {
  /** The node's VAPID public key, base64url (instance document, Application entity). */
  readonly vapidPublicKey: string;
  subscribe(
    owner: PushOwner,
    input: PushSubscribeInput,
  ): Promise<Result<PushSubscriptionView, Refusal>>;
  current(owner: PushOwner): Promise<PushSubscriptionView | null>;
  /** Changes alerts and policy; null when the owner has no subscription. */
  update(
    owner: PushOwner,
    input: { alerts?: unknown; policy?: unknown },
  ): Promise<Result<PushSubscriptionView | null, Refusal>>;
  /** True when there was one to delete. */
  remove(owner: PushOwner): Promise<boolean>;
}

const whereOwner = (owner: PushOwner) =>
  owner.kind === 'token'
    ? { tokenId: owner.tokenId, userId: owner.userId }
    : { sessionId: owner.sessionId, userId: owner.userId };

function checkPolicy(value: unknown, fallback: PushPolicy): Result<PushPolicy, Refusal> {
  if (value === undefined || value === null || value === '') return ok(fallback);
  if (isPushPolicy(value)) return ok(value);
  return refuse(
    'INVALID_REQUEST',
    `Validation failed: Policy must be one of all, followed, follower, none`,
    {
      field: 'policy',
    },
  );
}

export function createPushSubscriptionService(deps: {
  db: Db;
  config: Pick<NodeConfig, 'dev'>;
  vapidPublicKey: string;
}): PushSubscriptionService {
  const { prisma } = deps.db;
  const view = (row: { id: string; endpoint: string; alerts: string[]; policy: string }) => ({
    id: row.id,
    endpoint: row.endpoint,
    alerts: PUSH_ALERTS.filter((alert) => row.alerts.includes(alert)),
    policy: isPushPolicy(row.policy) ? row.policy : 'all',
    serverKey: deps.vapidPublicKey,
  });

  return {
    vapidPublicKey: deps.vapidPublicKey,

    async subscribe(owner, input) {
      const endpoint = checkPushEndpoint(input.endpoint, deps.config.dev);
      if (!endpoint.ok) return endpoint;
      const keys = checkPushKeys(input.keys.p256dh, input.keys.auth);
      if (!keys.ok) return keys;
      const policy = checkPolicy(input.policy, 'all');
      if (!policy.ok) return policy;
      const alerts = alertsFrom(input.alerts);
      return commitIfOk(deps.db, async (tx) => {
        await tx.pushSubscription.deleteMany({ where: whereOwner(owner) });
        const row = await tx.pushSubscription.create({
          data: {
            userId: owner.userId,
            tokenId: owner.kind === 'token' ? owner.tokenId : null,
            sessionId: owner.kind === 'session' ? owner.sessionId : null,
            endpoint: endpoint.value,
            p256dh: keys.value.p256dh,
            auth: keys.value.auth,
            alerts,
            policy: policy.value,
          },
        });
        // The bound per person: the oldest subscriptions (forgotten devices) make room.
        const surplus = await tx.pushSubscription.findMany({
          where: { userId: owner.userId },
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
          skip: WEB_PUSH.subscriptionsPerUser,
          select: { id: true },
        });
        if (surplus.length > 0) {
          await tx.pushSubscription.deleteMany({ where: { id: { in: surplus.map((s) => s.id) } } });
        }
        return ok(view(row));
      });
    },

    async current(owner) {
      const row = await prisma.pushSubscription.findFirst({ where: whereOwner(owner) });
      return row ? view(row) : null;
    },

    async update(owner, input) {
      const row = await prisma.pushSubscription.findFirst({ where: whereOwner(owner) });
      if (!row) return ok(null);
      const policy = checkPolicy(input.policy, isPushPolicy(row.policy) ? row.policy : 'all');
      if (!policy.ok) return policy;
      const updated = await prisma.pushSubscription.update({
        where: { id: row.id },
        data: { alerts: alertsFrom(input.alerts, row.alerts), policy: policy.value },
      });
      return ok(view(updated));
    },

    async remove(owner) {
      const { count } = await prisma.pushSubscription.deleteMany({ where: whereOwner(owner) });
      return count > 0;
    },
  };
}
