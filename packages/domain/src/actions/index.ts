import type { ActionDeps } from './action-support.ts';
import {
  createInteractionActions,
  type InteractionActions,
} from './interaction-actions.service.ts';
import { createPostActions, type PostActions } from './post-actions.service.ts';

export * from './action-support.ts';
export * from './interaction-actions.service.ts';
export * from './post-actions.service.ts';
export * from './post-input.ts';
export { POST_PUSH_MAX_NODES } from './post-fan-out.ts';

/** What a signed-in user does (`NodeContext.actions`). */
export interface ActionServices {
  posts: PostActions;
  interactions: InteractionActions;
}

export function createActionServices(deps: ActionDeps): ActionServices {
  return { posts: createPostActions(deps), interactions: createInteractionActions(deps) };
}
