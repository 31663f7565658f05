import { ok, type Result } from '@swarm/contract';
import { removeLike } from '../interactions/interaction-effects.ts';
import { inTransaction } from '../refusal.ts';
import type { ActionResult } from '../views/index.ts';
import { localKey } from './action-support.ts';
import { nothing, type InteractionInput, type InteractionKit } from './interaction-kit.ts';
import type { Refusal } from '../refusal.ts';

/** A local user takes a like back: here, or on another node (signed, unless never sent). */
export function createUnlikeAction(kit: InteractionKit) {
  const { db } = kit.deps;
  return async function unlike(
    userId: string,
    input: InteractionInput,
  ): Promise<Result<ActionResult, Refusal>> {
    const begun = await kit.begin(userId, input.postId);
    if (!begun.ok) return begun;
    const { user, target } = begun.value;
    const actorKey = localKey(user);
    if (target.kind === 'local') {
      await inTransaction(db, (tx) => removeLike(tx, { postId: target.postId, actorKey }));
      return ok(nothing);
    }
    const checked = await kit.verifySigned('unlike', user, target, input.signed);
    if (!checked.ok) return checked;
    const copyId = target.copyId;
    if (!copyId) return ok(nothing); // never liked here: nothing to undo
    const outcome = await inTransaction<string | null>(db, async (tx) => {
      const existing = await kit.recordOf(tx, 'like', copyId, actorKey);
      if (!existing || !(await removeLike(tx, { postId: copyId, actorKey }))) return null;
      return kit.undoRemotely(tx, existing.interactionId, () =>
        kit.enqueueSigned(tx, 'unlike', user, target, checked.value),
      );
    });
    return kit.settled(target.domain, outcome);
  };
}
