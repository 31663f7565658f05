import { Prisma } from '@swarm/db';
import { sqlStatement } from './catalog.ts';

// Stored remote content (docs/architecture.md "Stored remote content"): the poller's row claims
// and schedule upkeep, and the retention sweep's choice of copies to drop. Claims must hold
// under several gateway replicas (a typed Prisma update cannot lock-and-skip).

const EXAMPLE_TIME = new Date('2026-01-01T00:00:00.000Z');

/**
 * Claims due poll rows: the inner SELECT locks what it takes and skips rows another replica
 * holds; the outer conditions are checked again on the locked row version.
 */
export const claimDuePollsSql = sqlStatement(
  'remotePosts.claimDuePolls',
  [EXAMPLE_TIME, EXAMPLE_TIME, 10],
  (now: Date, until: Date, limit: number) => Prisma.sql`
    UPDATE remote_author_polls
    SET claimed_until = ${until}::timestamptz
    WHERE remote_actor_id IN (
        SELECT remote_actor_id FROM remote_author_polls
        WHERE next_poll_at <= ${now}::timestamptz
          AND (claimed_until IS NULL OR claimed_until < ${now}::timestamptz)
        ORDER BY next_poll_at, remote_actor_id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      AND next_poll_at <= ${now}::timestamptz
      AND (claimed_until IS NULL OR claimed_until < ${now}::timestamptz)
    RETURNING remote_actor_id::text AS "remoteActorId"`,
);

/**
 * A poll row for every remote person someone here follows (accepted or pending) who has none,
 * due at once: the first run on an upgraded node backfills from the stored follow graph.
 */
export const seedFollowedPollsSql = sqlStatement(
  'remotePosts.seedFollowedPolls',
  [EXAMPLE_TIME, 300_000],
  (now: Date, intervalMs: number) => Prisma.sql`
    INSERT INTO remote_author_polls (remote_actor_id, next_poll_at, interval_ms)
    SELECT DISTINCT f.followee_remote_actor_id, ${now}::timestamptz, ${intervalMs}::int
    FROM follows f
    WHERE f.follower_user_id IS NOT NULL AND f.followee_remote_actor_id IS NOT NULL
    ON CONFLICT (remote_actor_id) DO NOTHING`,
);

/** Drops the poll rows of people nobody here follows any more. */
export const dropUnfollowedPollsSql = sqlStatement(
  'remotePosts.dropUnfollowedPolls',
  [],
  () => Prisma.sql`
    DELETE FROM remote_author_polls p
    WHERE NOT EXISTS (
      SELECT 1 FROM follows f
      WHERE f.followee_remote_actor_id = p.remote_actor_id AND f.follower_user_id IS NOT NULL)`,
);

/**
 * A copy this node must keep whatever its age: deleted here (the tombstone keeps it from coming
 * back), liked or reposted by someone here, replied to or reposted by a post written here, named
 * by a notification, bookmarked by someone here, or a reply in a thread of a post written here;
 * and while a stored repost of a remote person repeats it (that repost is aged as the reposter's
 * copy and shows nothing without it; once it goes, the copy is judged on its own again).
 */
const PROTECTED = Prisma.sql`(
  p.deleted_at IS NOT NULL
  OR EXISTS (SELECT 1 FROM likes l WHERE l.post_id = p.id AND l.user_id IS NOT NULL)
  OR EXISTS (SELECT 1 FROM reposts r WHERE r.post_id = p.id AND r.user_id IS NOT NULL)
  OR EXISTS (SELECT 1 FROM posts c WHERE c.reply_to_id = p.id AND c.author_id IS NOT NULL)
  OR EXISTS (SELECT 1 FROM posts c WHERE c.repost_of_id = p.id AND c.author_id IS NOT NULL)
  OR EXISTS (SELECT 1 FROM posts c
             WHERE c.repost_of_id = p.id AND c.remote_author_id IS NOT NULL
               AND c.deleted_at IS NULL)
  OR EXISTS (SELECT 1 FROM notifications n WHERE n.post_id = p.id)
  OR EXISTS (SELECT 1 FROM bookmarks b WHERE b.post_id = p.id)
  OR EXISTS (SELECT 1 FROM posts o WHERE o.id = p.reply_to_id AND o.author_id IS NOT NULL))`;

/** Someone here follows the copy's author (accepted or pending). */
const FOLLOWED = Prisma.sql`EXISTS (
  SELECT 1 FROM follows f
  WHERE f.followee_remote_actor_id = p.remote_author_id AND f.follower_user_id IS NOT NULL)`;

/**
 * Deletes up to `limit` expired copies: of a followed author, older than `followedBefore` and
 * not among their newest `keepPerAuthor`; of anyone else, not fetched since `otherBefore`.
 * Protected copies are never chosen; the conditions are checked again in the DELETE itself.
 */
export const deleteExpiredCopiesSql = sqlStatement(
  'remotePosts.deleteExpiredCopies',
  [EXAMPLE_TIME, EXAMPLE_TIME, 200, 100],
  (followedBefore: Date, otherBefore: Date, keepPerAuthor: number, limit: number) => Prisma.sql`
    WITH ranked AS (
      SELECT p.id, p.created_at, p.fetched_at,
             row_number() OVER (PARTITION BY p.remote_author_id
                                ORDER BY p.created_at DESC, p.id DESC) AS rank,
             ${FOLLOWED} AS followed
      FROM posts p
      WHERE p.fetched_at IS NOT NULL AND p.ap_id IS NOT NULL AND p.deleted_at IS NULL),
    doomed AS (
      SELECT r.id FROM ranked r JOIN posts p ON p.id = r.id
      WHERE ((r.followed AND r.created_at < ${followedBefore}::timestamptz
              AND r.rank > ${keepPerAuthor})
          OR (NOT r.followed AND r.fetched_at < ${otherBefore}::timestamptz))
        AND NOT ${PROTECTED}
      ORDER BY r.fetched_at, r.id
      LIMIT ${limit})
    DELETE FROM posts p
    WHERE p.id IN (SELECT id FROM doomed) AND p.fetched_at IS NOT NULL AND NOT ${PROTECTED}
    RETURNING p.id::text AS id`,
);

/** Remote copies held (deleted ones are tombstones, not content, and are not counted). */
export const countStoredCopiesSql = sqlStatement(
  'remotePosts.countStoredCopies',
  [],
  () => Prisma.sql`
    SELECT count(*)::int AS n FROM posts p
    WHERE p.fetched_at IS NOT NULL AND p.ap_id IS NOT NULL AND p.deleted_at IS NULL`,
);

/** Deletes up to `limit` of the oldest-fetched unprotected copies (the size budget). */
export const deleteOldestCopiesSql = sqlStatement(
  'remotePosts.deleteOldestCopies',
  [100],
  (limit: number) => Prisma.sql`
    DELETE FROM posts p
    WHERE p.id IN (
        SELECT p.id FROM posts p
        WHERE p.fetched_at IS NOT NULL AND p.ap_id IS NOT NULL AND NOT ${PROTECTED}
        ORDER BY p.fetched_at, p.id
        LIMIT ${limit})
      AND NOT ${PROTECTED}
    RETURNING p.id::text AS id`,
);
