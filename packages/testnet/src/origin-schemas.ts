import { z } from 'zod';

// §3 of the origin profile (docs/origin-profile.md): the validation rules of its endpoints.

const handleRule = z.string().regex(/^[a-zA-Z0-9_]{3,20}$/);
const DNS_LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
const nodeDomainRule = z
  .string()
  .max(255)
  .regex(
    new RegExp(`^(?:localhost|127\\.0\\.0\\.1|${DNS_LABEL}(?:\\.${DNS_LABEL})+)(?::\\d{1,5})?$`),
  );
/** zod 4's `uuid()` is the RFC 9562 form (versions 1–8, variant 8–b, nil and max). */
export const uuidRule = z.uuid();
const timestampRule = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/)
  .refine((v) => Number.isFinite(Date.parse(v)), 'not a date');
const urlRule = z.string().refine((v) => {
  try {
    new URL(v);
    return true;
  } catch {
    return false;
  }
}, 'Invalid URL');
const displayNameRule = z.string().min(1).max(50);
export const ORIGIN_CAPABILITIES = [
  'handles',
  'gossip',
  'relay',
  'search',
  'interactions',
] as const;
const capabilitiesRule = z.array(z.enum(ORIGIN_CAPABILITIES));
const blankToAbsent = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const actorFields = {
  actorHandle: handleRule,
  actorDisplayName: displayNameRule,
  actorAvatarUrl: urlRule.optional(),
  actorNodeDomain: nodeDomainRule,
  interactionId: uuidRule,
  timestamp: timestampRule,
};
const undoActorFields = {
  actorHandle: handleRule,
  actorNodeDomain: nodeDomainRule,
  interactionId: uuidRule,
  timestamp: timestampRule,
};

/** §4 bodies. `z.object` strips unknown members, as the origin's validation does. */
export const originSchemas = {
  announce: z.object({
    domain: z.string().min(1),
    name: z.string().optional(),
    description: z.string().optional(),
    publicKey: z.string().optional(),
    softwareVersion: z.string().optional(),
    timestamp: z.string().optional(),
    logoUrl: z.preprocess(blankToAbsent, urlRule.optional()),
    userCount: z.number().optional(),
    postCount: z.number().optional(),
    isNsfw: z.boolean().optional(),
    capabilities: capabilitiesRule.optional(),
    signature: z.string(),
  }),
  gossip: z.object({
    sender: z.string(),
    nodes: z.array(
      z.object({
        domain: z.string(),
        name: z.string().optional(),
        description: z.string().optional(),
        logoUrl: z.string().optional(),
        publicKey: z.string().optional(),
        softwareVersion: z.string().optional(),
        userCount: z.number().optional(),
        postCount: z.number().optional(),
        isNsfw: z.boolean().optional(),
        capabilities: capabilitiesRule.optional(),
        lastSeenAt: z.string().optional(),
      }),
    ),
    handles: z
      .array(
        z.object({
          handle: z.string(),
          did: z.string(),
          nodeDomain: z.string(),
          updatedAt: z.string().optional(),
        }),
      )
      .optional(),
    timestamp: z.string(),
    since: z.string().optional(),
    signature: z.string(),
  }),
  like: z.object({
    postId: uuidRule,
    like: z.object(actorFields),
    signature: z.string().min(1),
  }),
  unlike: z.object({ postId: uuidRule, unlike: z.object(undoActorFields), signature: z.string() }),
  repost: z.object({
    postId: uuidRule,
    repost: z.object({ ...actorFields, repostId: uuidRule }),
    signature: z.string().min(1),
  }),
  unrepost: z.object({
    postId: uuidRule,
    unrepost: z.object(undoActorFields),
    signature: z.string(),
  }),
  follow: z.object({
    targetHandle: handleRule,
    follow: z.object({
      followerHandle: handleRule,
      followerDisplayName: displayNameRule,
      followerAvatarUrl: urlRule.optional(),
      followerBio: z.string().max(500).optional(),
      followerNodeDomain: nodeDomainRule,
      interactionId: uuidRule,
      timestamp: timestampRule,
    }),
    signature: z.string().min(1),
  }),
  unfollow: z.object({
    targetHandle: handleRule,
    unfollow: z.object({
      followerHandle: handleRule,
      followerNodeDomain: nodeDomainRule,
      interactionId: uuidRule,
      timestamp: timestampRule,
    }),
    signature: z.string(),
  }),
  mention: z.object({
    mentionedHandle: handleRule,
    mention: z.object({
      ...actorFields,
      postId: uuidRule,
      postContent: z.string().max(10_000),
    }),
    signature: z.string(),
  }),
  replies: z.object({
    postId: uuidRule,
    reply: z.object({
      id: z.string(),
      content: z.string(),
      createdAt: z.string(),
      author: z.object({
        handle: z.string(),
        displayName: z.string().nullable().optional(),
        avatarUrl: z.string().optional(),
        did: z.string().optional(),
        publicKey: z.string().optional(),
      }),
      nodeDomain: z.string(),
      mediaUrls: z.array(z.string()).optional(),
    }),
  }),
} as const;

export type OriginInteractionKind =
  'like' | 'unlike' | 'repost' | 'unrepost' | 'follow' | 'unfollow' | 'mention';
export type OriginEndpoint = OriginInteractionKind | 'announce' | 'gossip' | 'replies';

/** §2 table: where the signer domain is read from. */
export function signerDomainOf(kind: OriginInteractionKind, body: Record<string, unknown>): string {
  const inner = body[kind] as Record<string, string>;
  return kind === 'follow' || kind === 'unfollow'
    ? (inner.followerNodeDomain ?? '')
    : (inner.actorNodeDomain ?? '');
}
