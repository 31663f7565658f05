import type { ErrorCode, Result } from '@swarm/contract';
import type { Refusal } from '../refusal.ts';
import type { PeerServiceDeps } from '../peers/service-deps.ts';

// What the receiver of peers' interactions (inbound-interaction.service.ts) and its parts
// (verification, effects, origin holds) share: its answers, options and dependencies.

/** The refusals an interaction can meet (401, 403, 404); bad bodies are refused at the edge. */
export type InboundInteractionErrorCode = Extract<
  ErrorCode,
  'INVALID_SIGNATURE' | 'FORBIDDEN' | 'POST_NOT_FOUND' | 'USER_NOT_FOUND' | 'RATE_LIMITED'
>;

export type InboundInteractionError = Refusal<InboundInteractionErrorCode>;

export type InteractionOutcome = Result<{ message: string }, InboundInteractionError>;
export type ReplyOutcome = Result<{ replyId: string }, InboundInteractionError>;

/**
 * How the request was authenticated. `origin`: a peer of the origin profile signed the body with
 * its node key (docs/protocol.md "Peers of the origin profile"); its `signature` member is that
 * node signature, and there is no user signature to check: the node speaks for its users.
 */
export interface InboundOptions {
  profile?: 'swarm' | 'origin';
  /**
   * Origin profile: the sender's own data confirmed it (origin-confirmation.service.ts), so it
   * applies now; without it a follow, mention or reply is held (origin-holds.ts).
   */
  confirmed?: boolean;
  /** A confirmed reply: the id it was given when it was held. */
  replyId?: string;
}

export type InboundInteractionDeps = PeerServiceDeps & {
  originConfirmation?: Partial<OriginConfirmationOptions>;
};

/** The short texts of the `{ success: true, message }` answers (the same for a repeat). */
export const INTERACTION_MESSAGES = {
  like: 'Like received',
  unlike: 'Unlike received',
  repost: 'Repost received',
  unrepost: 'Unrepost received',
  follow: 'Follow received',
  unfollow: 'Unfollow received',
  mention: 'Mention received',
} as const;

export interface OriginConfirmationOptions {
  /** Held effects per sending node; beyond, 429. */
  maxPendingPerNode: number;
  /** Held effects in all; beyond, 429. */
  maxPendingTotal: number;
  /** The first look at the evidence, after receipt (the sender's own write settles first). */
  firstAttemptDelayMs: number;
  /** An effect whose evidence cannot be read (sender down, no budget) is dropped after this. */
  maxPendingMs: number;
  /** Evidence fetches per sending node per minute (cached answers are free). */
  fetchesPerNodePerMinute: number;
  /** Held effects looked at in one batch. */
  batchSize: number;
}

export const ORIGIN_CONFIRMATION: OriginConfirmationOptions = {
  maxPendingPerNode: 200,
  maxPendingTotal: 5_000,
  firstAttemptDelayMs: 5_000,
  maxPendingMs: 60 * 60_000,
  fetchesPerNodePerMinute: 30,
  batchSize: 50,
};
