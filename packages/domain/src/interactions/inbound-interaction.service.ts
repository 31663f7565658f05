import {
  SWARM_PATHS,
  err,
  formatActorUrl,
  formatSwarmPostId,
  isAcceptableInteractionTime,
  ok,
  parseDomain,
  parseHandleAddress,
  swarmUserResponseSchema,
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
import { localActorKey, type Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { describePeerError, type PeerClient } from '../peers/index.ts';
import { importDidKey } from '../security/key-cache.ts';
import { excerpt, guessMimeType } from './inbound-helpers.ts';
import {
  addFollow,
  addLike,
  addRepost,
  notify,
  remoteEffectActor,
  removeFollow,
  removeLike,
  upsertRemoteActor,
  type RemoteActorFields,
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
 * claims the idempotency key and applies the effects; a 404 rolls the claim back.
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

interface Admitted {
  didToPin: DidPin | undefined;
  seen: boolean;
}

/** After a pinned did fails, the actor's node is asked again at most this often per actor. */
export const DID_RECHECK_MS = 5 * 60_000;
/** Actors remembered for that (oldest out first). */
const DID_RECHECK_MAX = 10_000;

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

  /** Actors whose did was asked again after a pinned did failed: when, and the answer. */
  const recheckedDids = new Map<string, { at: number; did: Promise<Result<string, string>> }>();

  /** The did the actor's node publishes now. */
  async function fetchDid(actor: Actor): Promise<Result<string, string>> {
    const answer = await peers.getJson(
      actor.domain,
      `${SWARM_PATHS.user(actor.handle)}?limit=0`,
      swarmUserResponseSchema,
    );
    if (!answer.ok)
      return err(`cannot resolve the actor's key: ${describePeerError(answer.error)}`);
    const did = answer.value.profile.did;
    return did ? ok(did) : err(`${actor.handle}@${actor.domain} publishes no did`);
  }

  /**
   * `fetchDid` at most once per actor per DID_RECHECK_MS: a pinned did that fails may mean the
   * user rotated their key, but forged signatures must not make us hammer the actor's node.
   */
  function recheckDid(actor: Actor): Promise<Result<string, string>> {
    const key = formatActorUrl(actor);
    const nowMs = clock.now().getTime();
    const entry = recheckedDids.get(key);
    if (entry && nowMs - entry.at < DID_RECHECK_MS) return entry.did;
    const did = fetchDid(actor);
    recheckedDids.delete(key);
    recheckedDids.set(key, { at: nowMs, did });
    // Oldest out first (a Map iterates in insertion order).
    if (recheckedDids.size > DID_RECHECK_MAX) {
      recheckedDids.delete(recheckedDids.keys().next().value as string);
    }
    return did;
  }

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
  async function admit(input: {
    action: UserAction;
    sourceDomain: string;
    actor: Actor;
    timestamp: string;
    rawBody: unknown;
    /** The ledger key; the reply has none (its apId plays that part). */
    interactionId?: string;
  }): Promise<Result<Admitted, InboundInteractionError>> {
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
    const [known] = await prisma.$queryRaw<{ did: string | null; seen: boolean }[]>`
      SELECT
        (SELECT did FROM remote_actors
          WHERE node_domain = ${actor.domain} AND handle = ${actor.handle}) AS did,
        EXISTS (SELECT 1 FROM inbound_interactions
          WHERE actor_node_domain = ${actor.domain}
            AND interaction_id = ${storableText(input.interactionId)}) AS seen`;
    const pinned = known?.did ?? null;
    const seen = known?.seen === true;
    if (pinned && (await signedBy(pinned, action, raw))) return ok({ didToPin: undefined, seen });

    // No did pinned yet (it is pinned on first sight, once a signature proves it), or the pinned
    // one fails: the user may have rotated their key, so ask the actor's node (rate-limited).
    const current = pinned ? await recheckDid(actor) : await fetchDid(actor);
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
    // The upsert pins a first did itself; replacing a pinned one is pinDid's compare-and-set.
    const stored = await upsertRemoteActor(tx, actor, { now: clock.now(), didToPin: pin?.did });
    if (pin?.replaces) await pinDid(tx, actor, pin);
    return remoteEffectActor(actor, stored);
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

  function noPost(postId: string): Refusal {
    return new Refusal({ code: 'POST_NOT_FOUND', message: `No post ${postId} on this node.` });
  }

  async function findPost(tx: Tx, postId: string) {
    const post = await tx.post.findFirst({
      where: { id: postId, deletedAt: null },
      select: { id: true, authorId: true },
    });
    if (!post) throw noPost(postId);
    return post;
  }

  /**
   * `claim` and `findPost` in one round trip (likes are the busiest path): undefined when the
   * interaction was applied before; a missing post refuses (404, the claim rolls back).
   */
  async function claimOnPost(
    tx: Tx,
    domain: string,
    interactionId: string,
    kind: string,
    postId: string,
  ): Promise<{ id: string; authorId: string | null } | undefined> {
    const [row] = await tx.$queryRaw<
      { fresh: boolean; id: string | null; author_id: string | null }[]
    >`
      WITH claimed AS (
        INSERT INTO inbound_interactions (actor_node_domain, interaction_id, kind, received_at)
        VALUES (${domain}, ${interactionId}, ${kind}, ${clock.now()}::timestamptz)
        ON CONFLICT DO NOTHING
        RETURNING 1
      )
      SELECT EXISTS (SELECT 1 FROM claimed) AS fresh, p.id::text AS id,
        p.author_id::text AS author_id
      FROM (SELECT 1) AS one
      LEFT JOIN posts p ON p.id = ${postId}::uuid AND p.deleted_at IS NULL`;
    if (!row?.fresh) return undefined;
    if (!row.id) throw noPost(postId);
    return { id: row.id, authorId: row.author_id };
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
      const actor = actorOf(like.actorHandle, like.actorNodeDomain, like);
      const admitted = await admit({
        action: 'like',
        sourceDomain,
        actor,
        timestamp: like.timestamp,
        rawBody,
        interactionId: like.interactionId,
      });
      if (!admitted.ok) return admitted;
      if (admitted.value.seen) return done(INTERACTION_MESSAGES.like);
      const outcome = await inTransaction(async (tx) => {
        const post = await claimOnPost(tx, actor.domain, like.interactionId, 'like', body.postId);
        if (!post) return;
        const liker = await upsertActor(tx, actor, admitted.value.didToPin);
        const at = clock.now();
        const { interactionId } = like;
        if (!(await addLike(tx, { postId: post.id, actor: liker, interactionId, at }))) return;
        if (post.authorId) {
          await notify(tx, {
            recipientId: post.authorId,
            type: 'like',
            actor: liker,
            at,
            postId: post.id,
            interactionId,
          });
        }
      });
      return outcome.ok ? done(INTERACTION_MESSAGES.like) : outcome;
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
        const post = await claimOnPost(
          tx,
          actor.domain,
          unlike.interactionId,
          'unlike',
          body.postId,
        );
        if (!post) return;
        await pinDid(tx, actor, admitted.value.didToPin);
        await removeLike(tx, { postId: post.id, actorKey: formatActorUrl(actor) });
      });
      return outcome.ok ? done(INTERACTION_MESSAGES.unlike) : outcome;
    },

    async repost(sourceDomain, body, rawBody) {
      const { repost } = body;
      const actor = actorOf(repost.actorHandle, repost.actorNodeDomain, repost);
      const admitted = await admit({
        action: 'repost',
        sourceDomain,
        actor,
        timestamp: repost.timestamp,
        rawBody,
        interactionId: repost.interactionId,
      });
      if (!admitted.ok) return admitted;
      if (admitted.value.seen) return done(INTERACTION_MESSAGES.repost);
      const outcome = await inTransaction(async (tx) => {
        const post = await claimOnPost(
          tx,
          actor.domain,
          repost.interactionId,
          'repost',
          body.postId,
        );
        if (!post) return;
        const reposter = await upsertActor(tx, actor, admitted.value.didToPin);
        const at = clock.now();
        const { interactionId } = repost;
        const added = await addRepost(tx, {
          postId: post.id,
          actor: reposter,
          interactionId,
          at,
          remoteRepostId: repost.repostId,
        });
        if (!added) return;
        if (post.authorId) {
          await notify(tx, {
            recipientId: post.authorId,
            type: 'repost',
            actor: reposter,
            at,
            postId: post.id,
            interactionId,
          });
        }
      });
      return outcome.ok ? done(INTERACTION_MESSAGES.repost) : outcome;
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

/**
 * Postgres text cannot hold U+0000: such an id is in no table (and asking would be an error
 * before the signature is even checked), so it is looked up as null.
 */
function storableText(text: string | undefined): string | null {
  return text === undefined || text.includes('\u0000') ? null : text;
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
