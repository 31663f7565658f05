import { z } from 'zod';
import {
  authorHandleSchema,
  handleAddressSchema,
  postIdSchema,
  remoteHandleSchema,
} from './ids.ts';
import { domainSchema } from './node-domain.ts';
import { encryptionKeySchema } from './message-schemas.ts';
import type { Result } from './result.ts';
import { err } from './result.ts';
import {
  count,
  countSchema,
  didSchema,
  flag,
  httpUrlSchema,
  nullableUrl,
  optionalMember,
  optionalText,
  optionalUrl,
  parseWith,
  timestampSchema,
} from './primitives.ts';

export const mediaItemSchema = z.object({
  url: httpUrlSchema,
  mimeType: optionalText(),
  altText: optionalText(),
});
export type MediaItem = z.output<typeof mediaItemSchema>;

const mediaList = () => z.array(mediaItemSchema).default([]);

/**
 * A reference to another post (`replyToId`, `repostOfId`): its id on any node or a
 * `swarm:{domain}:{postId}`; null when there is none (missing and "" read as null).
 */
const nullablePostRef = () =>
  z
    .string()
    .max(512)
    .nullish()
    .transform((value) => (value ? value : null))
    .pipe(z.string().nullable());

/** The members every post shape opens with. */
const postStart = { id: postIdSchema, content: z.string(), createdAt: timestampSchema };

/** A post's counters under the spec's plural names (all post shapes but the timeline's). */
const postCounts = { likesCount: count(), repostsCount: count(), repliesCount: count() };

/**
 * Profile of `GET /api/swarm/users/[handle]`. Extras: `did` (the user's did:key, docs/protocol.md)
 * and `publicKey`; both optional because other implementations do not send them.
 */
export const profileSchema = z.object({
  handle: remoteHandleSchema,
  displayName: optionalText(),
  bio: optionalText(),
  avatarUrl: optionalUrl(),
  headerUrl: optionalUrl(),
  website: optionalUrl(),
  followersCount: count(),
  followingCount: count(),
  postsCount: count(),
  createdAt: timestampSchema,
  isBot: flag(),
  nodeDomain: domainSchema,
  did: optionalMember(didSchema),
  publicKey: optionalMember(z.string()),
  /** The account moved (docs/protocol.md "Moving an account"): its new `handle@domain`. */
  movedTo: z
    .unknown()
    .optional()
    .transform((value) => {
      const parsed = handleAddressSchema.safeParse(value);
      return parsed.success ? parsed.data : undefined;
    })
    .pipe(z.string().optional()),
  /** Direct messages: the user's encryption key bound to `did`; a malformed one reads as absent. */
  encryptionKey: z
    .unknown()
    .optional()
    .transform((value) => {
      const parsed = encryptionKeySchema.safeParse(value);
      return parsed.success ? parsed.data : undefined;
    })
    .pipe(encryptionKeySchema.optional()),
});
export type Profile = z.output<typeof profileSchema>;

/** Post as listed in a profile response. */
export const profilePostSchema = z.object({
  ...postStart,
  isNsfw: flag(),
  ...postCounts,
  media: mediaList(),
  linkPreviewUrl: nullableUrl(),
  linkPreviewTitle: optionalText(),
  linkPreviewDescription: optionalText(),
  linkPreviewImage: optionalUrl(),
});
export type ProfilePost = z.output<typeof profilePostSchema>;

/** An author as posts and replies show them. */
const authorFields = {
  handle: authorHandleSchema,
  displayName: optionalText(),
  avatarUrl: optionalUrl(),
};

/** Author object of timeline posts and single posts. */
export const postAuthorSchema = z.object({
  ...authorFields,
  isNsfw: flag(),
});
export type PostAuthor = z.output<typeof postAuthorSchema>;

/** Post as listed in the timeline: note the singular `likeCount`, `repostCount`, `replyCount`. */
export const timelinePostSchema = z.object({
  ...postStart,
  author: postAuthorSchema,
  nodeDomain: domainSchema,
  nodeIsNsfw: flag(),
  isNsfw: flag(),
  likeCount: count(),
  repostCount: count(),
  replyCount: count(),
  media: mediaList(),
  linkPreviewUrl: nullableUrl(),
});
export type TimelinePost = z.output<typeof timelinePostSchema>;

/** `GET /api/swarm/posts/[id]`. */
export const singlePostSchema = z.object({
  ...postStart,
  author: postAuthorSchema,
  nodeDomain: domainSchema,
  isNsfw: flag(),
  ...postCounts,
  media: mediaList(),
  linkPreviewUrl: nullableUrl(),
  replyToId: nullablePostRef(),
  repostOfId: nullablePostRef(),
});
export type SinglePost = z.output<typeof singlePostSchema>;

/** Reply as listed by `GET /api/swarm/replies`; remote authors' handles are `handle@domain`. */
export const replySchema = z.object({
  ...postStart,
  author: z.object(authorFields),
  ...postCounts,
});
export type Reply = z.output<typeof replySchema>;

/**
 * Our `GET /api/swarm/posts/[id]` answer: the spec's bare single post, plus the same post again
 * as `post` and its first replies (spec reply shape) as `replies`, because origin-profile peers
 * read `{ post, replies }` there (docs/protocol.md "Reading origin peers"). Spec readers ignore
 * the two extra members.
 */
export const singlePostAnswerSchema = singlePostSchema.extend({
  post: singlePostSchema,
  replies: z.array(replySchema),
});
export type SinglePostAnswer = z.output<typeof singlePostAnswerSchema>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads a peer's `GET /api/swarm/posts/[id]` answer in the forms seen in the swarm: the bare
 * single post (ours, which also carries `post` and `replies` for origin-profile readers) and
 * `{ post: <single post>, replies? }` (the origin's). The origin's post has no `nodeDomain`:
 * the post is then the asked peer's (`peerDomain`), which is what a post fetched from it is.
 * Its missing `isNsfw`, `replyToId` and `author.isNsfw` read as false / null.
 */
export function parsePeerSinglePost(input: unknown, peerDomain: string): Result<SinglePost> {
  const wrapped = isRecord(input) && !('id' in input) && 'post' in input;
  const post = wrapped ? input.post : input;
  const candidate =
    isRecord(post) && (post.nodeDomain === undefined || post.nodeDomain === null)
      ? { ...post, nodeDomain: peerDomain }
      : post;
  const parsed = parseWith(singlePostSchema, candidate);
  return parsed.ok || !wrapped ? parsed : err(`post: ${parsed.reason}`);
}

/**
 * An entry of a user's list: a post of theirs, or (only when the reader asked with
 * `reposts=true`, docs/protocol.md "Public reads") a repost of theirs: `content: ""` and the
 * reposted post in `repostOfId` (an id on the answering node, or `swarm:{domain}:{postId}`).
 */
export const profileEntrySchema = profilePostSchema.extend({
  repostOfId: z.string().min(1).max(512).nullish(),
});
export type ProfileEntry = z.output<typeof profileEntrySchema>;

/** `GET /api/swarm/users/[handle]` answer. */
export const swarmUserResponseSchema = z.object({
  profile: profileSchema,
  posts: z.array(profileEntrySchema).default([]),
  nodeDomain: domainSchema,
  timestamp: timestampSchema,
});
export type SwarmUserResponse = z.output<typeof swarmUserResponseSchema>;

/**
 * A repost in a peer's user list: the entry's id on that node, its time, and the reposted post
 * as the node names it (an id on that node, or `swarm:{domain}:{postId}`).
 */
export const peerRepostEntrySchema = z.object({
  id: postIdSchema,
  createdAt: timestampSchema,
  repostOfId: z.string().min(1).max(512),
});
export type PeerRepostEntry = z.output<typeof peerRepostEntrySchema>;

/**
 * A peer's `GET /api/swarm/users/[handle]` answer as readers keep it: the origin lists the
 * user's reposts, and ours do when asked (`reposts=true`), as posts with `content: ""` and a
 * `repostOfId`. They are not the user's own posts (the spec's list holds those) and would show
 * as empty posts: `posts` leaves them out and `reposts` names them (docs/architecture.md "Stored
 * remote content", "Reposts"). Otherwise the spec's shape.
 */
const keptUserResponseSchema = swarmUserResponseSchema.extend({
  posts: z.array(profilePostSchema),
  reposts: z.array(peerRepostEntrySchema),
});
export const peerSwarmUserResponseSchema = swarmUserResponseSchema
  .extend({
    posts: z
      .array(profilePostSchema.extend({ repostOfId: z.string().max(512).nullish() }))
      .default([]),
  })
  .transform(({ posts, ...rest }): z.input<typeof keptUserResponseSchema> => ({
    ...rest,
    posts: posts.filter((p) => !p.repostOfId).map(({ repostOfId: _repost, ...p }) => p),
    reposts: posts.flatMap((p) =>
      p.repostOfId ? [{ id: p.id, createdAt: p.createdAt, repostOfId: p.repostOfId }] : [],
    ),
  }))
  .pipe(keptUserResponseSchema);
export type PeerSwarmUserResponse = z.output<typeof peerSwarmUserResponseSchema>;

/** `GET /api/swarm/timeline` answer. */
export const timelineResponseSchema = z.object({
  posts: z.array(timelinePostSchema).default([]),
  nodeDomain: domainSchema,
  nodeIsNsfw: flag(),
  timestamp: timestampSchema,
});
export type TimelineResponse = z.output<typeof timelineResponseSchema>;

/**
 * A peer's `GET /api/swarm/timeline` answer as the crawler keeps it: the origin lists reposts
 * there too (`repostOfId`); the swarm feed holds no reposts, so they are left out.
 */
export const peerTimelineResponseSchema = timelineResponseSchema
  .extend({
    posts: z
      .array(timelinePostSchema.extend({ repostOfId: z.string().max(512).nullish() }))
      .default([]),
  })
  .transform(({ posts, ...rest }): z.input<typeof timelineResponseSchema> => ({
    ...rest,
    posts: posts.filter((p) => !p.repostOfId).map(({ repostOfId: _repost, ...p }) => p),
  }))
  .pipe(timelineResponseSchema);

/** `GET /api/swarm/replies` answer. */
export const repliesResponseSchema = z.object({
  replies: z.array(replySchema).default([]),
  nodeDomain: domainSchema,
});
export type RepliesResponse = z.output<typeof repliesResponseSchema>;

/**
 * A reply as peers list it, read leniently: the spec's shape, or the origin's (singular
 * `likeCount`/`repostCount`/`replyCount`, and the author's domain split out into the reply's
 * `nodeDomain`). Plural names win when both are present.
 */
const peerReplySchema = replySchema.extend({
  likesCount: countSchema.optional(),
  repostsCount: countSchema.optional(),
  repliesCount: countSchema.optional(),
  likeCount: countSchema.optional(),
  repostCount: countSchema.optional(),
  replyCount: countSchema.optional(),
  nodeDomain: domainSchema.optional().catch(undefined),
});

/**
 * Reads a peer's `GET /api/swarm/replies` answer into the spec's shape. An author handle
 * without `@domain` whose reply names another `nodeDomain` than the answering node is that
 * node's user (`handle@nodeDomain`), as the origin lists replies it received from elsewhere.
 */
export const peerRepliesResponseSchema = z
  .object({
    replies: z.array(peerReplySchema).default([]),
    nodeDomain: domainSchema,
  })
  .transform((answer): z.input<typeof repliesResponseSchema> => ({
    nodeDomain: answer.nodeDomain,
    replies: answer.replies.map((reply) => {
      const { likeCount, repostCount, replyCount, nodeDomain, ...rest } = reply;
      const elsewhere =
        nodeDomain !== undefined &&
        nodeDomain !== answer.nodeDomain &&
        !rest.author.handle.includes('@');
      return {
        ...rest,
        author: elsewhere
          ? { ...rest.author, handle: `${rest.author.handle}@${nodeDomain}` }
          : rest.author,
        likesCount: rest.likesCount ?? likeCount ?? 0,
        repostsCount: rest.repostsCount ?? repostCount ?? 0,
        repliesCount: rest.repliesCount ?? replyCount ?? 0,
      };
    }),
  }))
  .pipe(repliesResponseSchema);
