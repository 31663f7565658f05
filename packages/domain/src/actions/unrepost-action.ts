import { ok, type Result } from '@swarm/contract';
import { removeRepost } from '../interactions/interaction-effects.ts';
import { withCapability } from '../registry/capabilities.ts';
import { inTransaction, type Refusal } from '../refusal.ts';
import type { ActionResult } from '../views/index.ts';
import { localKey, type ActionDeps } from './action-support.ts';
import { nothing, type InteractionInput, type InteractionKit } from './interaction-kit.ts';

/**
 * Whether `domain` takes an unrepost: a node of ours that advertises the capability, or a node
 * of the origin profile (the endpoint is its own). Others keep the repost counted, as before
 * the undo existed. Asked before the transaction: it may read the peer's info.
 */
async function takesUnrepost(deps: ActionDeps, domain: string): Promise<boolean> {
  const { told } = await withCapability(deps, [domain], 'unrepost');
  if (told.length > 0) return true;
  const row = await deps.db.prisma.swarmNode.findUnique({
    where: { domain },
    select: { protocolProfile: true },
  });
  return row?.protocolProfile === 'origin';
}

/** A local user takes a repost back: here, or on another node (signed, unless never sent). */
export function createUnrepostAction(kit: InteractionKit) {
  const { db } = kit.deps;
  return async function unrepost(
    userId: string,
    input: InteractionInput,
  ): Promise<Result<ActionResult, Refusal>> {
    const begun = await kit.begin(userId, input.postId);
    if (!begun.ok) return begun;
    const { user, target } = begun.value;
    const actorKey = localKey(user);
    if (target.kind === 'local') {
      await inTransaction(db, (tx) => removeRepost(tx, { postId: target.postId, actorKey }));
      return ok(nothing);
    }
    const checked = await kit.verifySigned('unrepost', user, target, input.signed);
    if (!checked.ok) return checked;
    const copyId = target.copyId;
    if (!copyId) return ok(nothing); // never reposted here: nothing to undo
    const delivered = await takesUnrepost(kit.deps, target.domain);
    const outcome = await inTransaction<string | null>(db, async (tx) => {
      const existing = await kit.recordOf(tx, 'repost', copyId, actorKey);
      if (!existing || !(await removeRepost(tx, { postId: copyId, actorKey }))) return null;
      return kit.undoRemotely(tx, existing.interactionId, async () =>
        delivered ? kit.enqueueSigned(tx, 'unrepost', user, target, checked.value) : null,
      );
    });
    return kit.settled(target.domain, outcome);
  };
}
