import { ok, type Result } from '@swarm/contract';
import { commitIfOk, type Refusal, type Tx } from '../refusal.ts';
import type { ActionResult } from '../views/index.ts';
import { localKey } from './action-support.ts';
import { nothing, type InteractionInput, type InteractionKit } from './interaction-kit.ts';

/** What differs between taking back a like and taking back a repost. */
export interface UndoSpec {
  undo: 'unlike' | 'unrepost';
  /** The interaction it takes back. */
  of: 'like' | 'repost';
  /** Removes the row (and counts it down); false when there was none. */
  remove(tx: Tx, input: { postId: string; actorKey: string }): Promise<boolean>;
  /** Whether the post's node takes the undo; asked before the transaction (it may read the peer). */
  takenBy?(domain: string): Promise<boolean>;
}

/** A local user takes an interaction back: here, or on another node (signed, unless never sent). */
export function createUndoAction(kit: InteractionKit, spec: UndoSpec) {
  const { db } = kit.deps;
  return async function undo(
    userId: string,
    input: InteractionInput,
  ): Promise<Result<ActionResult, Refusal>> {
    const begun = await kit.begin(userId, input.postId);
    if (!begun.ok) return begun;
    const { user, target } = begun.value;
    const actorKey = localKey(user);
    if (target.kind === 'local') {
      await commitIfOk(db, async (tx) =>
        ok(await spec.remove(tx, { postId: target.postId, actorKey })),
      );
      return ok(nothing);
    }
    const checked = await kit.verifySigned(spec.undo, user, target, input.signed);
    if (!checked.ok) return checked;
    const copyId = target.copyId;
    if (!copyId) return ok(nothing); // never done here: nothing to undo
    const delivered = spec.takenBy ? await spec.takenBy(target.domain) : true;
    const outcome = await commitIfOk(db, async (tx) => {
      const existing = await kit.recordOf(tx, spec.of, copyId, actorKey);
      if (!existing || !(await spec.remove(tx, { postId: copyId, actorKey }))) return ok(null);
      return ok(
        await kit.undoRemotely(tx, existing.interactionId, async () =>
          delivered ? kit.enqueueSigned(tx, spec.undo, user, target, checked.value) : null,
        ),
      );
    });
    return kit.settled(target.domain, outcome);
  };
}
