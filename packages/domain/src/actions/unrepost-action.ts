import { removeRepost } from '../interactions/interaction-effects.ts';
import { withCapability } from '../registry/capabilities.ts';
import type { ActionDeps } from './action-support.ts';
import type { InteractionKit } from './interaction-kit.ts';
import { createUndoAction } from './undo-action.ts';

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

/** A local user takes a repost back; nodes that do not take an unrepost keep it counted. */
export function createUnrepostAction(kit: InteractionKit) {
  return createUndoAction(kit, {
    undo: 'unrepost',
    of: 'repost',
    remove: removeRepost,
    takenBy: (domain) => takesUnrepost(kit.deps, domain),
  });
}
