import { ok } from '@swarm/contract';
import { addLike, notify } from '../interactions/interaction-effects.ts';
import { inTransaction } from '../refusal.ts';
import type { ActionResult } from '../views/index.ts';
import { localEffectActor, type ActionOutcome } from './action-support.ts';
import { nothing, type InteractionInput, type InteractionKit } from './interaction-kit.ts';

/** A local user likes a post: here, or on another node (signed, then delivered). */
export function createLikeAction(kit: InteractionKit) {
  const { db, clock } = kit.deps;
  return async function like(
    userId: string,
    input: InteractionInput,
  ): Promise<ActionOutcome<ActionResult>> {
    const begun = await kit.begin(userId, input.postId);
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
    return kit.onRemoteCopy('like', user, target, input, (tx, postId, { interactionId }) =>
      addLike(tx, { postId, actor, interactionId, at }),
    );
  };
}
