import { removeLike } from '../interactions/interaction-effects.ts';
import type { InteractionKit } from './interaction-kit.ts';
import { createUndoAction } from './undo-action.ts';

/** A local user takes a like back: every node takes an unlike. */
export function createUnlikeAction(kit: InteractionKit) {
  return createUndoAction(kit, { undo: 'unlike', of: 'like', remove: removeLike });
}
