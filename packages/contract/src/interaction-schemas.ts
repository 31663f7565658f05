import { z } from 'zod';
import { replySchema } from './content-schemas.ts';
import { postIdSchema, remoteHandleSchema } from './ids.ts';
import { domainSchema } from './node-domain.ts';
import {
  httpUrlSchema,
  interactionIdSchema,
  optionalText,
  optionalUrl,
  signatureSchema,
  timestampSchema,
  uuidSchema,
} from './primitives.ts';

/**
 * Bodies of the interaction receiving endpoints, exactly per the spec's table. `signature` (the
 * acting user's, docs/protocol.md) is required on like, unlike and repost, optional elsewhere.
 * Verify signatures over the raw JSON body, not over a parsed one: parsing drops unknown
 * members and normalises values, which would change the signed bytes.
 */

const actor = {
  actorHandle: remoteHandleSchema,
  actorDisplayName: optionalText(),
  actorAvatarUrl: optionalUrl(),
  actorNodeDomain: domainSchema,
  interactionId: interactionIdSchema,
  timestamp: timestampSchema,
};

export const likeBodySchema = z.object({
  postId: uuidSchema,
  like: z.object(actor),
  signature: signatureSchema,
});
export type LikeBody = z.output<typeof likeBodySchema>;

export const unlikeBodySchema = z.object({
  postId: uuidSchema,
  unlike: z.object({
    actorHandle: actor.actorHandle,
    actorNodeDomain: actor.actorNodeDomain,
    interactionId: actor.interactionId,
    timestamp: actor.timestamp,
  }),
  signature: signatureSchema,
});
export type UnlikeBody = z.output<typeof unlikeBodySchema>;

export const repostBodySchema = z.object({
  postId: uuidSchema,
  repost: z.object({ ...actor, repostId: postIdSchema }),
  signature: signatureSchema,
});
export type RepostBody = z.output<typeof repostBodySchema>;

export const followBodySchema = z.object({
  targetHandle: remoteHandleSchema,
  follow: z.object({
    followerHandle: remoteHandleSchema,
    followerDisplayName: optionalText(),
    followerAvatarUrl: optionalUrl(),
    followerBio: optionalText(),
    followerNodeDomain: domainSchema,
    interactionId: interactionIdSchema,
    timestamp: timestampSchema,
  }),
  signature: signatureSchema.optional(),
});
export type FollowBody = z.output<typeof followBodySchema>;

export const unfollowBodySchema = z.object({
  targetHandle: remoteHandleSchema,
  unfollow: z.object({
    followerHandle: remoteHandleSchema,
    followerNodeDomain: domainSchema,
    interactionId: interactionIdSchema,
    timestamp: timestampSchema,
  }),
  signature: signatureSchema.optional(),
});
export type UnfollowBody = z.output<typeof unfollowBodySchema>;

export const mentionBodySchema = z.object({
  mentionedHandle: remoteHandleSchema,
  mention: z.object({ ...actor, postId: postIdSchema, postContent: z.string() }),
  signature: signatureSchema.optional(),
});
export type MentionBody = z.output<typeof mentionBodySchema>;

/** `POST /api/swarm/replies` body. */
export const replyBodySchema = z.object({
  postId: uuidSchema,
  // The reply as `GET /api/swarm/replies` lists it, without counters, with its node and media.
  reply: replySchema.pick({ id: true, content: true, createdAt: true, author: true }).extend({
    nodeDomain: domainSchema,
    mediaUrls: z.array(httpUrlSchema).default([]),
  }),
  signature: signatureSchema.optional(),
});
export type ReplyBody = z.output<typeof replyBodySchema>;

/** Answer of every interaction endpoint except replies. */
export const interactionResponseSchema = z.object({
  success: z.literal(true),
  message: optionalText(),
});
export type InteractionResponse = z.output<typeof interactionResponseSchema>;

/** Answer of `POST /api/swarm/replies`. */
export const replyResponseSchema = z.object({
  success: z.literal(true),
  replyId: postIdSchema,
});
export type ReplyResponse = z.output<typeof replyResponseSchema>;

/** Interaction kinds → body schema, for routers that dispatch on the path's last segment. */
export const INTERACTION_BODY_SCHEMAS = {
  like: likeBodySchema,
  unlike: unlikeBodySchema,
  repost: repostBodySchema,
  follow: followBodySchema,
  unfollow: unfollowBodySchema,
  mention: mentionBodySchema,
} as const;
export type InteractionKind = keyof typeof INTERACTION_BODY_SCHEMAS;
export const INTERACTION_KINDS = Object.keys(INTERACTION_BODY_SCHEMAS) as InteractionKind[];
