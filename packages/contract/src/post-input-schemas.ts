import { z } from 'zod';
import { httpUrlSchema, signatureSchema, timestampSchema } from './primitives.ts';

/**
 * What a user may post (issue #4: text, up to 4 media by URL with alt text, NSFW flag, link
 * preview fields, a reply target). Shared by the tRPC router, the admin API and the domain
 * service, which validates again because it is also called from there. A wire shape of the
 * browser and of the admin API, so it lives here (docs/architecture.md, "Where a new feature goes").
 */
export const POST_LIMITS = {
  /** Characters (code points). A reply carries the whole text: far below the 64 KiB body cap. */
  contentChars: 5000,
  media: 4,
  altTextChars: 1500,
  mimeTypeChars: 100,
  linkTitleChars: 300,
  linkDescriptionChars: 1000,
  /** Mentions beyond this many in one post are left as plain text (no notification, no delivery). */
  mentions: 20,
} as const;

const chars = (text: string) => Array.from(text).length;

/**
 * A media item of a new post: an image uploaded to this node (`uploadId`, issue #14 "Photos":
 * the node fills in its URL and type) or any image by `url` (issue #4), each with alt text.
 */
export const mediaInputSchema = z
  .object({
    url: httpUrlSchema.optional(),
    uploadId: z.uuid({ message: 'uploadId is the id an upload answered with' }).optional(),
    altText: z
      .string()
      .default('')
      .refine((t) => chars(t) <= POST_LIMITS.altTextChars, {
        message: `alt text is longer than ${POST_LIMITS.altTextChars} characters`,
      }),
    mimeType: z.string().trim().max(POST_LIMITS.mimeTypeChars).optional(),
  })
  .refine((item) => (item.url === undefined) !== (item.uploadId === undefined), {
    message: 'a media item has either a url or an uploadId',
  });

export const linkPreviewInputSchema = z.object({
  url: httpUrlSchema,
  title: z.string().trim().max(POST_LIMITS.linkTitleChars).optional(),
  description: z.string().trim().max(POST_LIMITS.linkDescriptionChars).optional(),
  image: httpUrlSchema.optional(),
});

/**
 * The author's own signature of a new post (docs/protocol.md "Post delivery"): `posts.prepare`
 * reserves the post's `id` and `createdAt` and answers the exact object to sign; the browser
 * signs it with the user's key and sends back the two reserved values and the signature. The
 * node builds the object again from the input and checks the signature over its own copy.
 */
export const postSignedSchema = z.object({
  id: z.uuid({ message: 'the signed post id is the one prepare answered' }),
  createdAt: timestampSchema,
  signature: signatureSchema,
  /**
   * When an app posts (docs/protocol.md "App delegations"): the id of the author's delegation
   * whose app key made `signature` (one of this node's, answered by `appDelegations.signPost`).
   */
  delegationId: z.uuid().optional(),
});
export type PostSigned = z.output<typeof postSignedSchema>;

/** The fields of a new post, without the cross-field rule (for callers that add fields). */
export const postInputObject = z.object({
  content: z.string().refine((t) => chars(t) <= POST_LIMITS.contentChars, {
    message: `a post is at most ${POST_LIMITS.contentChars} characters`,
  }),
  media: z
    .array(mediaInputSchema)
    .max(POST_LIMITS.media, { message: `at most ${POST_LIMITS.media} media items` })
    .default([]),
  isNsfw: z.boolean().default(false),
  linkPreview: linkPreviewInputSchema.nullish(),
  /** Our post's UUID, or `swarm:{domain}:{postId}` for a post on another node. */
  replyToId: z.string().min(1).max(600).nullish(),
  /**
   * The author of `replyToId` as the page showed it (`bob@beta.example`): used only when the
   * post's node cannot be asked and nothing else here knows the post (a placeholder copy).
   */
  replyToAuthorAddress: z.string().trim().min(1).max(300).nullish(),
  /**
   * Who may read it: everyone (`public`), everyone with the link but no public list
   * (`unlisted`), or the author's accepted followers only (`followers`).
   */
  visibility: z.enum(['public', 'unlisted', 'followers']).default('public'),
  /** The author's signature over the post as `posts.prepare` made it (see `postSignedSchema`). */
  signed: postSignedSchema.nullish(),
});

export const createPostInputSchema = postInputObject.refine(
  (input) => input.content.trim() !== '' || input.media.length > 0,
  { message: 'a post needs text or at least one media item', path: ['content'] },
);

export type CreatePostInput = z.input<typeof createPostInputSchema>;
export type ParsedPostInput = z.output<typeof createPostInputSchema>;
