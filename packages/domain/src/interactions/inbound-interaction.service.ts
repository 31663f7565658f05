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
  type UserAction,
} from '@swarm/contract';
import { Prisma, localActorKey, type Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { PeerClient } from '../peers/index.ts';
import { driverQuery } from '../security/driver-query.ts';
import { importDidKey } from '../security/key-cache.ts';
import { createUserDids } from '../security/user-dids.ts';
import { excerpt, guessMimeType } from './inbound-helpers.ts';
import {
  addFollow,
  notify,
  remoteActorUpsertSql,
  remoteEffectActor,
  removeFollow,
  removeLike,
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
 * reposts, the bulk of the traffic, do both in a single statement (`applyOnPost`).
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

export interface InboundInteractionService {
  like(sourceDomain: string, body: LikeBody, rawBody: unknown): Promise<InteractionOutcome>;
  unlike(sourceDomain: string, body: UnlikeBody, rawBody: unknown): Promise<InteractionOutcome>;
  repost(sourceDomain: string, body: RepostBody, rawBody: unknown): Promise<InteractionOutcome>;
  follow(sourceDomain: string, body: FollowBody, rawBody: unknown): Promise<InteractionOutcome>;
  unfollow(sourceDomain: string, body: UnfollowBody, rawBody: unknown): Promise<InteractionOutcome>;
  mention(sourceDomain: string, body: MentionBody, rawBody: unknown): Promise<InteractionOutcome>;
  reply(sourceDomain: string, body: ReplyBody, rawBody: unknown): Promise<ReplyOutcome>;
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
  kind: PostInteraction;
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

const fail = (code: InboundInteractionErrorCode, message: string) =>
  err<InboundInteractionError>({ code, message });

export function createInboundInteractionService(
  deps: InboundInteractionDeps,
): InboundInteractionService {
  const { db, peers, clock, logger, config } = deps;
  const prisma = db.prisma;

  /** The did an actor's node publishes (re-asked at most once per actor per 5 min). */
  const userDids = createUserDids({ peers, clock });

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
    // One round trip for the pinned did and the ledger.
    const [known] = await driverQuery<{ did: string | null; seen: boolean }>(
      db,
      Prisma.sql`
        SELECT
          (SELECT did FROM remote_actors
            WHERE node_domain = ${actor.domain} AND handle = ${actor.handle}) AS did,
          EXISTS (SELECT 1 FROM inbound_interactions
            WHERE actor_node_domain = ${actor.domain}
              AND interaction_id = ${input.interactionId ?? null}::text) AS seen`,
    );
    const pinned = known?.did ?? null;
    const seen = known?.seen === true;
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
      where: { id: postId, deletedAt: null },
      select: { id: true, authorId: true },
    });
    if (!post) throw new Refusal(postNotFound(postId));
    return post;
  }

  /** A like or a repost: the checks, then `applyOnPost` unless the ledger knows it already. */
  async function receiveOnPost(
    input: AdmitInput & Omit<PostEffects, 'kind' | 'pin'> & { action: PostInteraction },
  ): Promise<InteractionOutcome> {
    const message = INTERACTION_MESSAGES[input.action];
    const admitted = await admit(input);
    if (!admitted.ok) return admitted;
    if (admitted.value.seen) return done(message);
    const applied = await applyOnPost({
      ...input,
      kind: input.action,
      pin: admitted.value.didToPin,
    });
    return applied.ok ? done(message) : applied;
  }

  /**
   * A like or a repost, the busiest writes a node receives, as one statement on the driver
   * (driver-query.ts): one round trip, atomic on its own, no interactive transaction. Its
   * data-modifying CTEs claim the idempotency key, but only on a live post (a 404 writes
   * nothing); store the actor (pinning a proven did); add the like or repost (one per actor and
   * post); move the counter and notify the author only when that row is new. A concurrent
   * duplicate waits on the ledger's unique key, then claims nothing and changes nothing.
   */
  async function applyOnPost(input: PostEffects): Promise<Result<void, InboundInteractionError>> {
    const { kind, actor, interactionId } = input;
    const { table, counter } = POST_INTERACTION_TABLES[kind];
    const options = pinOptions(input.pin);
    const now = options.now;
    const actorUrl = formatActorUrl(actor);
    const repostId = kind === 'repost' ? (input.remoteRepostId ?? null) : undefined;
    const [row] = await driverQuery<{ found: boolean }>(
      db,
      Prisma.sql`
        WITH post AS (
          SELECT id, author_id FROM posts WHERE id = ${input.postId}::uuid AND deleted_at IS NULL
        ), claimed AS (
          INSERT INTO inbound_interactions (actor_node_domain, interaction_id, kind, received_at)
          SELECT ${actor.domain}, ${interactionId}, ${kind}, ${now}::timestamptz FROM post
          ON CONFLICT DO NOTHING
          RETURNING 1
        ), actor AS (${remoteActorUpsertSql(actor, options, 'claimed')}
        ), added AS (
          INSERT INTO ${Prisma.raw(table)} (post_id, actor_key, remote_actor_id, interaction_id,
            created_at${repostId === undefined ? Prisma.empty : Prisma.sql`, remote_repost_id`})
          SELECT post.id, ${actorUrl}, actor.id, ${interactionId}, ${now}::timestamptz
            ${repostId === undefined ? Prisma.empty : Prisma.sql`, ${repostId}::text`}
          FROM post, actor
          ON CONFLICT DO NOTHING
          RETURNING post_id
        ), counted AS (
          UPDATE posts SET ${Prisma.raw(`${counter} = ${counter} + 1`)},
            updated_at = ${now}::timestamptz
          FROM added WHERE posts.id = added.post_id
        ), notified AS (
          INSERT INTO notifications (recipient_id, type, actor_key, actor_remote_actor_id,
            actor_handle, actor_display_name, actor_avatar_url, actor_node_domain, post_id,
            interaction_id, created_at)
          SELECT post.author_id, ${kind}::notification_type, ${actorUrl}, actor.id, ${actor.handle},
            ${actor.displayName}, ${actor.avatarUrl || null}, ${actor.domain}, post.id,
            ${interactionId}, ${now}::timestamptz
          FROM added, post, actor WHERE post.author_id IS NOT NULL
        )
        SELECT EXISTS (SELECT 1 FROM post) AS found`,
    );
    return row?.found ? ok(undefined) : err(postNotFound(input.postId));
  }

  async function findUser(tx: Tx, handle: string) {
    // Local handles are stored lower-case; peers may send any case.
    const user = await tx.user.findUnique({
      where: { handle: handle.toLowerCase() },
      select: { id: true },
    });
    if (!user)
      throw new Refusal({ code: 'USER_NOT_FOUND', message: `No user ${handle} on this node.` });
    return user;
  }

  const done = (message: string): InteractionOutcome => ok({ message });

  return {
    async like(sourceDomain, body, rawBody) {
      const { like } = body;
      return receiveOnPost({
        action: 'like',
        sourceDomain,
        actor: actorOf(like.actorHandle, like.actorNodeDomain, like),
        timestamp: like.timestamp,
        rawBody,
        interactionId: like.interactionId,
        postId: body.postId,
      });
    },

    async unlike(sourceDomain, body, rawBody) {
      const { unlike } = body;
      const actor = actorOf(unlike.actorHandle, unlike.actorNodeDomain, {});
      const admitted = await admit({
        action: 'unlike',
        sourceDomain,
        actor,
        timestamp: unlike.timestamp,
        rawBody,
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

    async repost(sourceDomain, body, rawBody) {
      const { repost } = body;
      return receiveOnPost({
        action: 'repost',
        sourceDomain,
        actor: actorOf(repost.actorHandle, repost.actorNodeDomain, repost),
        timestamp: repost.timestamp,
        rawBody,
        interactionId: repost.interactionId,
        postId: body.postId,
        remoteRepostId: repost.repostId,
      });
    },

    async follow(sourceDomain, body, rawBody) {
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
        interactionId: follow.interactionId,
      });
      if (!admitted.ok) return admitted;
      if (admitted.value.seen) return done(INTERACTION_MESSAGES.follow);
      const outcome = await inTransaction(async (tx) => {
        if (!(await claim(tx, actor.domain, follow.interactionId, 'follow'))) return;
        const user = await findUser(tx, body.targetHandle);
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

    async unfollow(sourceDomain, body, rawBody) {
      const { unfollow } = body;
      const actor = actorOf(unfollow.followerHandle, unfollow.followerNodeDomain, {});
      const admitted = await admit({
        action: 'unfollow',
        sourceDomain,
        actor,
        timestamp: unfollow.timestamp,
        rawBody,
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

    async mention(sourceDomain, body, rawBody) {
      const { mention } = body;
      const actor = actorOf(mention.actorHandle, mention.actorNodeDomain, mention);
      const admitted = await admit({
        action: 'mention',
        sourceDomain,
        actor,
        timestamp: mention.timestamp,
        rawBody,
        interactionId: mention.interactionId,
      });
      if (!admitted.ok) return admitted;
      if (admitted.value.seen) return done(INTERACTION_MESSAGES.mention);
      const outcome = await inTransaction(async (tx) => {
        if (!(await claim(tx, actor.domain, mention.interactionId, 'mention'))) return;
        const user = await findUser(tx, body.mentionedHandle);
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

    async reply(sourceDomain, body, rawBody) {
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
      });
      if (!admitted.ok) return admitted;
      // A reply is identified by its id on its node: a repeat answers the same replyId.
      const apId = formatSwarmPostId({ domain: reply.nodeDomain, postId: reply.id });
      const outcome = await inTransaction(async (tx) => {
        const existing = await tx.post.findUnique({ where: { apId }, select: { id: true } });
        if (existing) return existing.id;
        const parent = await findPost(tx, body.postId);
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
