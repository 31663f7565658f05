import { formatActorUrl } from '@swarm/contract';
import { Prisma } from '@swarm/db';
import { batchedSql, sqlStatement, type BatchedSql } from './catalog.ts';
import { pushRowsSql } from './push.sql.ts';

// Remote actors, likes and reposts and the ledger of inbound interactions: the raw statements of
// interactions/ (the rest of their writes are Prisma queries next to their rules).

/** A remote person as an interaction body or a profile describes them. */
export interface RemoteActorFields {
  handle: string;
  domain: string;
  displayName: string;
  /** '' when there is none. */
  avatarUrl: string;
  bio: string;
}

/** How `upsertRemoteActor` (interactions/interaction-effects.ts) stores an actor. */
export interface RemoteActorUpsertOptions {
  now: Date;
  /** A did proved by a signature: pinned when none is, or when the pinned one is `replaces`. */
  didToPin?: string | undefined;
  /** The pinned did that failed and that `didToPin` replaces (a key rotation). */
  replaces?: string | null | undefined;
  /** The fields came from the actor's own node (`fetched_at`), not from an interaction body. */
  fetched?: boolean;
}

const EXAMPLE_TIME = new Date('2026-01-01T00:00:00.000Z');
const EXAMPLE_ACTOR: RemoteActorFields = {
  handle: 'someone',
  domain: 'example.test',
  displayName: '',
  avatarUrl: '',
  bio: '',
};

/** One actor as a row of the source `remoteActorsUpsertSql` reads. */
function remoteActorSourceSql(
  actor: RemoteActorFields,
  options: RemoteActorUpsertOptions,
): Prisma.Sql {
  const { now } = options;
  return Prisma.sql`
    SELECT ${formatActorUrl(actor)}::text AS actor_url, ${actor.handle}::text AS handle,
      ${actor.domain}::text AS node_domain, ${actor.displayName}::text AS display_name,
      ${actor.avatarUrl || null}::text AS avatar_url, ${actor.bio}::text AS bio,
      ${options.didToPin ?? null}::text AS did, ${options.replaces ?? null}::text AS replaces,
      ${options.fetched ? now : null}::timestamptz AS fetched_at, ${now}::timestamptz AS at`;
}

/**
 * The upsert of every actor in `source` (the name of a CTE with the columns of
 * `remoteActorSourceSql`, one row per actor_url), `RETURNING id, actor_url`: the statement behind
 * `upsertRemoteActor`, and a building block of batched effects. `replaces` is read per actor from
 * the source, for the did's compare-and-set.
 */
export function remoteActorsUpsertSql(source: string): Prisma.Sql {
  const from = Prisma.raw(source);
  // The did may be written when none is pinned, or over the one it replaces.
  const pinnable = Prisma.sql`(remote_actors.did IS NULL OR remote_actors.did =
    (SELECT replaces FROM ${from} WHERE ${from}.actor_url = EXCLUDED.actor_url))`;
  return Prisma.sql`
    INSERT INTO remote_actors (actor_url, handle, node_domain, display_name, avatar_url, bio,
      did, did_pinned_at, fetched_at, created_at, updated_at)
    SELECT actor_url, handle, node_domain, display_name, avatar_url, bio, did,
      CASE WHEN did IS NULL THEN NULL ELSE at END, fetched_at, at, at
    FROM ${from}
    ORDER BY actor_url
    ON CONFLICT (actor_url) DO UPDATE SET
      display_name = COALESCE(NULLIF(EXCLUDED.display_name, ''), remote_actors.display_name),
      avatar_url = COALESCE(EXCLUDED.avatar_url, remote_actors.avatar_url),
      bio = COALESCE(NULLIF(EXCLUDED.bio, ''), remote_actors.bio),
      did = CASE WHEN EXCLUDED.did IS NOT NULL AND ${pinnable} THEN EXCLUDED.did
                 ELSE remote_actors.did END,
      did_pinned_at = CASE WHEN EXCLUDED.did IS NOT NULL AND ${pinnable}
                           THEN EXCLUDED.did_pinned_at ELSE remote_actors.did_pinned_at END,
      fetched_at = COALESCE(EXCLUDED.fetched_at, remote_actors.fetched_at),
      updated_at = EXCLUDED.updated_at
    RETURNING id, actor_url`;
}

/** Insert-or-refresh one remote actor (`upsertRemoteActor`), `RETURNING id, actor_url`. */
export const upsertRemoteActorSql = sqlStatement(
  'interactions.upsertRemoteActor',
  [EXAMPLE_ACTOR, { now: EXAMPLE_TIME, didToPin: 'did:key:z', replaces: null, fetched: true }],
  (actor: RemoteActorFields, options: RemoteActorUpsertOptions) => Prisma.sql`
    WITH actor_source AS (${remoteActorSourceSql(actor, options)})
    ${remoteActorsUpsertSql('actor_source')}`,
);

/** The actor's pinned did, and whether the ledger holds the interaction: one round trip. */
export const interactionLookUpSql = batchedSql('interactions.lookUp', {
  columns: { node_domain: 'text', handle: 'text', interaction_id: 'text' },
  statement: (input) => Prisma.sql`
    SELECT input.ord, remote_actors.did,
      inbound_interactions.interaction_id IS NOT NULL AS seen
    FROM ${input}
    LEFT JOIN remote_actors ON remote_actors.node_domain = input.node_domain
      AND remote_actors.handle = input.handle
    LEFT JOIN inbound_interactions ON inbound_interactions.actor_node_domain = input.node_domain
      AND inbound_interactions.interaction_id = input.interaction_id`,
});

/** The interactions on a post written by one statement (`postInteractionSql`). */
export type PostInteraction = 'like' | 'repost';

/** Where each lands: its table (one row per actor and post) and the post's counter. */
const POST_INTERACTION_TABLES = {
  like: { table: 'likes', counter: 'likes_count' },
  repost: { table: 'reposts', counter: 'reposts_count' },
} as const satisfies Record<PostInteraction, { table: string; counter: string }>;

/**
 * A like or a repost landing on a post of this node (its own, or its copy of another node's):
 * the one statement for both a local user's action and another node's request, so the rules
 * live once. Per input row, on live posts only (not found: nothing written): another node's
 * interaction claims its idempotency key in the ledger and stores its actor (pinning a proven
 * did); the like or repost is added, one per actor and post (ON CONFLICT DO NOTHING: a repeat
 * adds nothing); only a new row moves the post's counter and notifies its local author, never
 * about their own action. An actor the post's author blocked is refused in the same statement
 * (`blocked`: nothing written, not even the ledger's claim, so a retry after an unblock goes
 * through). Returns `found`, `blocked` and `added` per row. Other nodes' requests arriving
 * together share one statement (batched-statement.ts): a concurrent duplicate waits on the
 * ledger's unique key, then claims nothing; within a batch an interaction id counts once
 * (`nth`). A local user's action runs it for one row inside its own transaction.
 */
function postInteractionBatch(kind: PostInteraction) {
  const { table, counter } = POST_INTERACTION_TABLES[kind];
  const repostColumns =
    kind === 'repost' ? Prisma.sql`, remote_repost_id, repost_post_id` : Prisma.empty;
  const repostValues =
    kind === 'repost' ? Prisma.sql`, fresh.remote_repost_id, fresh.repost_post_id` : Prisma.empty;
  // The same like again (a local action's interaction id may be null).
  const sameRow = Prisma.sql`fresh.post_id = added.post_id AND fresh.actor_url = added.actor_key
    AND fresh.interaction_id IS NOT DISTINCT FROM added.interaction_id`;
  return batchedSql(`interactions.${kind}`, {
    columns: {
      post_id: 'uuid',
      // A local user's actor key (`local:<id>`) or a remote actor's URL.
      actor_url: 'text',
      user_id: 'uuid',
      handle: 'text',
      node_domain: 'text',
      display_name: 'text',
      avatar_url: 'text',
      did: 'text',
      replaces: 'text',
      interaction_id: 'text',
      remote_repost_id: 'text',
      repost_post_id: 'uuid',
      at: 'timestamptz',
    },
    statement: (input) => Prisma.sql`
    WITH input AS (SELECT * FROM ${input}),
    checked AS (
      SELECT input.*, posts.author_id,
        -- Another node's actor whom the post's local author blocked (issue #15): refused, and
        -- nothing of theirs is written. The address is compared as isBlockedBy
        -- (views/blocks.ts) compares it: ILIKE, as Prisma's insensitive equality runs.
        (input.user_id IS NULL AND EXISTS (SELECT 1 FROM user_blocks
          WHERE user_blocks.user_id = posts.author_id
            AND user_blocks.blocked_address ILIKE input.handle || '@' || input.node_domain))
          AS blocked
      FROM input JOIN posts ON posts.id = input.post_id AND posts.deleted_at IS NULL
      -- Posts of suspended accounts (or sign-ups awaiting approval) count as unknown (issue #15).
      WHERE NOT EXISTS (SELECT 1 FROM users WHERE users.id = posts.author_id
        AND (users.suspended_at IS NOT NULL OR users.pending_approval))
    ), live AS (
      SELECT checked.*, row_number() OVER (
        PARTITION BY checked.node_domain, checked.interaction_id ORDER BY checked.ord) AS nth,
        row_number() OVER (PARTITION BY checked.post_id, checked.actor_url,
          checked.interaction_id ORDER BY checked.ord) AS copy
      FROM checked WHERE NOT checked.blocked
    ), claimed AS (
      -- The ledger holds other nodes' interactions; a local user's action has no entry.
      INSERT INTO inbound_interactions (actor_node_domain, interaction_id, kind, received_at)
      SELECT node_domain, interaction_id, ${kind}, at FROM live WHERE nth = 1 AND user_id IS NULL
      ORDER BY node_domain, interaction_id
      ON CONFLICT DO NOTHING
      RETURNING actor_node_domain, interaction_id
    ), fresh AS (
      SELECT live.* FROM live JOIN claimed ON claimed.actor_node_domain = live.node_domain
        AND claimed.interaction_id = live.interaction_id
      WHERE live.nth = 1 AND live.user_id IS NULL
      UNION ALL
      -- A local user's same action twice in one batch counts once.
      SELECT live.* FROM live WHERE live.user_id IS NOT NULL AND live.copy = 1
    ), actor_source AS (
      -- One row per remote actor: the latest, or the latest proving a did to pin.
      SELECT DISTINCT ON (actor_url) actor_url, handle, node_domain, display_name,
        avatar_url, ''::text AS bio, did, replaces, NULL::timestamptz AS fetched_at, at
      FROM fresh WHERE user_id IS NULL ORDER BY actor_url, did IS NOT NULL DESC, ord DESC
    ), actor AS (${remoteActorsUpsertSql('actor_source')}
    ), added AS (
      INSERT INTO ${Prisma.raw(table)} (post_id, actor_key, user_id, remote_actor_id,
        interaction_id, created_at${repostColumns})
      SELECT fresh.post_id, fresh.actor_url, fresh.user_id, actor.id, fresh.interaction_id,
        fresh.at${repostValues}
      FROM fresh LEFT JOIN actor ON actor.actor_url = fresh.actor_url
      ORDER BY fresh.post_id, fresh.actor_url
      ON CONFLICT DO NOTHING
      RETURNING post_id, actor_key, interaction_id
    ), counted AS (
      UPDATE posts SET ${Prisma.raw(`${counter} = ${counter}`)} + per_post.added,
        updated_at = per_post.at
      FROM (SELECT fresh.post_id, count(*) AS added, max(fresh.at) AS at
            FROM added JOIN fresh ON ${sameRow}
            GROUP BY fresh.post_id) AS per_post
      WHERE posts.id = per_post.post_id
    ), notified AS (
      INSERT INTO notifications (recipient_id, type, actor_key, actor_user_id,
        actor_remote_actor_id, actor_handle, actor_display_name, actor_avatar_url,
        actor_node_domain, post_id, interaction_id, created_at)
      SELECT fresh.author_id, ${kind}::notification_type, fresh.actor_url, fresh.user_id,
        actor.id, fresh.handle, fresh.display_name, fresh.avatar_url, fresh.node_domain,
        fresh.post_id, fresh.interaction_id, fresh.at
      FROM added
      JOIN fresh ON ${sameRow}
      LEFT JOIN actor ON actor.actor_url = fresh.actor_url
      WHERE fresh.author_id IS NOT NULL AND fresh.author_id IS DISTINCT FROM fresh.user_id
      RETURNING id, recipient_id
    ), pushed AS (
      -- Web Push: queued with the notification, one row per subscription (push.sql.ts).
      ${pushRowsSql(Prisma.sql`notified.id`, Prisma.sql`notified.recipient_id`, Prisma.sql`notified,`)}
    )
    SELECT input.ord, checked.ord IS NOT NULL AS found, checked.blocked IS TRUE AS blocked,
      EXISTS (SELECT 1 FROM added JOIN fresh ON ${sameRow} WHERE fresh.ord = input.ord) AS added
    FROM input LEFT JOIN checked ON checked.ord = input.ord`,
  });
}

export const postInteractionSql: Record<PostInteraction, BatchedSql> = {
  like: postInteractionBatch('like'),
  repost: postInteractionBatch('repost'),
};
