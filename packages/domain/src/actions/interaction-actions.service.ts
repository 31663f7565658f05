// Each action is a file of its own (like-action.ts, unlike-action.ts, repost-action.ts,
// unrepost-action.ts, follow-action.ts, unfollow-action.ts) over what they share (interaction-kit.ts) and the
// checks of a user's signature (signed-interaction.ts).

import { ok, type Result } from '@swarm/contract';
import { refuse } from '../refusal.ts';
import type { ActionResult } from '../views/index.ts';
import type { ActionDeps } from './action-support.ts';
import { createFollowAction } from './follow-action.ts';
import {
  createInteractionKit,
  type InteractionInput,
  type PersonInput,
} from './interaction-kit.ts';
import { createLikeAction } from './like-action.ts';
import { createRepostAction } from './repost-action.ts';
import { NO_SIGNING_KEY, type SignedKind } from './signed-interaction.ts';
import { createUnfollowAction } from './unfollow-action.ts';
import { createUnlikeAction } from './unlike-action.ts';
import type { Refusal } from '../refusal.ts';
import { createUnrepostAction } from './unrepost-action.ts';

export type { InteractionInput, PersonInput } from './interaction-kit.ts';
export type {
  AppSigner,
  PreparedForSigning,
  SignedBody,
  SignedKind,
} from './signed-interaction.ts';

/**
 * Likes, reposts, their undos and follows by a local user, on this node's posts and people or on
 * another node's. Locally the effects are those of the inbound receivers (same helpers); for a
 * remote target the local record (like/repost row on the post's copy, pending follow) and the
 * outbox row are one transaction, then the delivery is attempted at once.
 */

export type PreparedInteraction =
  | { local: true }
  | {
      local: false;
      action: SignedKind;
      targetDomain: string;
      /** Sign exactly this (without a `signature` member) and send it back with the signature. */
      body: Record<string, unknown>;
    };

export interface InteractionActions {
  prepare(
    userId: string,
    input: { kind: SignedKind; postId: string },
  ): Promise<Result<PreparedInteraction, Refusal>>;
  like(userId: string, input: InteractionInput): Promise<Result<ActionResult, Refusal>>;
  unlike(userId: string, input: InteractionInput): Promise<Result<ActionResult, Refusal>>;
  repost(userId: string, input: InteractionInput): Promise<Result<ActionResult, Refusal>>;
  unrepost(userId: string, input: InteractionInput): Promise<Result<ActionResult, Refusal>>;
  /** `sign`: an app's follow, signed by `(p) => appDelegations.signInteraction(grant, p)`. */
  follow(userId: string, input: PersonInput): Promise<Result<ActionResult, Refusal>>;
  unfollow(userId: string, input: PersonInput): Promise<Result<ActionResult, Refusal>>;
}

export function createInteractionActions(deps: ActionDeps): InteractionActions {
  const kit = createInteractionKit(deps);
  return {
    async prepare(userId, input) {
      const begun = await kit.begin(userId, input.postId);
      if (!begun.ok) return begun;
      const { user, target } = begun.value;
      if (target.kind === 'local') return ok({ local: true });
      if (!user.did) return refuse('INVALID_REQUEST', NO_SIGNING_KEY);
      return ok({
        local: false,
        action: input.kind,
        targetDomain: target.domain,
        body: kit.bodyFor(input.kind, user, target),
      });
    },
    like: createLikeAction(kit),
    unlike: createUnlikeAction(kit),
    repost: createRepostAction(kit),
    unrepost: createUnrepostAction(kit),
    follow: createFollowAction(kit),
    unfollow: createUnfollowAction(kit),
  };
}
