import {
  err,
  formatActorUrl,
  formatSwarmPostId,
  ok,
  parseHandleAddress,
  type FollowBody,
  type LikeBody,
  type MentionBody,
  type ReplyBody,
  type RepostBody,
  type UnfollowBody,
  type UnlikeBody,
  type UnrepostBody,
} from '@swarm/contract';
import { localActorKey } from '@swarm/db';
import type { PostInteraction } from '../persistence/interactions.sql.ts';
import { excerpt, guessMimeType } from './inbound-helpers.ts';
import {
  addFollow,
  notify,
  removeFollow,
  removeLike,
  removeRepost,
} from './interaction-effects.ts';
import { blockedRefusal, createInboundEffects, type PostEffects } from './inbound-effects.ts';
import {
  createInboundVerification,
  fail,
  type Actor,
  type AdmitInput,
  type Admitted,
} from './inbound-verification.ts';
import { createOriginHolds, holdsForEvidence } from './origin-holds.ts';
import {
  INTERACTION_MESSAGES,
  type InboundInteractionDeps,
  type InboundOptions,
  type InteractionOutcome,
  type ReplyOutcome,
} from './inbound-types.ts';
/**
 * Receiver side of the interaction endpoints (spec "Receiver effects", docs/protocol.md
 * "Interactions": "Who may act", "Idempotency"). Every call gets the source domain the node
 * signature proved, the zod-parsed body and the body as received (for the user signature, which
 * covers the raw JSON, unknown members included).
 *
 * Order of checks, all before any write: the actor belongs to the sending node (403), the
 * interaction time is acceptable (401), the user signature is valid (401). Then one transaction
 * claims the idempotency key and applies the effects; a 404 rolls the claim back. Likes and
 * reposts, the bulk of the traffic, do both in a single statement (`applyOnPost`), shared by the
 * requests arriving together (persistence/batched-statement.ts), as is `admit`'s lookup.
 */

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

export function createInboundInteractionService(
  deps: InboundInteractionDeps,
): InboundInteractionService {
  const { clock } = deps;
  const { admit } = createInboundVerification(deps);
  const {
    commitIfOk,
    claim,
    upsertActor,
    pinDid,
    postNotFound,
    findPost,
    applyOnPost,
    findUser,
    refuseIfBlocked,
  } = createInboundEffects(deps);
  const effects = { commitIfOk, findUser, findPost, refuseIfBlocked };
  const held = createOriginHolds({ ...deps, effects, options: deps.originConfirmation });

  /** A like or a repost: the checks, then `applyOnPost` unless the ledger knows it already. */
  async function receiveOnPost(
    input: AdmitInput & Omit<PostEffects, 'pin'> & { action: PostInteraction },
  ): Promise<InteractionOutcome> {
    const message = INTERACTION_MESSAGES[input.action];
    const admitted = await admit(input);
    if (!admitted.ok) return admitted;
    if (admitted.value.seen) return done(message);
    const on = await applyOnPost[input.action]({ ...input, pin: admitted.value.didToPin });
    if (on.blocked) return err(blockedRefusal());
    return on.found ? done(message) : err(postNotFound(input.postId));
  }

  const done = (message: string): InteractionOutcome => ok({ message });

  /**
   * A follow or unfollow taken (not a repeat) names what vouched for it: the person's key, an
   * app's under the delegation it names, or nothing but their node (docs/protocol.md "App
   * delegations", "Receiving"), so an operator can tell an app's follow from an unsigned one.
   */
  function logAccepted(
    action: 'follow' | 'unfollow',
    peer: string,
    actor: Actor,
    target: string,
    admitted: Admitted,
  ) {
    const { signedBy, delegation } = admitted;
    deps.logger.info(
      {
        peer,
        actor: `${actor.handle}@${actor.domain}`,
        target,
        signedBy,
        ...(delegation ? { delegation } : {}),
      },
      `${action} accepted`,
    );
  }

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
      const outcome = await commitIfOk(async (tx) => {
        if (!(await claim(tx, actor.domain, unlike.interactionId, 'unlike'))) return ok(undefined);
        const post = await findPost(tx, body.postId);
        if (!post.ok) return post;
        await pinDid(tx, actor, admitted.value.didToPin);
        await removeLike(tx, { postId: post.value.id, actorKey: formatActorUrl(actor) });
        return ok(undefined);
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
      const outcome = await commitIfOk(async (tx) => {
        if (!(await claim(tx, actor.domain, unrepost.interactionId, 'unrepost')))
          return ok(undefined);
        const post = await findPost(tx, body.postId);
        if (!post.ok) return post;
        await pinDid(tx, actor, admitted.value.didToPin);
        await removeRepost(tx, { postId: post.value.id, actorKey: formatActorUrl(actor) });
        return ok(undefined);
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
      if (holdsForEvidence(options)) {
        return held.follow(sourceDomain, body, rawBody, actor, INTERACTION_MESSAGES.follow);
      }
      const outcome = await commitIfOk(async (tx) => {
        if (!(await claim(tx, actor.domain, follow.interactionId, 'follow'))) return ok(false);
        const found = await findUser(tx, body.targetHandle);
        if (!found.ok) return found;
        const user = found.value;
        const allowed = await refuseIfBlocked(tx, user.id, actor);
        if (!allowed.ok) return allowed;
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
        if (added) {
          await notify(tx, {
            recipientId: user.id,
            type: 'follow',
            actor: follower,
            at,
            interactionId,
          });
        }
        return ok(true);
      });
      if (!outcome.ok) return outcome;
      if (outcome.value)
        logAccepted('follow', sourceDomain, actor, body.targetHandle, admitted.value);
      return done(INTERACTION_MESSAGES.follow);
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
      const outcome = await commitIfOk(async (tx) => {
        if (!(await claim(tx, actor.domain, unfollow.interactionId, 'unfollow'))) return ok(false);
        const user = await findUser(tx, body.targetHandle);
        if (!user.ok) return user;
        await pinDid(tx, actor, admitted.value.didToPin);
        await removeFollow(tx, {
          followerKey: formatActorUrl(actor),
          followeeKey: localActorKey(user.value.id),
        });
        return ok(true);
      });
      if (!outcome.ok) return outcome;
      if (outcome.value) {
        logAccepted('unfollow', sourceDomain, actor, body.targetHandle, admitted.value);
      }
      return done(INTERACTION_MESSAGES.unfollow);
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
      if (holdsForEvidence(options)) {
        return held.mention(sourceDomain, body, rawBody, actor, INTERACTION_MESSAGES.mention);
      }
      const outcome = await commitIfOk(async (tx) => {
        if (!(await claim(tx, actor.domain, mention.interactionId, 'mention')))
          return ok(undefined);
        const found = await findUser(tx, body.mentionedHandle);
        if (!found.ok) return found;
        const user = found.value;
        const allowed = await refuseIfBlocked(tx, user.id, actor);
        if (!allowed.ok) return allowed;
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
        return ok(undefined);
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
      if (holdsForEvidence(options)) return held.reply(sourceDomain, body, rawBody, actor);
      // A reply is identified by its id on its node: a repeat answers the same replyId.
      const apId = formatSwarmPostId({ domain: reply.nodeDomain, postId: reply.id });
      const outcome = await commitIfOk(async (tx) => {
        const existing = await tx.post.findUnique({ where: { apId }, select: { id: true } });
        if (existing) return ok(existing.id);
        const found = await findPost(tx, body.postId);
        if (!found.ok) return found;
        const parent = found.value;
        const allowed = await refuseIfBlocked(tx, parent.authorId, actor);
        if (!allowed.ok) return allowed;
        const author = await upsertActor(tx, actor, admitted.value.didToPin);
        if (author.kind !== 'remote') throw new Error('a reply author is a remote actor');
        const created = await tx.post.createManyAndReturn({
          data: [
            {
              ...(options.replyId ? { id: options.replyId } : {}),
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
          return ok(winner.id);
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
        return ok(replyId);
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
