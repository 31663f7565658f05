import { ok, type Result } from '@swarm/contract';
import type { Tx } from '../refusal.ts';
import type { ActionResult } from '../views/index.ts';
import { localEffectActor } from './action-support.ts';
import { nothing, type InteractionInput, type InteractionKit } from './interaction-kit.ts';
import type { Refusal } from '../refusal.ts';

/** A local user likes a post: here, or on another node (signed, then delivered). */
export function createLikeAction(kit: InteractionKit) {
  const { clock } = kit.deps;
  return async function like(
    userId: string,
    input: InteractionInput,
  ): Promise<Result<ActionResult, Refusal>> {
    const begun = await kit.begin(userId, input.postId);
    if (!begun.ok) return begun;
    const { user, target } = begun.value;
    const actor = localEffectActor(user);
    const at = clock.now();
    const like = (postId: string, interactionId: string | null, tx?: Tx) =>
      kit.applyToPost('like', { postId, actor: { local: actor }, interactionId, at }, tx);
    if (target.kind === 'local') {
      // One statement: the like, the count and the author's notification, or nothing again.
      await like(target.postId, null);
      return ok(nothing);
    }
    return kit.onRemoteCopy(
      'like',
      user,
      target,
      input,
      async (tx, postId, { interactionId }) => (await like(postId, interactionId, tx)).added,
    );
  };
}
