import { z } from 'zod';
import { delegationSchema } from './delegation-schemas.ts';
import { postIdSchema, remoteHandleSchema } from './ids.ts';
import { domainSchema } from './node-domain.ts';
import {
  count,
  didSchema,
  flag,
  httpUrlSchema,
  optionalText,
  optionalUrl,
  timestampSchema,
} from './primitives.ts';

/**
 * `POST /api/swarm/inbox`: a node hands the nodes of its users' followers each new post
 * (docs/protocol.md "Post delivery"). Two dialects share the path:
 * - ours (capability `posts`): node-signed in the headers like every request of our profile; the
 *   author's own signature over `post` travels as `postSignature`; `visibility` and `counts` are
 *   ours;
 * - the origin's: the node signature is the body's `signature`, over the body without it.
 * Bounded like every body a peer can send: text lengths, media count, body bytes.
 */

export const POST_PUSH_LIMITS = {
  bodyBytes: 64 * 1024,
  contentChars: 10_000,
  media: 10,
  linkPreviewMedia: 10,
} as const;

const pushedMediaSchema = z.object({
  url: httpUrlSchema,
  mimeType: optionalText(),
  altText: optionalText(),
});

const linkPreviewMediaSchema = z.object({
  url: httpUrlSchema,
  width: z.number().int().nonnegative().optional(),
  height: z.number().int().nonnegative().optional(),
  mimeType: z.string().max(255).optional(),
});

/** The post as the origin pushes it; ours adds `visibility`. Absent values are left out. */
const pushedPostFields = {
  id: postIdSchema,
  content: z.string().max(POST_PUSH_LIMITS.contentChars),
  createdAt: timestampSchema,
  isNsfw: flag(),
  replyToId: z.string().max(512).optional(),
  repostOfId: z.string().max(512).optional(),
  media: z.array(pushedMediaSchema).max(POST_PUSH_LIMITS.media).optional(),
  linkPreviewUrl: optionalUrl(),
  linkPreviewTitle: z.string().max(500).optional(),
  linkPreviewDescription: z.string().max(2000).optional(),
  linkPreviewImage: optionalUrl(),
  linkPreviewType: z.enum(['card', 'image', 'gallery', 'video']).optional(),
  linkPreviewVideoUrl: optionalUrl(),
  linkPreviewMedia: z
    .array(linkPreviewMediaSchema)
    .max(POST_PUSH_LIMITS.linkPreviewMedia)
    .optional(),
};

const pushedAuthorFields = {
  handle: remoteHandleSchema,
  displayName: z.string().max(100).optional(),
  avatarUrl: optionalUrl(),
  isNsfw: flag(),
};

/** The origin's push: node signature in the body (origin canonical JSON, body without it). */
export const originPostPushSchema = z.object({
  post: z.object(pushedPostFields),
  author: z.object(pushedAuthorFields),
  nodeDomain: domainSchema,
  timestamp: timestampSchema,
  signature: z.string().min(1).max(512),
});
export type OriginPostPush = z.output<typeof originPostPushSchema>;

export const pushedPostSchema = z.object({
  ...pushedPostFields,
  visibility: z.enum(['public', 'followers']).default('public'),
});
export type PushedPost = z.output<typeof pushedPostSchema>;

/** Ours: node-signed in the headers; `postSignature` is the author's user signature. */
export const postPushSchema = z.object({
  post: pushedPostSchema,
  author: z.object({ ...pushedAuthorFields, did: didSchema.optional() }),
  /** Outside the author's signature: the node updates them by pushing the post again. */
  counts: z
    .object({ likesCount: count(), repostsCount: count(), repliesCount: count() })
    .optional(),
  nodeDomain: domainSchema,
  timestamp: timestampSchema,
  /**
   * User signature (docs/protocol.md "User signatures") over `{action: 'post', targetDomain:
   * nodeDomain, body: post}`: made once in the author's browser, the same for every receiver.
   * Absent when the author has no signing key; required by receivers that pinned their did.
   */
  postSignature: z.string().min(1).max(512).optional(),
  /**
   * When an app posted for the author: the author's delegation to the app key that made
   * `postSignature` (docs/protocol.md "App delegations"). Sent only to nodes that list
   * `delegations`.
   */
  postDelegation: delegationSchema.optional(),
});
export type PostPush = z.output<typeof postPushSchema>;

/** What a receiver answers: the copy's id there. */
export const postPushAnswerSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  postId: z.string(),
});
export type PostPushAnswer = z.output<typeof postPushAnswerSchema>;
