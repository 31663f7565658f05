import { Prisma } from '@swarm/db';

// The SQL side of "who may be seen" (views/visibility.ts, the one owner of the rule): the same
// conditions as its `SHOWN_ACCOUNT` / `LISTED_ACCOUNT` filters, as fragments the raw statements of
// search and live updates put in their WHERE clauses. Fragments, not statements: each statement
// using them is catalogued (and planned by persistence-statements.int.test.ts) with them inside.

/** A user row that is hidden from everyone: suspended, or a sign-up waiting for approval. */
const HIDDEN_USER = Prisma.sql`(hu.suspended_at IS NOT NULL OR hu.pending_approval)`;

/** `userId` (a column) is not a hidden local account (null, a remote actor, passes). */
export function shownUserSql(userId: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`NOT EXISTS (SELECT 1 FROM users hu WHERE hu.id = ${userId} AND ${HIDDEN_USER})`;
}

/**
 * A post of `posts` table alias `p` may be listed (search, tags, timelines): its local author is
 * shown and has not moved away, and its remote author has not moved away either (the posts live
 * on at the new address; listing the old copies would show them twice).
 */
export function listedPostSql(p: string): Prisma.Sql {
  const post = Prisma.raw(`"${p}"`);
  return Prisma.sql`NOT EXISTS (SELECT 1 FROM users hu WHERE hu.id = ${post}."author_id"
        AND (${HIDDEN_USER} OR hu.moved_to IS NOT NULL))
      AND NOT EXISTS (SELECT 1 FROM remote_actors ra WHERE ra.id = ${post}."remote_author_id"
        AND ra.moved_to IS NOT NULL)`;
}

/**
 * A notification `n` (table alias) shown to its recipient `recipient` (a users alias) on node
 * `self`: its local actor is shown, and its actor is not someone the recipient muted or
 * blocked, nor of a node they muted, nor a local person who blocked them (the SQL twin of the
 * notification service's filter, for the live badge).
 */
export function shownNotificationSql(n: string, recipient: string, self: string): Prisma.Sql {
  const note = Prisma.raw(`"${n}"`);
  const user = Prisma.raw(`"${recipient}"`);
  const actor = Prisma.sql`lower(${note}.actor_handle || '@' ||
    coalesce(${note}.actor_node_domain, ${self}::text))`;
  return Prisma.sql`${shownUserSql(Prisma.sql`${note}.actor_user_id`)}
      AND NOT EXISTS (SELECT 1 FROM user_mutes vm WHERE vm.user_id = ${user}.id
        AND (lower(vm.target) = ${actor}
          OR (vm.kind = 'node' AND lower(vm.target) = lower(${note}.actor_node_domain))))
      AND NOT EXISTS (SELECT 1 FROM user_blocks vb WHERE vb.user_id = ${user}.id
        AND lower(vb.blocked_address) = ${actor})
      AND NOT EXISTS (SELECT 1 FROM user_blocks vb WHERE vb.user_id = ${note}.actor_user_id
        AND lower(vb.blocked_address) =
          lower((SELECT vu.handle FROM users vu WHERE vu.id = ${user}.id) || '@' || ${self}::text))`;
}
