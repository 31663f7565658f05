import { Prisma } from '@swarm/db';
import { sqlStatement } from './catalog.ts';

// Account ownership (ownership/): which nodes hold something of a user, and the counter fixes
// before a local user or a remote actor is erased (docs/protocol.md "Account ownership").

const EXAMPLE_UUID = '00000000-0000-4000-8000-000000000000';

/**
 * Domains holding something of a local user: their remote followers' and followees' nodes, the
 * nodes the outbox sent anything of theirs to, and for one post the nodes of those who liked,
 * reposted or answered it and of the post it answers. Never `self`; at most `limit`.
 */
export const holderDomainsSql = sqlStatement(
  'ownership.holder_domains',
  [EXAMPLE_UUID, 'self.test', EXAMPLE_UUID as string | null, 1000],
  (userId: string, self: string, postId: string | null, limit: number) => {
    const post = postId
      ? Prisma.sql`
      UNION SELECT ra.node_domain FROM likes l JOIN remote_actors ra ON ra.id = l.remote_actor_id
        WHERE l.post_id = ${postId}::uuid
      UNION SELECT ra.node_domain FROM reposts r JOIN remote_actors ra ON ra.id = r.remote_actor_id
        WHERE r.post_id = ${postId}::uuid
      UNION SELECT ra.node_domain FROM posts p JOIN remote_actors ra ON ra.id = p.remote_author_id
        WHERE p.reply_to_id = ${postId}::uuid
      UNION SELECT ra.node_domain FROM posts me JOIN posts parent ON parent.id = me.reply_to_id
        JOIN remote_actors ra ON ra.id = parent.remote_author_id
        WHERE me.id = ${postId}::uuid`
      : Prisma.empty;
    return Prisma.sql`
    SELECT DISTINCT domain FROM (
      SELECT ra.node_domain AS domain FROM follows f
        JOIN remote_actors ra ON ra.id = f.follower_remote_actor_id
        WHERE f.followee_user_id = ${userId}::uuid
      UNION SELECT ra.node_domain FROM follows f
        JOIN remote_actors ra ON ra.id = f.followee_remote_actor_id
        WHERE f.follower_user_id = ${userId}::uuid
      UNION SELECT target_domain FROM outbox_deliveries
        WHERE created_by_id = ${userId}::uuid
      ${post}
    ) AS holders(domain)
    WHERE domain <> ${self}
    ORDER BY domain
    LIMIT ${limit}`;
  },
);

/** The domains of the remote followers of an actor key (local user or remote actor). */
export const followerDomainsSql = sqlStatement(
  'ownership.follower_domains',
  ['local:' + EXAMPLE_UUID, 1000],
  (followeeKey: string, limit: number) => Prisma.sql`
    SELECT DISTINCT ra.node_domain AS domain FROM follows f
      JOIN remote_actors ra ON ra.id = f.follower_remote_actor_id
      WHERE f.followee_key = ${followeeKey}
    ORDER BY domain
    LIMIT ${limit}`,
);

/**
 * Takes one off the like or repost count of every post that `owner` (a local user, or a remote
 * actor) has a like or repost on: run before those rows go.
 */
function postCountFix(
  name: string,
  table: 'likes' | 'reposts',
  owner: 'user_id' | 'remote_actor_id',
) {
  // Identifiers from the fixed choices above, never from input.
  const counter = Prisma.raw(`${table}_count`);
  return sqlStatement(
    name,
    [EXAMPLE_UUID],
    (id: string) => Prisma.sql`
      UPDATE posts SET ${counter} = GREATEST(${counter} - 1, 0)
      WHERE id IN (SELECT post_id FROM ${Prisma.raw(table)} WHERE ${Prisma.raw(owner)} = ${id}::uuid)`,
  );
}

/**
 * Takes one off the follower count of every local user the user follows (`side` 'follower'), or
 * off the following count of every local user following them ('followee'): run before those
 * follows go.
 */
function followCountFix(name: string, side: 'follower' | 'followee') {
  // Identifiers from the fixed choices above, never from input.
  const other = side === 'follower' ? 'followee' : 'follower';
  const counter = Prisma.raw(side === 'follower' ? 'followers_count' : 'following_count');
  const own = Prisma.raw(`${side}_user_id`);
  const theirs = Prisma.raw(`${other}_user_id`);
  return sqlStatement(
    name,
    [EXAMPLE_UUID],
    (userId: string) => Prisma.sql`
    UPDATE users SET ${counter} = GREATEST(${counter} - 1, 0)
    WHERE id IN (SELECT ${theirs} FROM follows WHERE ${own} = ${userId}::uuid AND ${theirs} IS NOT NULL)`,
  );
}

/** Before a local user goes: the counters their likes, reposts, follows and replies moved. */
export const localUserCounterFixesSql = [
  postCountFix('ownership.erase_user_likes', 'likes', 'user_id'),
  postCountFix('ownership.erase_user_reposts', 'reposts', 'user_id'),
  followCountFix('ownership.erase_user_following', 'follower'),
  followCountFix('ownership.erase_user_followers', 'followee'),
  sqlStatement(
    'ownership.erase_user_replies',
    [EXAMPLE_UUID],
    (userId: string) => Prisma.sql`
    UPDATE posts AS parent SET replies_count = GREATEST(parent.replies_count - per.n, 0)
    FROM (SELECT reply_to_id, count(*)::int AS n FROM posts
          WHERE author_id = ${userId}::uuid AND reply_to_id IS NOT NULL AND deleted_at IS NULL
          GROUP BY reply_to_id) AS per
    WHERE parent.id = per.reply_to_id AND parent.author_id IS DISTINCT FROM ${userId}::uuid`,
  ),
] as const;

/** Before a remote actor's likes and reposts go: the counters of the posts they were on. */
export const remoteActorCounterFixesSql = [
  postCountFix('ownership.erase_actor_likes', 'likes', 'remote_actor_id'),
  postCountFix('ownership.erase_actor_reposts', 'reposts', 'remote_actor_id'),
] as const;
