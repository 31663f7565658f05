import { z } from 'zod';
import { didSchema, signatureSchema, timestampSchema, uuidSchema } from './primitives.ts';

/**
 * App delegations (docs/protocol.md "App delegations"): a user's statement, signed in their
 * browser with their own key (user action `delegate`, target their own node), that a key their
 * node holds for one app may sign some of their actions until a date. Interactions and posts
 * signed by that app key carry the delegation beside them; receivers check the chain.
 */

/** The actions a delegation may name: never direct messages, never account statements. */
export const DELEGABLE_ACTIONS = [
  'like',
  'unlike',
  'repost',
  'unrepost',
  'follow',
  'unfollow',
  'mention',
  'reply',
  'post',
  'delete-post',
] as const;
export type DelegableAction = (typeof DELEGABLE_ACTIONS)[number];

/** Bounds of a delegation's members (a peer cannot make a receiver read a large one). */
export const DELEGATION_LIMITS = {
  appNameChars: 100,
  /** The longest a delegation may run; ours run DELEGATION_DEFAULT_DAYS. */
  maxDays: 400,
} as const;

/**
 * The delegation as it travels: the signed document and its `signature` member (the user
 * signature of `{action: 'delegate', targetDomain: <the user's domain>, body: <this without
 * signature>}`). Unknown members are kept by readers that verify the raw object.
 */
export const delegationSchema = z.object({
  id: uuidSchema,
  /** `handle@domain` of the user who delegates. */
  user: z.string().min(3).max(300),
  /** The user's did that signs it. */
  did: didSchema,
  /** The app key's public half, as a did:key. */
  appKey: didSchema,
  appName: z.string().min(1).max(DELEGATION_LIMITS.appNameChars),
  actions: z
    .array(z.enum(DELEGABLE_ACTIONS))
    .min(1)
    .max(DELEGABLE_ACTIONS.length)
    .refine((list) => new Set(list).size === list.length, { message: 'actions repeat' }),
  issuedAt: timestampSchema,
  expiresAt: timestampSchema,
  signature: signatureSchema,
});
export type Delegation = z.output<typeof delegationSchema>;

/** `GET /api/swarm/delegations/{id}`: what the user's node says of a delegation now. */
export const DELEGATION_STATES = ['active', 'revoked', 'expired'] as const;
export type DelegationState = (typeof DELEGATION_STATES)[number];

export const delegationStatusSchema = z.object({
  id: uuidSchema,
  state: z.enum(DELEGATION_STATES),
  /** When it was revoked, if it was. */
  revokedAt: timestampSchema.optional(),
  expiresAt: timestampSchema,
});
export type DelegationStatus = z.output<typeof delegationStatusSchema>;

/** `handle@domain` split at its last `@`; null when it is not one. */
export function splitUserAddress(address: string): { handle: string; domain: string } | null {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return null;
  return { handle: address.slice(0, at), domain: address.slice(at + 1) };
}
