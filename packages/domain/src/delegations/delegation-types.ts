import type { Delegation, DelegableAction, PostSigned, Refusal, Result } from '@swarm/contract';

// What the app delegations service (app-delegations.service.ts) and its parts share
// (docs/protocol.md "App delegations").

/** Delegations run this long from consent unless revoked (docs/security.md "App keys"). */
export const DELEGATION_DEFAULT_DAYS = 365;
/** A delegation prepared at consent and not signed within this is swept. */
export const PENDING_DELEGATION_MS = 60 * 60_000;
/** Unsigned delegations one person may have waiting at once (each holds a fresh key). */
export const PENDING_DELEGATIONS_PER_USER = 20;
/**
 * An authorization code lives 10 minutes (packages/auth): a signed delegation whose app holds
 * no token of the person after that was revoked (or never used) and stays revoked.
 */
export const CODE_WINDOW_MS = 10 * 60_000;

/** Which person allowed which app: the two ids a bearer token stands for. */
export interface AppGrant {
  userId: string;
  appId: string;
}

/** What an action asks to be signed (`interactions.prepare` answers this shape). */
export interface PreparedForApp {
  action: DelegableAction;
  targetDomain: string;
  /** Without a `signature` member. */
  body: Record<string, unknown>;
}

/**
 * A body signed with an app key under a delegation: what `interactions.like|unlike|repost|
 * unrepost({ signed })` accept beside a user's own `{ body, signature }`. On the wire it is
 * `{ ...body, delegation, signature }`, the app key's signature covering `delegation` too.
 */
export interface DelegatedBody {
  body: Record<string, unknown>;
  signature: string;
  delegation: Delegation;
}

/** A prepared post signed for an app: `posts.create(userId, { ...input, signed })`. */
export type DelegatedPost = PostSigned & { delegationId: string };

/** What the consent page's browser signs: `userSignaturePayload({action, targetDomain, body})`. */
export interface PreparedDelegation {
  action: 'delegate';
  targetDomain: string;
  body: Omit<Delegation, 'signature'>;
}

/** A stored, signed delegation of this node's, checked for one action now. */
export interface UsableDelegation {
  id: string;
  userId: string;
  appId: string;
  appKeyDid: string;
  document: Delegation;
}

export type DelegationResult<T> = Promise<Result<T, Refusal>>;
