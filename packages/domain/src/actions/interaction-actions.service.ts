// Over 500 lines on purpose: the signed user actions (like, repost, follow and their undo)
// share one check-then-apply-then-deliver shape, written once per action side by side.

import { BLOCKED_MESSAGE, isBlockedBy } from '../views/blocks.ts';
import { randomUUID } from 'node:crypto';
import {
  LIMITS,
  didKeyToPublicKey,
  formatTimestamp,
  isWithinClockWindow,
  likeBodySchema,
  ok,
  parseWith,
  repostBodySchema,
  unlikeBodySchema,
  uuidSchema,
  verifyUserAction,
  type Result,
} from '@swarm/contract';
import {
  addFollow,
  addLike,
  addRepost,
  notify,
  removeFollow,
  removeLike,
} from '../interactions/interaction-effects.ts';
import type { ActionResult } from '../views/index.ts';
import {
  actorFields,
  loadActingUser,
  localEffectActor,
  localKey,
  wireUrlMember,
  type ActionDeps,
  type ActingUser,
} from './action-support.ts';
import { createTargetResolver, type PostTarget } from './action-targets.ts';
import { inTransaction, refusal, refuse, RefusalError, type Refusal, type Tx } from '../refusal.ts';

/**
 * Likes, unlikes, reposts and follows by a local user, on this node's posts and people or on
 * another node's. Locally the effects are those of the inbound receivers (same helpers); for a
 * remote target the local record (like/repost row on the post's copy, pending follow) and the
 * outbox row are one transaction, then the delivery is attempted at once.
 *
 * Like, unlike and repost carry the user's own signature (docs/protocol.md "User signatures"):
 * `prepare` builds the exact body, the browser signs `userSignaturePayload({action, targetDomain,
 * body})` with the user's key, and the action checks the signed body before anything is written.
 * The node cannot make these for its users; follows, unfollows, mentions and replies go unsigned
 * (the signature is optional there).
 */

export type SignedKind = 'like' | 'unlike' | 'repost';

export type PreparedInteraction =
  | { local: true }
  | {
      local: false;
      action: SignedKind;
      targetDomain: string;
      /** Sign exactly this (without a `signature` member) and send it back with the signature. */
      body: Record<string, unknown>;
    };

export interface SignedBody {
  body: Record<string, unknown>;
  signature: string;
}

export interface InteractionInput {
  postId: string;
  /** Required when the post lives on another node. */
  signed?: SignedBody | null;
  /**
   * The post's author as the page showed it (`bob@beta.example`): used only for a first action
   * on a remote post whose node cannot be asked now and that no read here just showed.
   */
  authorAddress?: string | null;
}

export interface InteractionActions {
  prepare(
    userId: string,
    input: { kind: SignedKind; postId: string },
  ): Promise<Result<PreparedInteraction, Refusal>>;
  like(userId: string, input: InteractionInput): Promise<Result<ActionResult, Refusal>>;
  unlike(userId: string, input: InteractionInput): Promise<Result<ActionResult, Refusal>>;
  repost(userId: string, input: InteractionInput): Promise<Result<ActionResult, Refusal>>;
  follow(userId: string, input: { address: string }): Promise<Result<ActionResult, Refusal>>;
  unfollow(userId: string, input: { address: string }): Promise<Result<ActionResult, Refusal>>;
}

type RemoteTarget = Extract<PostTarget, { kind: 'remote' }>;

const BODY_SCHEMAS = { like: likeBodySchema, unlike: unlikeBodySchema, repost: repostBodySchema };

const nothing: ActionResult = { delivery: null };

const NO_SIGNING_KEY =
  'Your account has no signing key yet: sign in again in your browser to create one.';

/**
 * An idempotent repeat (already liked, reposted, followed): a refusal thrown to roll back what
 * the transaction wrote, carrying the earlier action's interaction id; `settled` answers it with
 * that action's delivery. It never reaches an edge.
 */
const REPEAT = 'You did this already.';

function repeated(existing: { interactionId: string | null } | null): never {
  throw new RefusalError(
    refusal('INVALID_REQUEST', REPEAT, { details: { repeatOf: existing?.interactionId ?? null } }),
  );
}

export function createInteractionActions(deps: ActionDeps): InteractionActions {
  const { db, clock, config, delivery, reads } = deps;
  const prisma = db.prisma;
  const self = config.domain;
  const targets = createTargetResolver(deps);

  /** After an action reached (or is queued for) `domain`: reads ask it again, not the cache. */
  function changed<T>(domain: string, result: T): T {
    reads?.reader.forget(domain);
    return result;
  }

  /** The action's user and target post, with the rule that remote ids must be UUIDs (spec). */
  async function begin(
    userId: string,
    postId: string,
  ): Promise<Result<{ user: ActingUser; target: PostTarget }, Refusal>> {
    const user = await loadActingUser(db, userId);
    if (!user.ok) return user;
    const target = await targets.post(postId);
    if (!target.ok) return target;
    if (
      target.value.kind === 'local' &&
      (await isBlockedBy(prisma, target.value.authorId, `${user.value.handle}@${self}`))
    ) {
      return refuse('FORBIDDEN', BLOCKED_MESSAGE);
    }
    if (
      target.value.kind === 'remote' &&
      !uuidSchema.safeParse(target.value.remotePostId).success
    ) {
      return refuse(
        'INVALID_REQUEST',
        `Posts of ${target.value.domain} cannot be liked or reposted from here: their ids are not UUIDs.`,
      );
    }
    return ok({ user: user.value, target: target.value });
  }

  /** The action's user and the person it is about (`resolve` finds them from the address). */
  async function beginOnPerson<P>(
    userId: string,
    resolve: () => Promise<Result<P, Refusal>>,
  ): Promise<Result<{ user: ActingUser; followee: P }, Refusal>> {
    const user = await loadActingUser(db, userId);
    if (!user.ok) return user;
    const person = await resolve();
    if (!person.ok) return person;
    const followee = person.value as { kind?: string; userId?: string };
    if (
      followee.kind === 'local' &&
      followee.userId &&
      (await isBlockedBy(prisma, followee.userId, `${user.value.handle}@${self}`))
    ) {
      return refuse('FORBIDDEN', BLOCKED_MESSAGE);
    }
    return ok({ user: user.value, followee: person.value });
  }

  /** What the browser signs: the spec's body for this action, with a fresh id and time. */
  function bodyFor(kind: SignedKind, user: ActingUser, target: RemoteTarget) {
    const common = {
      interactionId: randomUUID(),
      timestamp: formatTimestamp(clock.now()),
    };
    const actor = actorFields(user, self);
    switch (kind) {
      case 'like':
        return { postId: target.remotePostId, like: { ...actor, ...common } };
      case 'unlike':
        return {
          postId: target.remotePostId,
          unlike: {
            actorHandle: actor.actorHandle,
            actorNodeDomain: actor.actorNodeDomain,
            ...common,
          },
        };
      case 'repost':
        // The id the local repost post will have (it is signed, so it is reserved here).
        return {
          postId: target.remotePostId,
          repost: { ...actor, repostId: randomUUID(), ...common },
        };
    }
  }

  /**
   * The checks of a signed body, all before any write: it is the spec's shape, for this post,
   * by this user as this node describes them, made within ±5 minutes, not used before, and
   * signed with the user's registered key for the post's node.
   */
  async function verifySigned(
    kind: SignedKind,
    user: ActingUser,
    target: RemoteTarget,
    signed: SignedBody | null | undefined,
  ): Promise<
    Result<{ raw: Record<string, unknown>; interactionId: string; repostId?: string }, Refusal>
  > {
    if (!signed) {
      return refuse(
        'INVALID_REQUEST',
        `A ${kind} of a post on ${target.domain} needs your signature: prepare it, sign it, then send it.`,
      );
    }
    if (!user.did) return refuse('INVALID_REQUEST', NO_SIGNING_KEY);
    const raw: Record<string, unknown> = { ...signed.body, signature: signed.signature };
    if (JSON.stringify(raw).length > LIMITS.interactionBodyBytes) {
      return refuse('INVALID_REQUEST', `The signed ${kind} is too large.`);
    }
    const parsed = parseWith(BODY_SCHEMAS[kind], raw);
    if (!parsed.ok)
      return refuse('INVALID_REQUEST', `The signed ${kind} is malformed: ${parsed.reason}.`);
    const body = parsed.value;
    if (body.postId !== target.remotePostId) {
      return refuse('INVALID_REQUEST', `The signed ${kind} is about another post.`);
    }
    const inner: {
      actorHandle: string;
      actorNodeDomain: string;
      interactionId: string;
      timestamp: string;
      actorDisplayName?: string;
      actorAvatarUrl?: string;
      repostId?: string;
    } = 'like' in body ? body.like : 'unlike' in body ? body.unlike : body.repost;
    if (inner.actorHandle !== user.handle || inner.actorNodeDomain !== self) {
      return refuse(
        'UNAUTHORIZED',
        `The signed ${kind} names someone else: you can act only as yourself.`,
      );
    }
    if (kind !== 'unlike') {
      const mine = actorFields(user, self);
      if (
        inner.actorDisplayName !== mine.actorDisplayName ||
        (inner.actorAvatarUrl ?? '') !== (mine.actorAvatarUrl ?? '')
      ) {
        return refuse(
          'INVALID_REQUEST',
          `The signed ${kind} shows another name or avatar than your profile: prepare it again.`,
        );
      }
    }
    if (!isWithinClockWindow(inner.timestamp, clock.now())) {
      return refuse(
        'INVALID_REQUEST',
        `The signed ${kind} is older than 5 minutes or dated in the future: prepare it again.`,
      );
    }
    const key = await didKeyToPublicKey(user.did);
    if (!key.ok)
      return refuse('INVALID_REQUEST', `Your registered key is unusable: ${key.reason}.`);
    const valid = await verifyUserAction({
      publicKey: key.value,
      action: kind,
      targetDomain: target.domain,
      body: raw,
    });
    if (!valid) {
      return refuse('UNAUTHORIZED', `The signature of this ${kind} does not match your key.`);
    }
    const used = await prisma.outboxDelivery.findFirst({
      where: { interactionId: inner.interactionId },
      select: { id: true },
    });
    if (used) {
      return refuse('INVALID_REQUEST', `This signed ${kind} was sent already: prepare a new one.`);
    }
    if (kind === 'repost') {
      const repostId = inner.repostId ?? '';
      const taken =
        !uuidSchema.safeParse(repostId).success ||
        (await prisma.post.count({ where: { id: repostId } })) > 0;
      if (taken)
        return refuse(
          'INVALID_REQUEST',
          'The signed repost has an unusable repostId: prepare it again.',
        );
      return ok({ raw, interactionId: inner.interactionId, repostId });
    }
    return ok({ raw, interactionId: inner.interactionId });
  }

  /**
   * The delivery of an earlier action (an idempotent repeat answers its state). Called after
   * the transaction: on PGlite a query outside an open transaction waits for it to end.
   */
  async function earlier(interactionId: string | null): Promise<ActionResult> {
    if (!interactionId) return nothing;
    return { delivery: await delivery.findByInteraction(interactionId) };
  }

  async function sent(id: string | null): Promise<ActionResult> {
    if (!id) return nothing;
    const [view] = await delivery.attempt([id]);
    return { delivery: view ?? null };
  }

  /** The answer to an action on `domain`: the new delivery attempted, or a repeat's earlier one. */
  async function settled(
    domain: string,
    outcome: Result<string | null, Refusal>,
  ): Promise<Result<ActionResult, Refusal>> {
    if (outcome.ok) return ok(changed(domain, await sent(outcome.value)));
    const details = outcome.reason.details;
    if (!details || !('repeatOf' in details)) return outcome;
    const earlierId = typeof details.repeatOf === 'string' ? details.repeatOf : null;
    return ok(changed(domain, await earlier(earlierId)));
  }

  /**
   * An undo (unlike, unfollow) of an action whose own delivery is `undoneInteractionId`: when
   * that delivery never left this node it is cancelled and nothing is sent; otherwise `send`.
   */
  async function undoRemotely(
    tx: Tx,
    undoneInteractionId: string | null,
    send: () => Promise<string>,
  ): Promise<string | null> {
    if (undoneInteractionId) {
      const cancelled = await delivery.cancelPending(tx, undoneInteractionId);
      if (cancelled === 'unsent') return null;
    }
    return send();
  }

  /** The outbox row of a signed action, exactly as the user signed it. */
  function enqueueSigned(
    tx: Tx,
    kind: SignedKind,
    user: ActingUser,
    target: RemoteTarget,
    checked: { raw: Record<string, unknown>; interactionId: string },
  ) {
    return delivery.enqueue(tx, {
      targetDomain: target.domain,
      kind,
      body: checked.raw,
      interactionId: checked.interactionId,
      createdById: user.id,
    });
  }

  /** The user's like or repost record on a post, with its interaction id. */
  function recordOf(tx: Tx, kind: 'like' | 'repost', postId: string, actorKey: string) {
    const query = {
      where: { postId_actorKey: { postId, actorKey } },
      select: { interactionId: true },
    };
    return kind === 'like' ? tx.like.findUnique(query) : tx.repost.findUnique(query);
  }

  /**
   * A like or repost of another node's post: the signed body checked, the post's copy here
   * found or made, then `record` on the copy and the outbox row in one transaction (when
   * `record` finds it done already, a repeat: answered with the earlier action's delivery).
   */
  async function onRemoteCopy(
    kind: 'like' | 'repost',
    user: ActingUser,
    target: RemoteTarget,
    input: InteractionInput,
    record: (
      tx: Tx,
      copyId: string,
      checked: { interactionId: string; repostId?: string },
    ) => Promise<boolean>,
  ): Promise<Result<ActionResult, Refusal>> {
    const checked = await verifySigned(kind, user, target, input.signed);
    if (!checked.ok) return checked;
    const copy = await targets.remoteCopy(target, input);
    if (!copy.ok) return copy;
    const { copyId } = copy.value;
    const outcome = await inTransaction<string | null>(db, async (tx) => {
      if (!(await record(tx, copyId, checked.value))) {
        repeated(await recordOf(tx, kind, copyId, localKey(user)));
      }
      return enqueueSigned(tx, kind, user, target, checked.value);
    });
    return settled(target.domain, outcome);
  }

  // ---- like ---------------------------------------------------------------------------------

  async function like(
    userId: string,
    input: InteractionInput,
  ): Promise<Result<ActionResult, Refusal>> {
    const begun = await begin(userId, input.postId);
    if (!begun.ok) return begun;
    const { user, target } = begun.value;
    const actor = localEffectActor(user);
    const at = clock.now();
    if (target.kind === 'local') {
      await inTransaction(db, async (tx) => {
        if (!(await addLike(tx, { postId: target.postId, actor, interactionId: null, at }))) return;
        await notify(tx, {
          recipientId: target.authorId,
          type: 'like',
          actor,
          at,
          postId: target.postId,
        });
      });
      return ok(nothing);
    }
    return onRemoteCopy('like', user, target, input, (tx, postId, { interactionId }) =>
      addLike(tx, { postId, actor, interactionId, at }),
    );
  }

  async function unlike(
    userId: string,
    input: InteractionInput,
  ): Promise<Result<ActionResult, Refusal>> {
    const begun = await begin(userId, input.postId);
    if (!begun.ok) return begun;
    const { user, target } = begun.value;
    const actorKey = localKey(user);
    if (target.kind === 'local') {
      await inTransaction(db, (tx) => removeLike(tx, { postId: target.postId, actorKey }));
      return ok(nothing);
    }
    const checked = await verifySigned('unlike', user, target, input.signed);
    if (!checked.ok) return checked;
    const copyId = target.copyId;
    if (!copyId) return ok(nothing); // never liked here: nothing to undo
    const outcome = await inTransaction<string | null>(db, async (tx) => {
      const existing = await recordOf(tx, 'like', copyId, actorKey);
      if (!existing || !(await removeLike(tx, { postId: copyId, actorKey }))) return null;
      return undoRemotely(tx, existing.interactionId, () =>
        enqueueSigned(tx, 'unlike', user, target, checked.value),
      );
    });
    return settled(target.domain, outcome);
  }

  // ---- repost -------------------------------------------------------------------------------

  async function repost(
    userId: string,
    input: InteractionInput,
  ): Promise<Result<ActionResult, Refusal>> {
    const begun = await begin(userId, input.postId);
    if (!begun.ok) return begun;
    const { user, target } = begun.value;
    const actor = localEffectActor(user);
    const at = clock.now();
    /** The repost's own post row (what shows it in feeds), then the repost record. */
    const write = async (
      tx: Tx,
      postId: string,
      repostPostId: string,
      interactionId: string | null,
    ) => {
      await tx.post.create({
        data: {
          id: repostPostId,
          authorId: user.id,
          repostOfId: postId,
          createdAt: at,
          updatedAt: at,
        },
      });
      return addRepost(tx, { postId, actor, interactionId, at, repostPostId });
    };
    if (target.kind === 'local') {
      await inTransaction(db, async (tx) => {
        if (!(await write(tx, target.postId, randomUUID(), null))) repeated(null);
        await notify(tx, {
          recipientId: target.authorId,
          type: 'repost',
          actor,
          at,
          postId: target.postId,
        });
      });
      return ok(nothing);
    }
    return onRemoteCopy('repost', user, target, input, (tx, copyId, { interactionId, repostId }) =>
      write(tx, copyId, repostId ?? randomUUID(), interactionId),
    );
  }

  // ---- follow -------------------------------------------------------------------------------

  async function follow(
    userId: string,
    input: { address: string },
  ): Promise<Result<ActionResult, Refusal>> {
    const begun = await beginOnPerson(userId, () => targets.person(input.address));
    if (!begun.ok) return begun;
    const { user, followee } = begun.value;
    const actor = localEffectActor(user);
    const at = clock.now();
    if (followee.kind === 'local') {
      if (followee.userId === user.id)
        return refuse('INVALID_REQUEST', 'You cannot follow yourself.');
      await inTransaction(db, async (tx) => {
        const added = await addFollow(tx, {
          follower: actor,
          followee: { kind: 'local', userId: followee.userId },
          state: 'accepted',
          interactionId: null,
          at,
        });
        if (added) await notify(tx, { recipientId: followee.userId, type: 'follow', actor, at });
      });
      return ok(nothing);
    }
    const interactionId = randomUUID();
    const outcome = await inTransaction<string | null>(db, async (tx) => {
      const added = await addFollow(tx, {
        follower: actor,
        followee: {
          kind: 'remote',
          remoteActorId: followee.remoteActorId,
          actorUrl: followee.actorUrl,
        },
        state: 'pending',
        interactionId,
        at,
      });
      if (!added) {
        repeated(
          await tx.follow.findUnique({
            where: {
              followerKey_followeeKey: {
                followerKey: localKey(user),
                followeeKey: followee.actorUrl,
              },
            },
            select: { interactionId: true },
          }),
        );
      }
      return delivery.enqueue(tx, {
        targetDomain: followee.domain,
        kind: 'follow',
        interactionId,
        createdById: user.id,
        body: {
          targetHandle: followee.handle,
          follow: {
            followerHandle: user.handle,
            followerDisplayName: user.displayName,
            ...wireUrlMember('followerAvatarUrl', user.avatarUrl),
            followerBio: user.bio,
            followerNodeDomain: self,
            interactionId,
            timestamp: formatTimestamp(at),
          },
        },
      });
    });
    return settled(followee.domain, outcome);
  }

  async function unfollow(
    userId: string,
    input: { address: string },
  ): Promise<Result<ActionResult, Refusal>> {
    const begun = await beginOnPerson(userId, () => targets.known(input.address));
    if (!begun.ok) return begun;
    const { user, followee } = begun.value;
    const followerKey = localKey(user);
    if (followee.kind === 'local') {
      await inTransaction(db, (tx) =>
        removeFollow(tx, { followerKey, followeeKey: localKey({ id: followee.userId }) }),
      );
      return ok(nothing);
    }
    if (!followee.actorUrl) return ok(nothing); // never seen here, so not followed
    const followeeKey = followee.actorUrl;
    const at = clock.now();
    const interactionId = randomUUID();
    const outcome = await inTransaction<string | null>(db, async (tx) => {
      const removed = await removeFollow(tx, { followerKey, followeeKey });
      if (!removed) return null;
      return undoRemotely(tx, removed.interactionId, () =>
        delivery.enqueue(tx, {
          targetDomain: followee.domain,
          kind: 'unfollow',
          interactionId,
          createdById: user.id,
          body: {
            targetHandle: followee.handle,
            unfollow: {
              followerHandle: user.handle,
              followerNodeDomain: self,
              interactionId,
              timestamp: formatTimestamp(at),
            },
          },
        }),
      );
    });
    return settled(followee.domain, outcome);
  }

  return {
    async prepare(userId, input) {
      const begun = await begin(userId, input.postId);
      if (!begun.ok) return begun;
      const { user, target } = begun.value;
      if (target.kind === 'local') return ok({ local: true });
      if (!user.did) return refuse('INVALID_REQUEST', NO_SIGNING_KEY);
      return ok({
        local: false,
        action: input.kind,
        targetDomain: target.domain,
        body: bodyFor(input.kind, user, target),
      });
    },
    like,
    unlike,
    repost,
    follow,
    unfollow,
  };
}
