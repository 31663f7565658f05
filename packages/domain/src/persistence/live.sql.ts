import { Prisma } from '@swarm/db';
import { sqlStatement } from './catalog.ts';
import { listedPostSql, shownNotificationSql } from './visibility.sql.ts';

// Live updates (live/live-hub.ts): what each open stream's snapshot is made of.

/** Of the sessions `ids`, those still alive at `now` (a signed-out stream ends). */
export const liveSessionsSql = sqlStatement(
  'live.sessions',
  [['session-id'], new Date(0)],
  (ids: string[], now: Date) => Prisma.sql`
    SELECT id FROM sessions WHERE id = ANY(${ids}::text[]) AND expires_at > ${now}`,
);

/**
 * The snapshot of each user in `userIds` on node `self`, one statement. Notifications and posts
 * count only who may be seen (visibility.sql.ts), as the pages they lead to show them; the home
 * timeline's newest post includes the stored copies of followed remote people's posts.
 */
export const liveStateSql = sqlStatement(
  'live.state',
  [['00000000-0000-0000-0000-000000000000'] as readonly string[], 'node.example'],
  (userIds: readonly string[], self: string) => Prisma.sql`
    SELECT u.id::text AS user_id,
      (SELECT count(*)::int FROM notifications n
        WHERE n.recipient_id = u.id AND n.read_at IS NULL
          AND ${shownNotificationSql('n', 'u', self)}) AS unread_notifications,
      (SELECT max(n.created_at) FROM notifications n
        WHERE n.recipient_id = u.id
          AND ${shownNotificationSql('n', 'u', self)}) AS latest_notification,
      (SELECT count(*)::int FROM messages m
        WHERE m.local_recipient_id = u.id AND m.read_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM user_blocks b
            WHERE b.user_id = u.id AND b.blocked_address = m.sender_address)) AS unread_messages,
      (SELECT concat_ws('/', count(*), max(m.received_at), max(m.delivered_at), max(m.read_at),
          count(*) FILTER (WHERE m.status = 'failed'), count(*) FILTER (WHERE m.status = 'sending'))
        FROM messages m
        WHERE m.local_recipient_id = u.id OR m.local_sender_id = u.id) AS messages_version,
      (SELECT concat_ws('/', count(*), max(d.updated_at),
          count(*) FILTER (WHERE d.status = 'pending'), sum(d.attempts))
        FROM outbox_deliveries d WHERE d.created_by_id = u.id) AS deliveries_version,
      GREATEST(
        (SELECT max(p.created_at) FROM posts p
          WHERE p.ap_id IS NULL AND p.deleted_at IS NULL AND p.reply_to_id IS NULL
            AND ${listedPostSql('p')}
            AND (p.author_id = u.id OR p.author_id IN (
              SELECT f.followee_user_id FROM follows f
              WHERE f.follower_key = 'local:' || u.id::text AND f.followee_user_id IS NOT NULL))),
        -- Stored copies of followed remote people's posts (pushed or polled), as home lists them.
        (SELECT max(p.created_at) FROM posts p
          WHERE p.ap_id IS NOT NULL AND p.fetched_at IS NOT NULL AND p.deleted_at IS NULL
            AND p.reply_to_id IS NULL
            AND p.remote_author_id IN (
              SELECT f.followee_remote_actor_id FROM follows f
              WHERE f.follower_key = 'local:' || u.id::text
                AND f.followee_remote_actor_id IS NOT NULL))
      ) AS home_latest
    FROM unnest(${[...userIds]}::uuid[]) AS u(id)`,
);
