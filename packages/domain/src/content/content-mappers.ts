import {
  formatTimestamp,
  isHttpUrl,
  type MediaItem,
  type PostAuthor,
  type Profile,
  type ProfileEntry,
  type ProfilePost,
  type Reply,
  type SinglePost,
  type TimelinePost,
} from '@swarm/contract';
import type { Prisma } from '@swarm/db';

// The one place where database rows become wire shapes. Every public read selects with the
// `*Select` objects below and maps with the functions next to them, so two endpoints can never
// disagree about what a post or an author looks like. Outbound rule (docs/protocol.md): we send
// the spec's full shape, with URLs that are not absolute http(s) sent as "" (or null).

/** What the mappers need to know about this node. */
export interface NodeFacts {
  domain: string;
  nodeIsNsfw: boolean;
}

export const mediaSelect = {
  url: true,
  mimeType: true,
  altText: true,
  blurhash: true,
} as const satisfies Prisma.MediaItemSelect;

/** Media in display order. */
const orderedMedia = { select: mediaSelect, orderBy: { position: 'asc' } } as const;

export const authorSelect = {
  handle: true,
  displayName: true,
  avatarUrl: true,
  isNsfw: true,
} as const satisfies Prisma.UserSelect;

/** Fields of a post shared by the profile, timeline and single-post shapes. */
export const postSelect = {
  id: true,
  content: true,
  createdAt: true,
  isNsfw: true,
  likesCount: true,
  repostsCount: true,
  repliesCount: true,
  linkPreviewUrl: true,
  linkPreviewTitle: true,
  linkPreviewDescription: true,
  linkPreviewImage: true,
  media: orderedMedia,
} as const satisfies Prisma.PostSelect;

const postRefSelect = { select: { id: true, apId: true } } as const;

/** An entry of a user's list: a post, or a repost naming what it repeats. */
export const profileEntrySelect = {
  ...postSelect,
  repostOf: postRefSelect,
} as const satisfies Prisma.PostSelect;

export const authoredPostSelect = {
  ...postSelect,
  author: { select: authorSelect },
} as const satisfies Prisma.PostSelect;

export const singlePostSelect = {
  ...authoredPostSelect,
  replyTo: postRefSelect,
  repostOf: postRefSelect,
} as const satisfies Prisma.PostSelect;

/** The author of a copy of another node's post. */
export const remoteAuthorSelect = {
  select: { handle: true, nodeDomain: true, displayName: true, avatarUrl: true },
} as const;

export const replySelect = {
  id: true,
  content: true,
  createdAt: true,
  likesCount: true,
  repostsCount: true,
  repliesCount: true,
  author: { select: { handle: true, displayName: true, avatarUrl: true } },
  remoteAuthor: remoteAuthorSelect,
} as const satisfies Prisma.PostSelect;

export const profileUserSelect = {
  handle: true,
  displayName: true,
  bio: true,
  avatarUrl: true,
  headerUrl: true,
  website: true,
  followersCount: true,
  followingCount: true,
  postsCount: true,
  createdAt: true,
  isBot: true,
  did: true,
  movedTo: true,
  encryptionPublicKey: true,
  encryptionKeyCreatedAt: true,
  encryptionKeySignature: true,
} as const satisfies Prisma.UserSelect;

export type MediaRow = Prisma.MediaItemGetPayload<{ select: typeof mediaSelect }>;
export type AuthorRow = Prisma.UserGetPayload<{ select: typeof authorSelect }>;
export type PostRow = Prisma.PostGetPayload<{ select: typeof postSelect }>;
export type ProfileEntryRow = Prisma.PostGetPayload<{ select: typeof profileEntrySelect }>;
export type AuthoredPostRow = Prisma.PostGetPayload<{ select: typeof authoredPostSelect }>;
export type SinglePostRow = Prisma.PostGetPayload<{ select: typeof singlePostSelect }>;
export type ReplyRow = Prisma.PostGetPayload<{ select: typeof replySelect }>;
export type ProfileUserRow = Prisma.UserGetPayload<{ select: typeof profileUserSelect }>;

/** A URL people may follow or load: absolute http(s), else "". */
export function safeUrl(value: string | null | undefined): string {
  return value && isHttpUrl(value) ? value : '';
}

function nullableSafeUrl(value: string | null | undefined): string | null {
  return value && isHttpUrl(value) ? value : null;
}

/** Media whose URL cannot be fetched are left out rather than sent broken. */
export function toMediaItems(rows: readonly MediaRow[]): MediaItem[] {
  return rows
    .filter((row) => isHttpUrl(row.url))
    .map((row) => ({ url: row.url, mimeType: row.mimeType, altText: row.altText }));
}

export function toPostAuthor(row: AuthorRow): PostAuthor {
  return {
    handle: row.handle,
    displayName: row.displayName,
    avatarUrl: safeUrl(row.avatarUrl),
    isNsfw: row.isNsfw,
  };
}

export function toProfile(row: ProfileUserRow, node: NodeFacts): Profile {
  return {
    handle: row.handle,
    displayName: row.displayName,
    bio: row.bio,
    avatarUrl: safeUrl(row.avatarUrl),
    headerUrl: safeUrl(row.headerUrl),
    website: safeUrl(row.website),
    followersCount: row.followersCount,
    followingCount: row.followingCount,
    postsCount: row.postsCount,
    createdAt: formatTimestamp(row.createdAt),
    isBot: row.isBot,
    nodeDomain: node.domain,
    // Extra member (docs/protocol.md): peers resolve the user's key from it to check user
    // signatures.
    ...(row.did ? { did: row.did } : {}),
    // Extra member (docs/protocol.md "Moving an account"): where the account lives now.
    ...(row.movedTo ? { movedTo: row.movedTo } : {}),
    // Extra member (direct messages): the encryption key, bound to the did by the user's signature.
    ...(row.did &&
    row.encryptionPublicKey &&
    row.encryptionKeyCreatedAt &&
    row.encryptionKeySignature
      ? {
          encryptionKey: {
            publicKey: row.encryptionPublicKey,
            createdAt: formatTimestamp(row.encryptionKeyCreatedAt),
            signature: row.encryptionKeySignature,
          },
        }
      : {}),
  };
}

/** The members every post shape opens with. */
function postStart(row: { id: string; content: string; createdAt: Date }) {
  return { id: row.id, content: row.content, createdAt: formatTimestamp(row.createdAt) };
}

/** A post's counters under the spec's plural names (all post shapes but the timeline's). */
function postCounts(row: { likesCount: number; repostsCount: number; repliesCount: number }) {
  return {
    likesCount: row.likesCount,
    repostsCount: row.repostsCount,
    repliesCount: row.repliesCount,
  };
}

export function toProfilePost(row: PostRow): ProfilePost {
  return {
    ...postStart(row),
    isNsfw: row.isNsfw,
    ...postCounts(row),
    media: toMediaItems(row.media),
    linkPreviewUrl: nullableSafeUrl(row.linkPreviewUrl),
    linkPreviewTitle: row.linkPreviewTitle ?? '',
    linkPreviewDescription: row.linkPreviewDescription ?? '',
    linkPreviewImage: safeUrl(row.linkPreviewImage),
  };
}

/**
 * A user's list entry: a post as the spec shows it, or a repost (a row with no text of its own)
 * with `repostOfId` added; posts carry no `repostOfId`, as before reposts were listed.
 */
export function toProfileEntry(row: ProfileEntryRow): ProfileEntry {
  const post = toProfilePost(row);
  return row.repostOf ? { ...post, repostOfId: toPostRef(row.repostOf) } : post;
}

/** Timeline rows are local posts, so the author is always set (see the service's filter). */
export function toTimelinePost(
  row: AuthoredPostRow & { author: AuthorRow },
  node: NodeFacts,
): TimelinePost {
  return {
    ...postStart(row),
    author: toPostAuthor(row.author),
    nodeDomain: node.domain,
    nodeIsNsfw: node.nodeIsNsfw,
    isNsfw: row.isNsfw,
    // The spec's one exception: singular count names in the timeline.
    likeCount: row.likesCount,
    repostCount: row.repostsCount,
    replyCount: row.repliesCount,
    media: toMediaItems(row.media),
    linkPreviewUrl: nullableSafeUrl(row.linkPreviewUrl),
  };
}

/** A parent or reposted post: its id here when it is ours, its `swarm:` id when it is a copy. */
function toPostRef(ref: { id: string; apId: string | null } | null): string | null {
  if (!ref) return null;
  return ref.apId ?? ref.id;
}

export function toSinglePost(
  row: SinglePostRow & { author: AuthorRow },
  node: NodeFacts,
): SinglePost {
  return {
    ...postStart(row),
    author: toPostAuthor(row.author),
    nodeDomain: node.domain,
    isNsfw: row.isNsfw,
    ...postCounts(row),
    media: toMediaItems(row.media),
    linkPreviewUrl: nullableSafeUrl(row.linkPreviewUrl),
    replyToId: toPostRef(row.replyTo),
    repostOfId: toPostRef(row.repostOf),
  };
}

/**
 * A reply's author: local users by handle, remote ones as `handle@domain` (the spec's rule).
 * Returns null for a row with neither (not possible by the schema's rules; such a row is skipped).
 */
function toReplyAuthor(row: ReplyRow): Reply['author'] | null {
  if (row.author) {
    return {
      handle: row.author.handle,
      displayName: row.author.displayName,
      avatarUrl: safeUrl(row.author.avatarUrl),
    };
  }
  if (row.remoteAuthor) {
    return {
      handle: `${row.remoteAuthor.handle}@${row.remoteAuthor.nodeDomain}`,
      displayName: row.remoteAuthor.displayName,
      avatarUrl: safeUrl(row.remoteAuthor.avatarUrl),
    };
  }
  return null;
}

/** The reply's `id` is its row id here, the `replyId` its sender got from `POST /api/swarm/replies`. */
export function toReply(row: ReplyRow): Reply | null {
  const author = toReplyAuthor(row);
  if (!author) return null;
  return {
    ...postStart(row),
    author,
    ...postCounts(row),
  };
}
