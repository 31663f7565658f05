import { Prisma } from '@swarm/db';
import { sqlStatement } from './catalog.ts';
import { shownNotificationSql } from './visibility.sql.ts';

// Apps' streaming (live/stream-feed.ts): what is new since the last read, and who may get it.

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * The columns the feed reads of a post `p` and its author, and of the post it reposts.
 * `shown_hash` sums up what apps show of it (text, mark, images, link): a copy stored again with
 * another is an edit to stream, one with new counts only is not.
 */
const POST_FACTS = Prisma.sql`
  md5(concat_ws(chr(31), p.content, p.is_nsfw::text, p.link_preview_url,
    (SELECT string_agg(m.url || chr(29) || m.alt_text, chr(30) ORDER BY m.position)
     FROM media_items m WHERE m.post_id = p.id))) AS shown_hash,
  p.id::text AS id, p.api_id::text AS api_id, p.author_id::text AS author_id,
  p.remote_author_id::text AS remote_author_id, p.visibility::text AS visibility,
  p.ap_id IS NULL AS local, p.reply_to_id IS NOT NULL AS is_reply,
  p.repost_of_id::text AS repost_of_id, p.content,
  coalesce(p.fetched_at, p.created_at) AS seen_at,
  coalesce(u.handle, ra.handle) AS handle, ra.node_domain AS node_domain,
  (u.id IS NOT NULL AND (u.suspended_at IS NOT NULL OR u.pending_approval)) AS hidden,
  (u.moved_to IS NOT NULL OR ra.moved_to IS NOT NULL) AS moved,
  (u.silenced_at IS NOT NULL) AS silenced,
  EXISTS (SELECT 1 FROM node_blocks nb WHERE nb.domain = ra.node_domain) AS node_blocked,
  EXISTS (SELECT 1 FROM node_mutes nm WHERE nm.domain = ra.node_domain) AS node_muted,
  coalesce(ru.handle, rra.handle) AS repost_handle, rra.node_domain AS repost_node_domain`;

const POST_JOINS = Prisma.sql`
  LEFT JOIN users u ON u.id = p.author_id
  LEFT JOIN remote_actors ra ON ra.id = p.remote_author_id
  LEFT JOIN posts rp ON rp.id = p.repost_of_id
  LEFT JOIN users ru ON ru.id = rp.author_id
  LEFT JOIN remote_actors rra ON rra.id = rp.remote_author_id`;

/**
 * Posts that appeared since `since`: local posts by their creation, copies by when they were
 * stored (their own date is the author's node's; a copy is new here when it arrives), no copy
 * dated before `oldest` (a crawl of old posts is not news). Imported posts are not news either.
 * Also answers the database's clock, from which the next read starts.
 */
export const streamNewPostsSql = sqlStatement(
  'stream.new_posts',
  [new Date(0), new Date(0), 500],
  (since: Date, oldest: Date, limit: number) => Prisma.sql`
    SELECT ${POST_FACTS}, now() AS db_now
    FROM posts p ${POST_JOINS}
    WHERE ((p.ap_id IS NULL AND p.created_at > ${since})
        OR (p.ap_id IS NOT NULL AND p.fetched_at > ${since} AND p.created_at > ${oldest}))
      AND p.deleted_at IS NULL AND p.moved_from IS NULL
    ORDER BY coalesce(p.fetched_at, p.created_at), p.id
    LIMIT ${limit}`,
);

/** Of the posts `ids`, those deleted (soft) or gone (a swept copy): their ids. */
export const streamGonePostsSql = sqlStatement(
  'stream.gone_posts',
  [[ZERO_UUID]],
  (ids: readonly string[]) => Prisma.sql`
    SELECT i.id::text AS id FROM unnest(${[...ids]}::uuid[]) AS i(id)
    WHERE NOT EXISTS (SELECT 1 FROM posts p WHERE p.id = i.id AND p.deleted_at IS NULL)`,
);

/**
 * Notifications of `recipients` made since `since` that the recipient is shown (the same rule as
 * their list: visibility.sql.ts).
 */
export const streamNewNotificationsSql = sqlStatement(
  'stream.new_notifications',
  [[ZERO_UUID], new Date(0), 'node.example', 500],
  (recipients: readonly string[], since: Date, self: string, limit: number) => Prisma.sql`
    SELECT n.id::text AS id, n.api_id::text AS api_id, n.recipient_id::text AS recipient_id,
      n.type::text AS type, n.created_at,
      coalesce(n.actor_user_id, n.actor_remote_actor_id)::text AS account_id,
      (SELECT p.id::text FROM posts p WHERE p.id = n.post_id AND p.deleted_at IS NULL) AS post_id
    FROM notifications n JOIN users u ON u.id = n.recipient_id
    WHERE n.recipient_id = ANY(${[...recipients]}::uuid[]) AND n.created_at > ${since}
      AND ${shownNotificationSql('n', 'u', self)}
    ORDER BY n.created_at, n.id
    LIMIT ${limit}`,
);

/**
 * Which of `viewers` follow which of the authors (`local:<id>` or remote actor ids): local
 * authors by accepted follows (their followers-only posts need one), remote ones by any follow
 * (a copy is here because someone here follows its author, as home lists them).
 */
export const streamFollowersSql = sqlStatement(
  'stream.followers',
  [[ZERO_UUID], [ZERO_UUID], [ZERO_UUID]],
  (viewers: readonly string[], localAuthors: readonly string[], remoteAuthors: readonly string[]) =>
    Prisma.sql`
    SELECT f.follower_user_id::text AS viewer,
      coalesce(f.followee_user_id, f.followee_remote_actor_id)::text AS author
    FROM follows f
    WHERE f.follower_user_id = ANY(${[...viewers]}::uuid[])
      AND ((f.followee_user_id = ANY(${[...localAuthors]}::uuid[]) AND f.state = 'accepted')
        OR f.followee_remote_actor_id = ANY(${[...remoteAuthors]}::uuid[]))`,
);

/**
 * Of `viewers`, who hides whom among `addresses` (lower-case `handle@domain`) and `domains`:
 * their mutes and blocks, and local authors (`authorIds`) who blocked them
 * (views/visibility.ts, "The viewer's mutes and blocks"). `target` is an address or a domain.
 */
export const streamHiddenSql = sqlStatement(
  'stream.hidden',
  [[ZERO_UUID], ['a@node.example'], ['node.example'], [ZERO_UUID], 'node.example'],
  (
    viewers: readonly string[],
    addresses: readonly string[],
    domains: readonly string[],
    authorIds: readonly string[],
    self: string,
  ) => Prisma.sql`
    SELECT m.user_id::text AS viewer, lower(m.target) AS target, m.kind::text AS kind
    FROM user_mutes m
    WHERE m.user_id = ANY(${[...viewers]}::uuid[])
      AND (lower(m.target) = ANY(${[...addresses]}::text[])
        OR (m.kind = 'node' AND lower(m.target) = ANY(${[...domains]}::text[])))
    UNION ALL
    SELECT b.user_id::text, lower(b.blocked_address), 'person'
    FROM user_blocks b
    WHERE b.user_id = ANY(${[...viewers]}::uuid[])
      AND lower(b.blocked_address) = ANY(${[...addresses]}::text[])
    UNION ALL
    SELECT v.id::text, lower(a.handle || '@' || ${self}::text), 'person'
    FROM user_blocks b
    JOIN users a ON a.id = b.user_id
    JOIN users v ON lower(b.blocked_address) = lower(v.handle || '@' || ${self}::text)
    WHERE b.user_id = ANY(${[...authorIds]}::uuid[]) AND v.id = ANY(${[...viewers]}::uuid[])`,
);
