import {
  err,
  formatActorUrl,
  formatSwarmPostId,
  isAcceptableInteractionTime,
  ok,
  parseDomain,
  parseHandleAddress,
  verifyUserAction,
  type ErrorCode,
  type FollowBody,
  type LikeBody,
  type MentionBody,
  type ReplyBody,
  type RepostBody,
  type Result,
  type UnfollowBody,
  type UnlikeBody,
  type UnrepostBody,
  type UserAction,
  uuidSchema,
} from '@swarm/contract';
import { Prisma, localActorKey, type Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { PeerClient } from '../peers/index.ts';
import { createBatchedStatement } from '../security/batched-statement.ts';
import { importDidKey } from '../security/key-cache.ts';
import { createUserDids } from '../security/user-dids.ts';
import { excerpt, guessMimeType } from './inbound-helpers.ts';
import { REPLY_AUTHOR_SHOWN } from '../content/content.service.ts';
import { ACCOUNT_FLAGS_SELECT, isHiddenAccount } from '../moderation/accounts.ts';
import {
  addFollow,
  notify,
  remoteActorsUpsertSql,
  remoteEffectActor,
  removeFollow,
  removeLike,
  removeRepost,
  upsertRemoteActor,
  type RemoteActorFields,
  type RemoteActorUpsertOptions,
  type Tx,
} from './interaction-effects.ts';

/**
 * Receiver side of the interaction endpoints (spec "Receiver effects", DESIGN §3 "User keys and
 * client-side signing", "Idempotency"). Every call gets the source domain the node signature
 * proved, the zod-parsed body and the body as received (for the user signature, which covers
 * the raw JSON, unknown members included).
 *
 * Order of checks, all before any write: the actor belongs to the sending node (403), the
 * interaction time is acceptable (401), the user signature is valid (401). Then one transaction
 * claims the idempotency key and applies the effects; a 404 rolls the claim back. Likes and
 * reposts, the bulk of the traffic, do both in a single statement (`applyOnPost`), shared by the
 * requests arriving together (security/batched-statement.ts), as is `admit`'s lookup.
 */

/** The refusals an interaction can meet (401, 403, 404); bad bodies are refused at the edge. */
export type InboundInteractionErrorCode = Extract<
  ErrorCode,
  'INVALID_SIGNATURE' | 'FORBIDDEN' | 'POST_NOT_FOUND' | 'USER_NOT_FOUND'
>;

export interface InboundInteractionError {
  code: InboundInteractionErrorCode;
  message: string;
}

export type InteractionOutcome = Result<{ message: string }, InboundInteractionError>;
export type ReplyOutcome = Result<{ replyId: string }, InboundInteractionError>;

/**
 * How the request was authenticated. `origin`: a peer of the origin profile signed the body with
 * its node key (docs/protocol.md "Peers of the origin profile"); its `signature` member is that
 * node signature, and there is no user signature to check: the node speaks for its users.
 */
export interface InboundOptions {
  profile?: 'swarm' | 'origin';
}

export interface InboundInteractionService {
  like(
    sourceDomain: string,
    body: LikeBody,
    rawBody: unknown,
    options?: InboundOptions,
  ): Promise<InteractionOutcome>;
  unlike(
    sourceDomain: string,
    body: UnlikeBody,
    rawBody: unknown,
    options?: InboundOptions,
  ): Promise<InteractionOutcome>;
  repost(
    sourceDomain: string,
    body: RepostBody,
    rawBody: unknown,
    options?: InboundOptions,
  ): Promise<InteractionOutcome>;
  /** The origin's `unrepost` (not in the spec): undoes exactly that actor's repost. */
  unrepost(
    sourceDomain: string,
    body: UnrepostBody,
    rawBody: unknown,
    options?: InboundOptions,
  ): Promise<InteractionOutcome>;
  follow(
    sourceDomain: string,
    body: FollowBody,
    rawBody: unknown,
    options?: InboundOptions,
  ): Promise<InteractionOutcome>;
  unfollow(
    sourceDomain: string,
    body: UnfollowBody,
    rawBody: unknown,
    options?: InboundOptions,
  ): Promise<InteractionOutcome>;
  mention(
    sourceDomain: string,
    body: MentionBody,
    rawBody: unknown,
    options?: InboundOptions,
  ): Promise<InteractionOutcome>;
  reply(
    sourceDomain: string,
    body: ReplyBody,
    rawBody: unknown,
    options?: InboundOptions,
  ): Promise<ReplyOutcome>;
}

export interface InboundInteractionDeps {
  db: Db;
  peers: Pick<PeerClient, 'getJson'>;
  clock: Clock;
  logger: Logger;
  config: Pick<NodeConfig, 'domain'>;
}

/** The short texts of the `{ success: true, message }` answers (the same for a repeat). */
export const INTERACTION_MESSAGES = {
  like: 'Like received',
  unlike: 'Unlike received',
  repost: 'Repost received',
  unrepost: 'Unrepost received',
  follow: 'Follow received',
  unfollow: 'Unfollow received',
  mention: 'Mention received',
} as const;

/** Signature required by the spec's shapes; optional (verified when present) elsewhere. */
const SIGNATURE_REQUIRED: ReadonlySet<UserAction> = new Set(['like', 'unlike', 'repost']);

/** Queued transactions wait their turn (PGlite runs one at a time) rather than fail. */
const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 } as const;

/** The acting remote user, as the body describes them. */
type Actor = RemoteActorFields;

/** A did proved by the request's signature, to store: a first pin, or one replacing `replaces`. */
interface DidPin {
  did: string;
  replaces: string | null;
}

/** What `admit` checks: who acts, through which node, when, and the body as received. */
interface AdmitInput {
  action: UserAction;
  sourceDomain: string;
  actor: Actor;
  timestamp: string;
  rawBody: unknown;
  /** The ledger key; the reply has none (its apId plays that part). */
  interactionId?: string;
  /** `origin`: node-signed body, no user signature (its `signature` is the node's). */
  profile?: 'swarm' | 'origin' | undefined;
}

interface Admitted {
  didToPin: DidPin | undefined;
  seen: boolean;
}

/** The interactions on a post that `applyOnPost` writes in one statement. */
type PostInteraction = 'like' | 'repost';

/** Where each lands: its table (one row per actor and post) and the post's counter. */
const POST_INTERACTION_TABLES = {
  like: { table: 'likes', counter: 'likes_count' },
  repost: { table: 'reposts', counter: 'reposts_count' },
} as const satisfies Record<PostInteraction, { table: string; counter: string }>;

/** What `applyOnPost` writes. */
interface PostEffects {
  postId: string;
  actor: RemoteActorFields;
  interactionId: string;
  /** A did proved by the request's signature, to pin. */
  pin?: DidPin | undefined;
  /** Reposts: the repost's id on the actor's node. */
  remoteRepostId?: string | undefined;
}

/** Thrown inside a transaction to roll it back; turned into a failure value right outside. */
class Refusal extends Error {
  constructor(readonly failure: InboundInteractionError) {
    super(failure.message);
  }
}

/** 403 for someone the local user blocked: the same words whatever they tried. */
const blockedRefusal = (): InboundInteractionError => ({
  code: 'FORBIDDEN',
  message: 'This user of this node does not accept interactions from you.',
});

const fail = (code: InboundInteractionErrorCode, message: string) =>
  err<InboundInteractionError>({ code, message });

export function createInboundInteractionService(
  deps: InboundInteractionDeps,
): InboundInteractionService {
  const { db, peers, clock, logger, config } = deps;
  const prisma = db.prisma;

  /** The did an actor's node publishes (re-asked at most once per actor per 5 min). */
  const userDids = createUserDids({ peers, clock });

  /** The actor's pinned did, and whether the ledger holds the interaction: one round trip. */
  const lookUp = createBatchedStatement<
    { actor: Actor; interactionId: string | undefined },
    { did: string | null; seen: boolean }
  >({
    db,
    columns: { node_domain: 'text', handle: 'text', interaction_id: 'text' },
    row: ({ actor, interactionId }) => ({
      node_domain: actor.domain,
      handle: actor.handle,
      interaction_id: interactionId ?? null,
    }),
    statement: (input) => Prisma.sql`
      SELECT input.ord, remote_actors.did,
        inbound_interactions.interaction_id IS NOT NULL AS seen
      FROM ${input}
      LEFT JOIN remote_actors ON remote_actors.node_domain = input.node_domain
        AND remote_actors.handle = input.handle
      LEFT JOIN inbound_interactions ON inbound_interactions.actor_node_domain = input.node_domain
        AND inbound_interactions.interaction_id = input.interaction_id`,
    result: (row) => ({ did: (row.did as string | null) ?? null, seen: row.seen === true }),
  });

  /** True when `did` names a key that verifies the user signature. */
  async function signedBy(did: string, action: UserAction, raw: unknown): Promise<boolean> {
    const key = await importDidKey(did);
    if (!key.ok) return false;
    return verifyUserAction({
      publicKey: key.value,
      action,
      targetDomain: config.domain,
      body: raw,
    });
  }

  /**
   * Everything that can refuse an interaction before a write. Returns the did to pin when a
   * valid signature proved one, and `seen` when the interaction is already in the ledger (a
   * repeat: answered without a transaction; false only means "claim it to know").
   */
  async function admit(input: AdmitInput): Promise<Result<Admitted, InboundInteractionError>> {
    const { action, actor } = input;
    const source = parseDomain(input.sourceDomain);
    if (!source.ok || source.value !== actor.domain) {
      return fail(
        'FORBIDDEN',
        `A node may only speak for its own users: ${input.sourceDomain} sent an interaction by a user of ${actor.domain}.`,
      );
    }
    if (!isAcceptableInteractionTime(input.timestamp, clock.now())) {
      return fail(
        'INVALID_SIGNATURE',
        'The interaction timestamp is stale (over 7 days old) or in the future (over 5 minutes ahead).',
      );
    }
    // The origin profile has no user signatures: its node's body signature (verified at the edge)
    // is all there is. Dedup by interactionId still applies (the claim in the transaction).
    if (input.profile === 'origin') return ok({ didToPin: undefined, seen: false });
    const raw = input.rawBody;
    const signature =
      typeof raw === 'object' && raw !== null && !Array.isArray(raw)
        ? (raw as Record<string, unknown>).signature
        : undefined;
    if (signature === undefined || signature === null) {
      if (SIGNATURE_REQUIRED.has(action)) {
        return fail('INVALID_SIGNATURE', `A ${action} must carry the acting user's signature.`);
      }
      return ok({ didToPin: undefined, seen: false });
    }
    const who = `${actor.handle}@${actor.domain}`;
    const { did: pinned, seen } = await lookUp({ actor, interactionId: input.interactionId });
    if (pinned && (await signedBy(pinned, action, raw))) return ok({ didToPin: undefined, seen });

    // No did pinned yet (it is pinned on first sight, once a signature proves it), or the pinned
    // one fails: the user may have rotated their key, so ask the actor's node (rate-limited).
    const current = pinned ? await userDids.recheck(actor) : await userDids.fetch(actor);
    if (!current.ok) {
      logger.info({ actor: who, reason: current.reason }, 'user key unresolved');
      if (!pinned) {
        return fail(
          'INVALID_SIGNATURE',
          `The user signature cannot be checked: ${current.reason}.`,
        );
      }
    } else if (current.value !== pinned && (await signedBy(current.value, action, raw))) {
      if (pinned) logger.info({ actor: who }, 'user did re-pinned: the user rotated their key');
      return ok({ didToPin: { did: current.value, replaces: pinned }, seen });
    }
    return fail('INVALID_SIGNATURE', `The user signature does not match ${who}'s key.`);
  }

  async function inTransaction<T>(
    work: (tx: Tx) => Promise<T>,
  ): Promise<Result<T, InboundInteractionError>> {
    try {
      return ok(await prisma.$transaction(work, TX_OPTIONS));
    } catch (error) {
      if (error instanceof Refusal) return err(error.failure);
      throw error;
    }
  }

  /**
   * The idempotency ledger, inside the effects' transaction: a concurrent duplicate waits on the
   * unique key and then sees the row (ON CONFLICT DO NOTHING), so effects apply at most once.
   */
  async function claim(tx: Tx, domain: string, interactionId: string, kind: string) {
    const { count } = await tx.inboundInteraction.createMany({
      data: [{ actorNodeDomain: domain, interactionId, kind, receivedAt: clock.now() }],
      skipDuplicates: true,
    });
    return count === 1;
  }

  /** Insert-or-refresh the actor's cached profile; pins a proven did. */
  async function upsertActor(tx: Tx, actor: Actor, pin: DidPin | undefined) {
    const stored = await upsertRemoteActor(tx, actor, pinOptions(pin));
    return remoteEffectActor(actor, stored);
  }

  function pinOptions(pin: DidPin | undefined): RemoteActorUpsertOptions {
    return { now: clock.now(), didToPin: pin?.did, replaces: pin?.replaces };
  }

  /**
   * Stores a proven did: only over the did that was checked (none, or the one that failed), so
   * concurrent requests cannot pin an older answer over a newer one.
   */
  async function pinDid(tx: Tx, actor: Actor, pin: DidPin | undefined) {
    if (!pin) return;
    await tx.remoteActor.updateMany({
      where: { actorUrl: formatActorUrl(actor), did: pin.replaces },
      data: { did: pin.did, didPinnedAt: clock.now() },
    });
  }

  function postNotFound(postId: string): InboundInteractionError {
    return { code: 'POST_NOT_FOUND', message: `No post ${postId} on this node.` };
  }

  async function findPost(tx: Tx, postId: string) {
    const post = await tx.post.findFirst({
      where: { id: postId, deletedAt: null, ...REPLY_AUTHOR_SHOWN },
      select: { id: true, authorId: true },
    });
    if (!post) throw new Refusal(postNotFound(postId));
    return post;
  }

  /**
   * Refused with 403 when the local user `ownerId` blocked the actor (issue #15): their follows,
   * replies, mentions, likes and reposts reach them no more. Inside the transaction: the claim
   * rolls back, so a later unblock lets a retry through.
   */
  async function refuseIfBlocked(tx: Tx, ownerId: string | null, actor: Actor) {
    if (!ownerId) return;
    const blocked = await tx.userBlock.count({
      where: {
        userId: ownerId,
        blockedAddress: { equals: `${actor.handle}@${actor.domain}`, mode: 'insensitive' },
      },
    });
    if (blocked > 0) throw new Refusal(blockedRefusal());
  }

  /** The same check outside a transaction (likes and reposts: one statement, see below). */
  async function blockedOnPost(postId: string, actor: Actor): Promise<boolean> {
    if (!uuidSchema.safeParse(postId).success) return false;
    const rows = await prisma.$queryRaw<{ blocked: boolean }[]>`
      SELECT EXISTS (
        SELECT 1 FROM posts JOIN user_blocks ON user_blocks.user_id = posts.author_id
        WHERE posts.id = ${postId}::uuid
          AND lower(user_blocks.blocked_address) = lower(${`${actor.handle}@${actor.domain}`})
      ) AS blocked`;
    return rows[0]?.blocked === true;
  }

  /** A like or a repost: the checks, then `applyOnPost` unless the ledger knows it already. */
  async function receiveOnPost(
    input: AdmitInput & Omit<PostEffects, 'pin'> & { action: PostInteraction },
  ): Promise<InteractionOutcome> {
    const message = INTERACTION_MESSAGES[input.action];
    const admitted = await admit(input);
    if (!admitted.ok) return admitted;
    if (admitted.value.seen) return done(message);
    if (await blockedOnPost(input.postId, input.actor)) return err(blockedRefusal());
    const found = await applyOnPost[input.action]({ ...input, pin: admitted.value.didToPin });
    return found ? done(message) : err(postNotFound(input.postId));
  }

  /**
   * A like or a repost, the busiest writes a node receives, as one statement on the driver for
   * every request of a batch: atomic, no interactive transaction. Its data-modifying CTEs claim
   * the idempotency keys, but only on live posts (a 404 writes nothing); store the actors
   * (pinning proven dids); add each like or repost (one per actor and post); move the counters
   * and notify the authors only for rows that are new. Resolves false for a post not found. A
   * concurrent duplicate waits on the ledger's unique key, then claims nothing; within a batch an
   * interaction id counts once (`nth`), and ON CONFLICT DO NOTHING keeps one like per actor.
   */
  function postInteractionStatement(kind: PostInteraction) {
    const { table, counter } = POST_INTERACTION_TABLES[kind];
    const repostColumn = kind === 'repost' ? Prisma.sql`, remote_repost_id` : Prisma.empty;
    return createBatchedStatement<PostEffects, boolean>({
      db,
      columns: {
        post_id: 'uuid',
        actor_url: 'text',
        handle: 'text',
        node_domain: 'text',
        display_name: 'text',
        avatar_url: 'text',
        did: 'text',
        replaces: 'text',
        interaction_id: 'text',
        remote_repost_id: 'text',
        at: 'timestamptz',
      },
      row: ({ postId, actor, interactionId, pin, remoteRepostId }) => ({
        post_id: postId,
        actor_url: formatActorUrl(actor),
        handle: actor.handle,
        node_domain: actor.domain,
        display_name: actor.displayName,
        avatar_url: actor.avatarUrl || null,
        did: pin?.did ?? null,
        replaces: pin?.replaces ?? null,
        interaction_id: interactionId,
        remote_repost_id: remoteRepostId ?? null,
        at: clock.now().toISOString(),
      }),
      statement: (input) => Prisma.sql`
        WITH input AS (SELECT * FROM ${input}),
        live AS (
          SELECT input.*, posts.author_id, row_number() OVER (
            PARTITION BY input.node_domain, input.interaction_id ORDER BY input.ord) AS nth
          FROM input JOIN posts ON posts.id = input.post_id AND posts.deleted_at IS NULL
          WHERE NOT EXISTS (SELECT 1 FROM users WHERE users.id = posts.author_id
            AND (users.suspended_at IS NOT NULL OR users.pending_approval))
        ), claimed AS (
          INSERT INTO inbound_interactions (actor_node_domain, interaction_id, kind, received_at)
          SELECT node_domain, interaction_id, ${kind}, at FROM live WHERE nth = 1
          ORDER BY node_domain, interaction_id
          ON CONFLICT DO NOTHING
          RETURNING actor_node_domain, interaction_id
        ), fresh AS (
          SELECT live.* FROM live JOIN claimed ON claimed.actor_node_domain = live.node_domain
            AND claimed.interaction_id = live.interaction_id
          WHERE live.nth = 1
        ), actor_source AS (
          -- One row per actor: the latest, or the latest proving a did to pin.
          SELECT DISTINCT ON (actor_url) actor_url, handle, node_domain, display_name,
            avatar_url, ''::text AS bio, did, replaces, NULL::timestamptz AS fetched_at, at
          FROM fresh ORDER BY actor_url, did IS NOT NULL DESC, ord DESC
        ), actor AS (${remoteActorsUpsertSql('actor_source')}
        ), added AS (
          INSERT INTO ${Prisma.raw(table)} (post_id, actor_key, remote_actor_id, interaction_id,
            created_at${repostColumn})
          SELECT fresh.post_id, fresh.actor_url, actor.id, fresh.interaction_id, fresh.at
            ${repostColumn}
          FROM fresh JOIN actor ON actor.actor_url = fresh.actor_url
          ORDER BY fresh.post_id, fresh.actor_url
          ON CONFLICT DO NOTHING
          RETURNING post_id, actor_key, interaction_id
        ), counted AS (
          UPDATE posts SET ${Prisma.raw(`${counter} = ${counter}`)} + per_post.added,
            updated_at = per_post.at
          FROM (SELECT fresh.post_id, count(*) AS added, max(fresh.at) AS at
                FROM added JOIN fresh ON fresh.post_id = added.post_id
                  AND fresh.actor_url = added.actor_key
                  AND fresh.interaction_id = added.interaction_id
                GROUP BY fresh.post_id) AS per_post
          WHERE posts.id = per_post.post_id
        ), notified AS (
          INSERT INTO notifications (recipient_id, type, actor_key, actor_remote_actor_id,
            actor_handle, actor_display_name, actor_avatar_url, actor_node_domain, post_id,
            interaction_id, created_at)
          SELECT fresh.author_id, ${kind}::notification_type, fresh.actor_url, actor.id,
            fresh.handle, fresh.display_name, fresh.avatar_url, fresh.node_domain, fresh.post_id,
            fresh.interaction_id, fresh.at
          FROM added
          JOIN fresh ON fresh.post_id = added.post_id AND fresh.actor_url = added.actor_key
            AND fresh.interaction_id = added.interaction_id
          JOIN actor ON actor.actor_url = fresh.actor_url
          WHERE fresh.author_id IS NOT NULL
        )
        SELECT input.ord, live.ord IS NOT NULL AS found
        FROM input LEFT JOIN live ON live.ord = input.ord`,
      result: (row) => row.found === true,
    });
  }

  const applyOnPost: Record<PostInteraction, (effects: PostEffects) => Promise<boolean>> = {
    like: postInteractionStatement('like'),
    repost: postInteractionStatement('repost'),
  };

  async function findUser(tx: Tx, handle: string) {
    // Local handles are stored lower-case; peers may send any case.
    const user = await tx.user.findUnique({
      where: { handle: handle.toLowerCase() },
      select: { id: true, ...ACCOUNT_FLAGS_SELECT },
    });
    if (!user || isHiddenAccount(user))
      throw new Refusal({ code: 'USER_NOT_FOUND', message: `No user ${handle} on this node.` });
    return user;
  }

  const done = (message: string): InteractionOutcome => ok({ message });

  return {
    async like(sourceDomain, body, rawBody, options = {}) {
      const { like } = body;
      return receiveOnPost({
        action: 'like',
        sourceDomain,
        actor: actorOf(like.actorHandle, like.actorNodeDomain, like),
        timestamp: like.timestamp,
        rawBody,
        profile: options.profile,
        interactionId: like.interactionId,
        postId: body.postId,
      });
    },

    async unlike(sourceDomain, body, rawBody, options = {}) {
      const { unlike } = body;
      const actor = actorOf(unlike.actorHandle, unlike.actorNodeDomain, {});
      const admitted = await admit({
        action: 'unlike',
        sourceDomain,
        actor,
        timestamp: unlike.timestamp,
        rawBody,
        profile: options.profile,
        interactionId: unlike.interactionId,
      });
      if (!admitted.ok) return admitted;
      if (admitted.value.seen) return done(INTERACTION_MESSAGES.unlike);
      const outcome = await inTransaction(async (tx) => {
        if (!(await claim(tx, actor.domain, unlike.interactionId, 'unlike'))) return;
        const post = await findPost(tx, body.postId);
        await pinDid(tx, actor, admitted.value.didToPin);
        await removeLike(tx, { postId: post.id, actorKey: formatActorUrl(actor) });
      });
      return outcome.ok ? done(INTERACTION_MESSAGES.unlike) : outcome;
    },

    async repost(sourceDomain, body, rawBody, options = {}) {
      const { repost } = body;
      return receiveOnPost({
        action: 'repost',
        sourceDomain,
        actor: actorOf(repost.actorHandle, repost.actorNodeDomain, repost),
        timestamp: repost.timestamp,
        rawBody,
        profile: options.profile,
        interactionId: repost.interactionId,
        postId: body.postId,
        remoteRepostId: repost.repostId,
      });
    },

    async unrepost(sourceDomain, body, rawBody, options = {}) {
      const { unrepost } = body;
      const actor = actorOf(unrepost.actorHandle, unrepost.actorNodeDomain, {});
      const admitted = await admit({
        action: 'unrepost',
        sourceDomain,
        actor,
        timestamp: unrepost.timestamp,
        rawBody,
        profile: options.profile,
        interactionId: unrepost.interactionId,
      });
      if (!admitted.ok) return admitted;
      if (admitted.value.seen) return done(INTERACTION_MESSAGES.unrepost);
      const outcome = await inTransaction(async (tx) => {
        if (!(await claim(tx, actor.domain, unrepost.interactionId, 'unrepost'))) return;
        const post = await findPost(tx, body.postId);
        await pinDid(tx, actor, admitted.value.didToPin);
        await removeRepost(tx, { postId: post.id, actorKey: formatActorUrl(actor) });
      });
      return outcome.ok ? done(INTERACTION_MESSAGES.unrepost) : outcome;
    },

    async follow(sourceDomain, body, rawBody, options = {}) {
      const { follow } = body;
      const actor = actorOf(follow.followerHandle, follow.followerNodeDomain, {
        actorDisplayName: follow.followerDisplayName,
        actorAvatarUrl: follow.followerAvatarUrl,
        bio: follow.followerBio,
      });
      const admitted = await admit({
        action: 'follow',
        sourceDomain,
        actor,
        timestamp: follow.timestamp,
        rawBody,
        profile: options.profile,
        interactionId: follow.interactionId,
      });
      if (!admitted.ok) return admitted;
      if (admitted.value.seen) return done(INTERACTION_MESSAGES.follow);
      const outcome = await inTransaction(async (tx) => {
        if (!(await claim(tx, actor.domain, follow.interactionId, 'follow'))) return;
        const user = await findUser(tx, body.targetHandle);
        await refuseIfBlocked(tx, user.id, actor);
        const follower = await upsertActor(tx, actor, admitted.value.didToPin);
        const at = clock.now();
        const { interactionId } = follow;
        const added = await addFollow(tx, {
          follower,
          followee: { kind: 'local', userId: user.id },
          state: 'accepted',
          interactionId,
          at,
        });
        if (!added) return;
        await notify(tx, {
          recipientId: user.id,
          type: 'follow',
          actor: follower,
          at,
          interactionId,
        });
      });
      return outcome.ok ? done(INTERACTION_MESSAGES.follow) : outcome;
    },

    async unfollow(sourceDomain, body, rawBody, options = {}) {
      const { unfollow } = body;
      const actor = actorOf(unfollow.followerHandle, unfollow.followerNodeDomain, {});
      const admitted = await admit({
        action: 'unfollow',
        sourceDomain,
        actor,
        timestamp: unfollow.timestamp,
        rawBody,
        profile: options.profile,
        interactionId: unfollow.interactionId,
      });
      if (!admitted.ok) return admitted;
      if (admitted.value.seen) return done(INTERACTION_MESSAGES.unfollow);
      const outcome = await inTransaction(async (tx) => {
        if (!(await claim(tx, actor.domain, unfollow.interactionId, 'unfollow'))) return;
        const user = await findUser(tx, body.targetHandle);
        await pinDid(tx, actor, admitted.value.didToPin);
        await removeFollow(tx, {
          followerKey: formatActorUrl(actor),
          followeeKey: localActorKey(user.id),
        });
      });
      return outcome.ok ? done(INTERACTION_MESSAGES.unfollow) : outcome;
    },

    async mention(sourceDomain, body, rawBody, options = {}) {
      const { mention } = body;
      const actor = actorOf(mention.actorHandle, mention.actorNodeDomain, mention);
      const admitted = await admit({
        action: 'mention',
        sourceDomain,
        actor,
        timestamp: mention.timestamp,
        rawBody,
        profile: options.profile,
        interactionId: mention.interactionId,
      });
      if (!admitted.ok) return admitted;
      if (admitted.value.seen) return done(INTERACTION_MESSAGES.mention);
      const outcome = await inTransaction(async (tx) => {
        if (!(await claim(tx, actor.domain, mention.interactionId, 'mention'))) return;
        const user = await findUser(tx, body.mentionedHandle);
        await refuseIfBlocked(tx, user.id, actor);
        const mentioner = await upsertActor(tx, actor, admitted.value.didToPin);
        await notify(tx, {
          recipientId: user.id,
          type: 'mention',
          actor: mentioner,
          at: clock.now(),
          postApId: formatSwarmPostId({ domain: actor.domain, postId: mention.postId }),
          content: excerpt(mention.postContent),
          interactionId: mention.interactionId,
        });
      });
      return outcome.ok ? done(INTERACTION_MESSAGES.mention) : outcome;
    },

    async reply(sourceDomain, body, rawBody, options = {}) {
      const { reply } = body;
      // The author may be written `handle@domain`; the domain part must be the reply's node.
      let handle = reply.author.handle;
      if (handle.includes('@')) {
        const address = parseHandleAddress(handle);
        if (!address.ok || address.value.domain !== reply.nodeDomain) {
          return fail(
            'FORBIDDEN',
            `The reply's author ${handle} is not a user of ${reply.nodeDomain}.`,
          );
        }
        handle = address.value.handle;
      }
      const actor = actorOf(handle, reply.nodeDomain, {
        actorDisplayName: reply.author.displayName,
        actorAvatarUrl: reply.author.avatarUrl,
      });
      const admitted = await admit({
        action: 'reply',
        sourceDomain,
        actor,
        timestamp: reply.createdAt,
        rawBody,
        profile: options.profile,
      });
      if (!admitted.ok) return admitted;
      // A reply is identified by its id on its node: a repeat answers the same replyId.
      const apId = formatSwarmPostId({ domain: reply.nodeDomain, postId: reply.id });
      const outcome = await inTransaction(async (tx) => {
        const existing = await tx.post.findUnique({ where: { apId }, select: { id: true } });
        if (existing) return existing.id;
        const parent = await findPost(tx, body.postId);
        await refuseIfBlocked(tx, parent.authorId, actor);
        const author = await upsertActor(tx, actor, admitted.value.didToPin);
        if (author.kind !== 'remote') throw new Error('a reply author is a remote actor');
        const created = await tx.post.createManyAndReturn({
          data: [
            {
              apId,
              remoteAuthorId: author.remoteActorId,
              content: reply.content,
              replyToId: parent.id,
              createdAt: new Date(reply.createdAt),
            },
          ],
          skipDuplicates: true, // a concurrent copy of the same reply won the race
          select: { id: true },
        });
        const replyId = created[0]?.id;
        if (!replyId) {
          const winner = await tx.post.findUniqueOrThrow({ where: { apId }, select: { id: true } });
          return winner.id;
        }
        if (reply.mediaUrls.length > 0) {
          await tx.mediaItem.createMany({
            data: reply.mediaUrls.map((url, position) => ({
              postId: replyId,
              url,
              mimeType: guessMimeType(url),
              position,
            })),
          });
        }
        await tx.post.update({
          where: { id: parent.id },
          data: { repliesCount: { increment: 1 } },
        });
        if (parent.authorId) {
          await notify(tx, {
            recipientId: parent.authorId,
            type: 'reply',
            actor: author,
            at: clock.now(),
            postId: replyId,
            content: excerpt(reply.content),
          });
        }
        return replyId;
      });
      return outcome.ok ? ok({ replyId: outcome.value }) : outcome;
    },
  };
}

function actorOf(
  handle: string,
  domain: string,
  fields: { actorDisplayName?: string; actorAvatarUrl?: string; bio?: string },
): Actor {
  return {
    handle,
    domain,
    displayName: fields.actorDisplayName ?? '',
    avatarUrl: fields.actorAvatarUrl ?? '',
    bio: fields.bio ?? '',
  };
}
