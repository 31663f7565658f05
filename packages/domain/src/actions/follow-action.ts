import { randomUUID } from 'node:crypto';
import { formatTimestamp, ok, type Result } from '@swarm/contract';
import { addFollow, notify } from '../interactions/interaction-effects.ts';
import { commitIfOk, refuse } from '../refusal.ts';
import { schedulePoll } from '../remote-posts/index.ts';
import type { ActionResult } from '../views/index.ts';
import { localEffectActor, localKey, wireUrlMember } from './action-support.ts';
import {
  nothing,
  repeated,
  type InteractionKit,
  type PersonInput,
  type Repeat,
} from './interaction-kit.ts';
import type { Refusal } from '../refusal.ts';

/** A local user follows someone: here (accepted at once), or on another node (pending). */
export function createFollowAction(kit: InteractionKit) {
  const { db, clock, delivery } = kit.deps;
  const self = kit.self;
  return async function follow(
    userId: string,
    input: PersonInput,
  ): Promise<Result<ActionResult, Refusal>> {
    const begun = await kit.beginOnPerson(userId, () => kit.targets.person(input.address));
    if (!begun.ok) return begun;
    const { user, followee } = begun.value;
    const actor = localEffectActor(user);
    const at = clock.now();
    if (followee.kind === 'local') {
      if (followee.userId === user.id)
        return refuse('INVALID_REQUEST', 'You cannot follow yourself.');
      await commitIfOk(db, async (tx) => {
        const added = await addFollow(tx, {
          follower: actor,
          followee: { kind: 'local', userId: followee.userId },
          state: 'accepted',
          interactionId: null,
          at,
        });
        if (added) await notify(tx, { recipientId: followee.userId, type: 'follow', actor, at });
        return ok(null);
      });
      return ok(nothing);
    }
    const interactionId = randomUUID();
    const plain = {
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
    };
    // An app's follow goes signed by its key under the person's delegation where that is
    // possible, else unsigned as our pages' follows (kit.appSigned).
    const body = input.sign
      ? await kit.appSigned(input.sign, {
          action: 'follow',
          targetDomain: followee.domain,
          body: plain,
        })
      : plain;
    const outcome = await commitIfOk(db, async (tx): Promise<Result<string, Repeat>> => {
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
        return repeated(
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
      // Their posts are read in the background from now on, the first time right away.
      await schedulePoll(tx, followee.remoteActorId, at);
      const queued = await delivery.enqueue(tx, {
        targetDomain: followee.domain,
        kind: 'follow',
        interactionId,
        createdById: user.id,
        body,
      });
      return ok(queued);
    });
    return kit.settled(followee.domain, outcome);
  };
}
