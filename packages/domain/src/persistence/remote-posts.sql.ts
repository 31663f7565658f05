import { Prisma } from '@swarm/db';
import { batchedSql, sqlStatement } from './catalog.ts';
import { remoteActorsUpsertSql } from './interactions.sql.ts';

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

/**
 * What a pushed post needs to know before anything is written (post-inbox.ts), one row per
 * push: the copy held under its id (its author's URL and counts), whether someone here follows
 * its author (accepted), and the did pinned for the author. Pushes arriving together share it.
 */
export const inboxLookUpSql = batchedSql('remotePosts.inboxLookUp', {
  columns: { ap_id: 'text', actor_url: 'text' },
  statement: (input) => Prisma.sql`
    SELECT input.ord, copy.id IS NOT NULL AS held, copy_author.actor_url AS copy_author,
      copy.likes_count, copy.reposts_count, copy.replies_count,
      EXISTS (SELECT 1 FROM follows f
        WHERE f.followee_key = input.actor_url AND f.follower_user_id IS NOT NULL
          AND f.state = 'accepted') AS followed,
      author.did
    FROM ${input}
    LEFT JOIN posts copy ON copy.ap_id = input.ap_id
    LEFT JOIN remote_actors copy_author ON copy_author.id = copy.remote_author_id
    LEFT JOIN remote_actors author ON author.actor_url = input.actor_url`,
});

/**
 * New copies (remote-post-store.ts), each with its author and images, in one statement: atomic
 * per batch (a copy is never written without its images), and copies arriving together share
 * it. The author's row is written only when the post says something new of them (a name, an
 * avatar): an unchanged author is read, not updated, so concurrent batches of one author's
 * posts do not queue on their row. A copy already held (or a second row of one id in the
 * batch) is not written: its row answers `created` false and the caller refreshes it. The
 * reply target is the row of a copy (`reply_ap_id`) or of a local post (`reply_local_id`).
 */
export const insertCopiesSql = batchedSql('remotePosts.insertCopies', {
  columns: {
    ap_id: 'text',
    actor_url: 'text',
    handle: 'text',
    node_domain: 'text',
    display_name: 'text',
    avatar_url: 'text',
    visibility: 'text',
    created_at: 'timestamptz',
    reply_ap_id: 'text',
    reply_local_id: 'uuid',
    content: 'text',
    is_nsfw: 'boolean',
    likes_count: 'integer',
    reposts_count: 'integer',
    replies_count: 'integer',
    link_preview_url: 'text',
    link_preview_title: 'text',
    link_preview_description: 'text',
    link_preview_image: 'text',
    media: 'text',
    at: 'timestamptz',
  },
  statement: (input) => Prisma.sql`
    WITH input AS (SELECT * FROM ${input}),
    actor_source AS (
      -- One row per author: what the latest post of the batch says of them.
      SELECT DISTINCT ON (actor_url) actor_url, handle, node_domain, display_name,
        avatar_url, ''::text AS bio, NULL::text AS did, NULL::text AS replaces,
        NULL::timestamptz AS fetched_at, at
      FROM input ORDER BY actor_url, ord DESC
    ), unchanged AS (
      -- What the upsert would leave as it is (remoteActorsUpsertSql: an empty name and no
      -- avatar keep the stored ones).
      SELECT remote_actors.id, remote_actors.actor_url
      FROM actor_source JOIN remote_actors ON remote_actors.actor_url = actor_source.actor_url
      WHERE (actor_source.display_name = '' OR actor_source.display_name = remote_actors.display_name)
        AND (actor_source.avatar_url IS NULL OR actor_source.avatar_url = remote_actors.avatar_url)
    ), changed AS (
      SELECT * FROM actor_source
      WHERE NOT EXISTS (SELECT 1 FROM unchanged WHERE unchanged.actor_url = actor_source.actor_url)
    ), upserted AS (${remoteActorsUpsertSql('changed')}
    ), actor AS (
      SELECT id, actor_url FROM unchanged UNION ALL SELECT id, actor_url FROM upserted
    ), fresh AS (
      SELECT DISTINCT ON (input.ap_id) input.* FROM input
      WHERE NOT EXISTS (SELECT 1 FROM posts WHERE posts.ap_id = input.ap_id)
      ORDER BY input.ap_id, input.ord
    ), inserted AS (
      INSERT INTO posts (ap_id, remote_author_id, visibility, created_at, reply_to_id, content,
        is_nsfw, likes_count, reposts_count, replies_count, link_preview_url, link_preview_title,
        link_preview_description, link_preview_image, fetched_at, updated_at)
      SELECT fresh.ap_id, actor.id, fresh.visibility::post_visibility, fresh.created_at,
        COALESCE(
          (SELECT target.id FROM posts target WHERE target.ap_id = fresh.reply_ap_id),
          (SELECT target.id FROM posts target
            WHERE target.id = fresh.reply_local_id AND target.ap_id IS NULL)),
        fresh.content, fresh.is_nsfw, fresh.likes_count, fresh.reposts_count,
        fresh.replies_count, fresh.link_preview_url, fresh.link_preview_title,
        fresh.link_preview_description, fresh.link_preview_image, fresh.at, fresh.at
      FROM fresh JOIN actor ON actor.actor_url = fresh.actor_url
      ORDER BY fresh.ap_id
      -- A concurrent store made it first: theirs is as new as ours.
      ON CONFLICT (ap_id) DO NOTHING
      RETURNING id, ap_id
    ), images AS (
      INSERT INTO media_items (post_id, url, mime_type, alt_text, position)
      SELECT inserted.id, item.url, item.mime_type, item.alt_text, item.position
      FROM inserted JOIN fresh ON fresh.ap_id = inserted.ap_id,
        jsonb_to_recordset(fresh.media::jsonb)
          AS item(url text, mime_type text, alt_text text, position int)
    )
    SELECT input.ord, inserted.id IS NOT NULL AS created
    FROM input
    LEFT JOIN fresh ON fresh.ord = input.ord
    LEFT JOIN inserted ON inserted.ap_id = fresh.ap_id`,
});
