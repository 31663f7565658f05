import { randomUUID } from 'node:crypto';
import webpush from 'web-push';
import { baseUrlForDomain, isLoopbackDomain } from '@swarm/contract';
import {
  localActorKey,
  type Db,
  type Prisma,
  type PushSubscription as PushSubscriptionRow,
} from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { VapidKeys } from '../node-keys.service.ts';
import { toNotificationView } from '../notifications/notification.service.ts';
import type { PeerClient } from '../peers/peer-client.ts';
import { describePeerError } from '../peers/peer-errors.ts';
import { claimPushesSql } from '../persistence/push.sql.ts';
import { pushPayloadOf } from './push-payload.ts';
import { ALERT_OF_NOTIFICATION, WEB_PUSH, isPushPolicy, type PushPolicy } from './push-rules.ts';

/**
 * Sends what the push outbox holds (docs/clients.md "Web Push"): each row is one notification
 * for one subscription. The payload is encrypted for the subscription's keys (aes128gcm, RFC
 * 8291) and signed with the node's VAPID key (RFC 8292) by the `web-push` library; the request
 * goes out through the peer client (SSRF guard, timeout, no redirects), never from the request
 * that made the notification. A push service that says the subscription is gone (404, 410)
 * loses it; a failure worth another try is tried again later, `WEB_PUSH.maxAttempts` in all.
 */

export interface PushBatchReport {
  claimed: number;
  sent: number;
  /** Not sent because of the subscription's alerts or policy. */
  skipped: number;
  /** Subscriptions deleted because their push service said they are gone. */
  gone: number;
  /** Left for another try. */
  retried: number;
  /** Given up. */
  dropped: number;
}

export interface PushSender {
  processDue(): Promise<PushBatchReport>;
}

export interface PushSenderDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  config: Pick<NodeConfig, 'domain'>;
  peers: Pick<PeerClient, 'postBytes'>;
  vapid: VapidKeys;
  /** Rows per batch (default 32) and pushes in flight at once (default 8). */
  batch?: number;
  concurrency?: number;
}

interface OutboxRow {
  id: string;
  notificationId: string;
  subscriptionId: string;
  attempts: number;
}

const notificationSelect = {
  id: true,
  apiId: true,
  type: true,
  recipientId: true,
  actorKey: true,
  actorHandle: true,
  actorDisplayName: true,
  actorAvatarUrl: true,
  actorNodeDomain: true,
  postApId: true,
  content: true,
  readAt: true,
  createdAt: true,
  post: { select: { id: true, apId: true, deletedAt: true, content: true } },
} as const satisfies Prisma.NotificationSelect;

interface BatchRows {
  notifications: Map<string, Prisma.NotificationGetPayload<{ select: typeof notificationSelect }>>;
  subscriptions: Map<string, PushSubscriptionRow>;
  /** Rows sent, skipped or given up: deleted together when the batch ends. */
  done: string[];
}

/** How long a claimed row is held before another worker may take it (a crashed worker's rows). */
const CLAIM_MS = 60_000;
/** The wait before another try: 10 s, then 40 s. */
const retryDelayMs = (attempts: number) => 10_000 * attempts * attempts;

type Outcome = 'sent' | 'skipped' | 'gone' | 'retried' | 'dropped';

/** A VAPID subject must be an https URL or a mailto; a loopback node has no https URL. */
function vapidSubject(domain: string): string {
  return isLoopbackDomain(domain) ? 'mailto:push@localhost.invalid' : baseUrlForDomain(domain);
}

export function createPushSender(deps: PushSenderDeps): PushSender {
  const { prisma } = deps.db;
  const baseUrl = baseUrlForDomain(deps.config.domain);
  const vapidDetails = {
    subject: vapidSubject(deps.config.domain),
    publicKey: deps.vapid.publicKey,
    privateKey: deps.vapid.privateKey,
  };
  const batch = deps.batch ?? 32;
  const concurrency = deps.concurrency ?? 8;

  /** Whether the subscription's policy lets a notification by `actorKey` through. */
  async function policyAllows(policy: PushPolicy, recipientId: string, actorKey: string) {
    if (policy === 'all') return true;
    if (policy === 'none') return false;
    const self = localActorKey(recipientId);
    const where =
      policy === 'followed'
        ? { followerKey: self, followeeKey: actorKey }
        : { followerKey: actorKey, followeeKey: self };
    return (await prisma.follow.count({ where: { ...where, state: 'accepted' } })) > 0;
  }

  async function sendOne(row: OutboxRow, batch: BatchRows): Promise<Outcome> {
    // A row whose tries all ended in an error (not an answer) is not tried forever.
    if (row.attempts > WEB_PUSH.maxAttempts) return finish(batch, row.id, 'dropped');
    const notification = batch.notifications.get(row.notificationId);
    const subscription = batch.subscriptions.get(row.subscriptionId);
    // Both cascade-delete the row; a row seen without them was deleted just now.
    if (!notification || !subscription) return finish(batch, row.id, 'skipped');
    const alert = ALERT_OF_NOTIFICATION[notification.type];
    const policy = isPushPolicy(subscription.policy) ? subscription.policy : 'all';
    if (
      !subscription.alerts.includes(alert) ||
      !(await policyAllows(policy, notification.recipientId, notification.actorKey))
    ) {
      return finish(batch, row.id, 'skipped');
    }

    const view = toNotificationView(notification, deps.config.domain);
    const postText =
      notification.post && !notification.post.deletedAt ? notification.post.content : null;
    const payload = JSON.stringify(
      pushPayloadOf(view, notification.apiId.toString(), postText, baseUrl),
    );
    let request: ReturnType<typeof webpush.generateRequestDetails>;
    try {
      request = webpush.generateRequestDetails(
        {
          endpoint: subscription.endpoint,
          keys: { p256dh: subscription.p256dh, auth: subscription.auth },
        },
        payload,
        { vapidDetails, TTL: WEB_PUSH.ttlSeconds, contentEncoding: 'aes128gcm', urgency: 'normal' },
      );
    } catch (error) {
      // Keys were checked when stored: only a subscription stored otherwise gets here.
      deps.logger.warn({ err: error, subscription: subscription.id }, 'push: cannot encrypt');
      return finish(batch, row.id, 'dropped');
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      // The transport sets the length from the body.
      if (name.toLowerCase() !== 'content-length') headers[name] = String(value);
    }
    const answer = await deps.peers.postBytes(
      subscription.endpoint,
      new Uint8Array(request.body as Buffer),
      headers,
      { timeoutMs: WEB_PUSH.timeoutMs },
    );
    const log = { subscription: subscription.id, notification: notification.id };
    if (answer.ok && answer.status >= 200 && answer.status < 300) {
      deps.logger.debug({ ...log, ms: answer.ms }, 'push sent');
      return finish(batch, row.id, 'sent');
    }
    if (answer.ok && (answer.status === 404 || answer.status === 410)) {
      // The push service forgot the subscription (the app was removed, the browser unsubscribed).
      await prisma.pushSubscription.deleteMany({ where: { id: subscription.id } });
      deps.logger.info({ ...log, status: answer.status }, 'push subscription gone');
      return 'gone';
    }
    const transient = answer.ok
      ? answer.status === 429 || answer.status >= 500
      : answer.reason.kind === 'timeout' || answer.reason.kind === 'unreachable';
    const why = answer.ok ? `HTTP ${answer.status}` : describePeerError(answer.reason);
    if (transient && row.attempts < WEB_PUSH.maxAttempts) {
      const until = new Date(deps.clock.now().getTime() + retryDelayMs(row.attempts));
      await prisma.pushOutbox.updateMany({
        where: { id: row.id },
        data: { lockedUntil: until, lockedBy: null },
      });
      deps.logger.info({ ...log, why, attempts: row.attempts }, 'push failed, will try again');
      return 'retried';
    }
    deps.logger.info({ ...log, why, attempts: row.attempts }, 'push failed, given up');
    return finish(batch, row.id, 'dropped');
  }

  /** The row is done with: deleted with the batch's others at its end. */
  function finish(batch: BatchRows, id: string, outcome: Outcome): Outcome {
    batch.done.push(id);
    return outcome;
  }

  /** What a batch's rows need, read in two queries for the whole batch. */
  async function readBatch(rows: OutboxRow[]): Promise<BatchRows> {
    const [notifications, subscriptions] = await Promise.all([
      prisma.notification.findMany({
        where: { id: { in: [...new Set(rows.map((r) => r.notificationId))] } },
        select: notificationSelect,
      }),
      prisma.pushSubscription.findMany({
        where: { id: { in: [...new Set(rows.map((r) => r.subscriptionId))] } },
      }),
    ]);
    return {
      notifications: new Map(notifications.map((n) => [n.id, n])),
      subscriptions: new Map(subscriptions.map((s) => [s.id, s])),
      done: [],
    };
  }

  return {
    async processDue() {
      const now = deps.clock.now();
      const rows = await prisma.$queryRaw<OutboxRow[]>(
        claimPushesSql(now, new Date(now.getTime() + CLAIM_MS), `push:${randomUUID()}`, batch),
      );
      const report: PushBatchReport = {
        claimed: rows.length,
        sent: 0,
        skipped: 0,
        gone: 0,
        retried: 0,
        dropped: 0,
      };
      if (rows.length === 0) return report;
      const batchRows = await readBatch(rows);
      // A few at a time: one slow push service does not hold up the others' pushes.
      let next = 0;
      const lane = async () => {
        while (next < rows.length) {
          const row = rows[next++]!;
          const outcome = await sendOne(row, batchRows).catch((error: unknown) => {
            deps.logger.error({ err: error, push: row.id }, 'push failed');
            return 'retried' as const;
          });
          report[outcome] += 1;
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, rows.length) }, lane));
      await prisma.pushOutbox.deleteMany({ where: { id: { in: batchRows.done } } });
      return report;
    },
  };
}
