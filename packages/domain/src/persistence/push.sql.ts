import { Prisma } from '@swarm/db';
import { sqlStatement } from './catalog.ts';

// The Web Push outbox (push/): notifications waiting to be pushed to their recipient's
// subscriptions. Rows are written in the transaction that made the notification.

const EXAMPLE_ID = '00000000-0000-4000-8000-000000000000';
const EXAMPLE_TIME = new Date('2026-01-01T00:00:00.000Z');

/** Rows the outbox may hold, node-wide (push/push-rules.ts `WEB_PUSH.outboxMax`). */
export const PUSH_OUTBOX_MAX = 10_000;

/**
 * Queues a notification for each subscription of its recipient (none: nothing), while the
 * outbox is under its bound (a flood is dropped, not queued without end). Shared by the single
 * insert below and the batched like/repost statement (interactions.sql.ts), which names its
 * notifications' relation in `from` (`notified,`). The bound is spliced as a constant: batched
 * statements bind their input only.
 */
export function pushRowsSql(
  notification: Prisma.Sql,
  recipient: Prisma.Sql,
  from: Prisma.Sql = Prisma.empty,
): Prisma.Sql {
  return Prisma.sql`INSERT INTO push_outbox (notification_id, subscription_id)
      SELECT ${notification}, s.id FROM ${from} push_subscriptions s
      WHERE s.user_id = ${recipient}
        AND (SELECT count(*) FROM push_outbox) < ${Prisma.raw(String(PUSH_OUTBOX_MAX))}`;
}

/** Queues one notification (follows, mentions, replies: `notify` in interaction-effects.ts). */
export const queuePushSql = sqlStatement(
  'push.queue',
  [EXAMPLE_ID, EXAMPLE_ID],
  (notificationId: string, recipientId: string) =>
    pushRowsSql(Prisma.sql`${notificationId}::uuid`, Prisma.sql`${recipientId}::uuid`),
);

/** Claims up to `limit` rows nobody holds, oldest first; several workers never share one. */
export const claimPushesSql = sqlStatement(
  'push.claim',
  [EXAMPLE_TIME, EXAMPLE_TIME, 'worker', 10],
  (now: Date, until: Date, owner: string, limit: number) => Prisma.sql`
    UPDATE push_outbox
    SET locked_until = ${until}::timestamptz, locked_by = ${owner}, attempts = attempts + 1
    WHERE id IN (
        SELECT id FROM push_outbox
        WHERE locked_until IS NULL OR locked_until < ${now}::timestamptz
        ORDER BY created_at, id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
    RETURNING id, notification_id AS "notificationId", subscription_id AS "subscriptionId",
      attempts`,
);
