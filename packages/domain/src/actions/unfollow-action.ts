import { randomUUID } from 'node:crypto';
import { formatTimestamp, ok, type Result } from '@swarm/contract';
import { removeFollow } from '../interactions/interaction-effects.ts';
import { commitIfOk } from '../refusal.ts';
import { dropPollIfUnfollowed } from '../remote-posts/index.ts';
import type { ActionResult } from '../views/index.ts';
import { localKey } from './action-support.ts';
import { nothing, type InteractionKit, type PersonInput } from './interaction-kit.ts';
import type { Refusal } from '../refusal.ts';

/** A local user stops following someone: here, or on another node (unless never sent). */
export function createUnfollowAction(kit: InteractionKit) {
  const { db, clock, delivery } = kit.deps;
  const self = kit.self;
  return async function unfollow(
    userId: string,
    input: PersonInput,
  ): Promise<Result<ActionResult, Refusal>> {
    const begun = await kit.beginOnPerson(userId, () => kit.targets.known(input.address));
    if (!begun.ok) return begun;
    const { user, followee } = begun.value;
    const followerKey = localKey(user);
    if (followee.kind === 'local') {
      await commitIfOk(db, async (tx) =>
        ok(await removeFollow(tx, { followerKey, followeeKey: localKey({ id: followee.userId }) })),
      );
      return ok(nothing);
    }
    if (!followee.actorUrl) return ok(nothing); // never seen here, so not followed
    const followeeKey = followee.actorUrl;
    const at = clock.now();
    const interactionId = randomUUID();
    const plain = {
      targetHandle: followee.handle,
      unfollow: {
        followerHandle: user.handle,
        followerNodeDomain: self,
        interactionId,
        timestamp: formatTimestamp(at),
      },
    };
    // An app's unfollow: signed where possible (kit.appSigned), before the transaction.
    const body = input.sign
      ? await kit.appSigned(input.sign, {
          action: 'unfollow',
          targetDomain: followee.domain,
          body: plain,
        })
      : plain;
    const outcome = await commitIfOk(db, async (tx) => {
      const removed = await removeFollow(tx, { followerKey, followeeKey });
      if (!removed) return ok(null);
      await dropPollIfUnfollowed(tx, followee);
      const sent = await kit.undoRemotely(tx, removed.interactionId, () =>
        delivery.enqueue(tx, {
          targetDomain: followee.domain,
          kind: 'unfollow',
          interactionId,
          createdById: user.id,
          body,
        }),
      );
      return ok(sent);
    });
    return kit.settled(followee.domain, outcome);
  };
}
