import type { ActionDeps } from './action-support.ts';
import {
  createInteractionActions,
  type InteractionActions,
} from './interaction-actions.service.ts';
import { createPostActions, type PostActions } from './post-actions.service.ts';
import { createPostKeys, type PostKeys } from './post-keys.ts';
import { createPostRepush, type PostRepush } from './post-repush.ts';

export * from './action-support.ts';
export * from './interaction-actions.service.ts';
export * from './post-actions.service.ts';
export * from './post-input.ts';
export * from './post-keys.ts';
export { POST_PUSH_MAX_NODES } from './post-fan-out.ts';
export { REPUSH_INTERVAL_MS, REPUSH_THRESHOLDS, type PostRepush } from './post-repush.ts';

/** What a signed-in user does (`NodeContext.actions`). */
export interface ActionServices {
  posts: PostActions;
  interactions: InteractionActions;
  /** Posts pushed again as their counts grow (the outbox worker runs it before each batch). */
  repush: PostRepush;
  /** Apps' `Idempotency-Key`s of new posts, shared by the node's replicas. */
  postKeys: PostKeys;
}

export function createActionServices(
  deps: ActionDeps & { postKeyWaitMs?: number },
): ActionServices {
  return {
    posts: createPostActions(deps),
    interactions: createInteractionActions(deps),
    repush: createPostRepush(deps),
    postKeys: createPostKeys({ ...deps, waitMs: deps.postKeyWaitMs }),
  };
}
