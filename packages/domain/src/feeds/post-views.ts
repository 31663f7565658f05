import {
  formatSwarmPostId,
  formatTimestamp,
  isHttpUrl,
  parseHandleAddress,
  parseSwarmPostId,
  type MediaItem,
  type ProfilePost,
  type Reply,
  type SinglePost,
  type TimelinePost,
} from '@swarm/contract';
import { localActorKey, type Prisma, type PrismaClient } from '@swarm/db';
import { authorSelect, postSelect, remoteAuthorSelect } from '../content/content-mappers.ts';
import type { ActorView, MediaView, PostView } from '../views/index.ts';

// The one place where posts become PostViews, from a database row (a local post or a copy of a
// peer's post) or from a peer's wire shape (profile, timeline, single post, reply). Ids follow
// views.ts: our UUID for posts written here, `swarm:{domain}:{postId}` for everything else.

/** Who is looking: viewer state (liked, reposted, own) and the NSFW preference. */
export interface Viewer {
  id: string;
  handle: string;
  showNsfw: boolean;
}

/** App path of a post page. */
export function postPath(id: string): string {
  return `/posts/${id}`;
}

/** What the UI shows for an image or avatar URL: absolute http(s) or nothing. */
export function viewUrl(value: string | null | undefined): string | null {
  return value && isHttpUrl(value) ? value : null;
}

/** A person hosted on `domain`; remote when that is not this node (`self`). */
export function actorView(
  input: { handle: string; domain: string; displayName: string; avatarUrl: string | null },
  self: string,
): ActorView {
  const isRemote = input.domain !== self;
  return {
    handle: input.handle,
    domain: input.domain,
    address: isRemote ? `${input.handle}@${input.domain}` : input.handle,
    displayName: input.displayName || input.handle,
    avatarUrl: viewUrl(input.avatarUrl),
    isRemote,
  };
}

/**
 * An author handle as peers send it: plain (a user of `domain`, the node that answered) or
 * `handle@otherdomain` (replies by remote authors). Null when it cannot be read.
 */
export function wireActor(
  author: { handle: string; displayName: string; avatarUrl: string },
  domain: string,
  self: string,
): ActorView | null {
  let handle = author.handle;
  let home = domain;
  if (handle.includes('@')) {
    const address = parseHandleAddress(handle);
    if (!address.ok) return null;
    handle = address.value.handle;
    home = address.value.domain;
  }
  return actorView({ ...author, handle, domain: home }, self);
}

/** The view id of post `id` living on `domain`: bare for ours, `swarm:{domain}:{id}` otherwise. */
export function viewPostId(domain: string, id: string, self: string): string {
  return domain === self ? id : formatSwarmPostId({ domain, postId: id });
}

/**
 * A peer's reference to another post (`replyToId`): already `swarm:…` (ours when it names this
 * node), or an id on the answering node.
 */
export function viewPostRef(ref: string | null, domain: string, self: string): string | null {
  if (!ref) return null;
  if (ref.startsWith('swarm:')) {
    const parsed = parseSwarmPostId(ref);
    if (!parsed.ok) return null;
    return viewPostId(parsed.value.domain, parsed.value.postId, self);
  }
  try {
    return viewPostId(domain, ref, self);
  } catch {
    return null; // not a post id we can link to
  }
}

function mediaViews(items: readonly (MediaItem & { blurhash?: string | null })[]): MediaView[] {
  return items
    .filter((item) => isHttpUrl(item.url))
    .map((item) => ({
      url: item.url,
      mimeType: item.mimeType,
      altText: item.altText,
      ...(item.blurhash ? { blurhash: item.blurhash } : {}),
    }));
}

function linkPreview(input: {
  url: string | null;
  title?: string | null;
  description?: string | null;
  image?: string | null;
}): PostView['linkPreview'] {
  const url = viewUrl(input.url);
  if (!url) return null;
  return {
    url,
    title: input.title || null,
    description: input.description || null,
    image: viewUrl(input.image),
  };
}

// ---------------------------------------------------------------------------------------------
// Database rows
// ---------------------------------------------------------------------------------------------

/** The fields of the wire shapes (content-mappers), and what a view adds: ids, authors, deletion. */
const postFieldsSelect = {
  ...postSelect,
  apId: true,
  authorId: true,
  deletedAt: true,
  author: { select: authorSelect },
  remoteAuthor: remoteAuthorSelect,
  replyTo: { select: { id: true, apId: true } },
} as const satisfies Prisma.PostSelect;

/** A post row as shown: itself, or (a repost) the post it repeats, with the reposter. */
export const postViewSelect = {
  ...postFieldsSelect,
  repostOf: { select: postFieldsSelect },
} as const satisfies Prisma.PostSelect;

type PostFieldsRow = Prisma.PostGetPayload<{ select: typeof postFieldsSelect }>;
export type PostViewRow = Prisma.PostGetPayload<{ select: typeof postViewSelect }>;

/** The author of a row: a local user, or the remote actor of a copy. */
function rowAuthor(row: PostFieldsRow, self: string): ActorView | null {
  if (row.author) return actorView({ ...row.author, domain: self }, self);
  if (row.remoteAuthor) {
    return actorView({ ...row.remoteAuthor, domain: row.remoteAuthor.nodeDomain }, self);
  }
  return null;
}

/** Where a row lives: this node, or the node of the copy's `swarm:` id. */
function rowId(row: { id: string; apId: string | null }, self: string) {
  if (!row.apId) return { id: row.id, nodeDomain: self };
  const parsed = parseSwarmPostId(row.apId);
  return parsed.ok
    ? {
        id: viewPostId(parsed.value.domain, parsed.value.postId, self),
        nodeDomain: parsed.value.domain,
      }
    : null;
}

function fieldsToView(row: PostFieldsRow, self: string): PostView | null {
  if (row.deletedAt) return null;
  const author = rowAuthor(row, self);
  const where = rowId(row, self);
  if (!author || !where) return null;
  return {
    id: where.id,
    path: postPath(where.id),
    author,
    content: row.content,
    createdAt: formatTimestamp(row.createdAt),
    isNsfw: row.isNsfw || (row.author?.isNsfw ?? false),
    media: mediaViews(row.media),
    linkPreview: linkPreview({
      url: row.linkPreviewUrl,
      title: row.linkPreviewTitle,
      description: row.linkPreviewDescription,
      image: row.linkPreviewImage,
    }),
    likesCount: row.likesCount,
    repostsCount: row.repostsCount,
    repliesCount: row.repliesCount,
    replyToId: row.replyTo ? (rowId(row.replyTo, self)?.id ?? null) : null,
    repostedBy: null,
    nodeDomain: where.nodeDomain,
    isRemote: where.nodeDomain !== self,
    viewer: null,
  };
}

/**
 * A row as a feed entry: a repost row shows the reposted post with `repostedBy`. Null for rows
 * that cannot be shown (deleted, or reposting a deleted post).
 */
export function rowToPostView(row: PostViewRow, self: string): PostView | null {
  if (row.repostOf) {
    if (row.deletedAt) return null;
    const original = fieldsToView(row.repostOf, self);
    const reposter = rowAuthor(row, self);
    return original && reposter ? { ...original, repostedBy: reposter } : null;
  }
  return fieldsToView(row, self);
}

// ---------------------------------------------------------------------------------------------
// Peers' wire shapes
// ---------------------------------------------------------------------------------------------

function wireView(
  input: {
    id: string;
    content: string;
    createdAt: string;
    isNsfw: boolean;
    likesCount: number;
    repostsCount: number;
    repliesCount: number;
    media: readonly MediaItem[];
    linkPreview: PostView['linkPreview'];
    replyToId: string | null;
  },
  author: ActorView,
  domain: string,
  self: string,
): PostView {
  const id = viewPostId(domain, input.id, self);
  return {
    id,
    path: postPath(id),
    author,
    content: input.content,
    createdAt: input.createdAt,
    isNsfw: input.isNsfw,
    media: mediaViews(input.media),
    linkPreview: input.linkPreview,
    likesCount: input.likesCount,
    repostsCount: input.repostsCount,
    repliesCount: input.repliesCount,
    replyToId: input.replyToId,
    repostedBy: null,
    nodeDomain: domain,
    isRemote: domain !== self,
    viewer: null,
  };
}

/** A post of `GET /api/swarm/users/[handle]`, by the profile's `author`, on `domain`. */
export function profilePostToView(
  post: ProfilePost,
  author: ActorView,
  domain: string,
  self: string,
): PostView {
  return wireView(
    {
      ...post,
      linkPreview: linkPreview({
        url: post.linkPreviewUrl,
        title: post.linkPreviewTitle,
        description: post.linkPreviewDescription,
        image: post.linkPreviewImage,
      }),
      replyToId: null, // profile lists hold top-level posts
    },
    author,
    domain,
    self,
  );
}

/**
 * A post of `GET /api/swarm/timeline` from `domain` (the node asked, not what the post claims).
 * NSFW when the post, its author or its whole node says so.
 */
export function timelinePostToView(
  post: TimelinePost,
  domain: string,
  self: string,
): PostView | null {
  const author = wireActor(post.author, domain, self);
  if (!author) return null;
  return wireView(
    {
      ...post,
      isNsfw: post.isNsfw || post.author.isNsfw || post.nodeIsNsfw,
      likesCount: post.likeCount,
      repostsCount: post.repostCount,
      repliesCount: post.replyCount,
      linkPreview: linkPreview({ url: post.linkPreviewUrl }),
      replyToId: null,
    },
    author,
    domain,
    self,
  );
}

/** `GET /api/swarm/posts/[id]` of `domain`. */
export function singlePostToView(post: SinglePost, domain: string, self: string): PostView | null {
  const author = wireActor(post.author, domain, self);
  if (!author) return null;
  return wireView(
    {
      ...post,
      isNsfw: post.isNsfw || post.author.isNsfw,
      linkPreview: linkPreview({ url: post.linkPreviewUrl }),
      replyToId: viewPostRef(post.replyToId, domain, self),
    },
    author,
    domain,
    self,
  );
}

/** A reply of `GET /api/swarm/replies` on `domain` to the post with view id `parentId`. */
export function replyToView(
  reply: Reply,
  domain: string,
  parentId: string,
  self: string,
): PostView | null {
  const author = wireActor(reply.author, domain, self);
  if (!author) return null;
  return wireView(
    {
      ...reply,
      isNsfw: false,
      media: [],
      linkPreview: null,
      replyToId: parentId,
    },
    author,
    domain,
    self,
  );
}

// ---------------------------------------------------------------------------------------------
// Viewer state
// ---------------------------------------------------------------------------------------------

/**
 * Fills `viewer` of every view (null when nobody is signed in) from the viewer's Like, Repost and
 * Bookmark rows: for our posts by id, for remote posts through their copy row (by apId), which is where
 * an interaction with a remote post is recorded. Three queries whatever the list's length.
 */
export async function withViewerState(
  prisma: PrismaClient,
  viewer: Viewer | null,
  views: readonly PostView[],
): Promise<PostView[]> {
  if (!viewer || views.length === 0) return views.map((v) => ({ ...v, viewer: null }));
  const localIds = views.filter((v) => !v.isRemote).map((v) => v.id);
  const remoteIds = views.filter((v) => v.isRemote).map((v) => v.id);
  const copies =
    remoteIds.length === 0
      ? []
      : await prisma.post.findMany({
          where: { apId: { in: remoteIds } },
          select: { id: true, apId: true },
        });
  const rowOf = new Map<string, string>(localIds.map((id) => [id, id]));
  for (const copy of copies) if (copy.apId) rowOf.set(copy.apId, copy.id);
  const rowIds = [...new Set(rowOf.values())];
  const actorKey = localActorKey(viewer.id);
  const [likes, reposts, bookmarks] =
    rowIds.length === 0
      ? [[], [], []]
      : await Promise.all([
          prisma.like.findMany({
            where: { actorKey, postId: { in: rowIds } },
            select: { postId: true },
          }),
          prisma.repost.findMany({
            where: { actorKey, postId: { in: rowIds } },
            select: { postId: true },
          }),
          prisma.bookmark.findMany({
            where: { userId: viewer.id, postId: { in: rowIds } },
            select: { postId: true },
          }),
        ]);
  const liked = new Set(likes.map((l) => l.postId));
  const reposted = new Set(reposts.map((r) => r.postId));
  const bookmarked = new Set(bookmarks.map((b) => b.postId));
  return views.map((view) => {
    const row = rowOf.get(view.id);
    return {
      ...view,
      viewer: {
        liked: row !== undefined && liked.has(row),
        reposted: row !== undefined && reposted.has(row),
        bookmarked: row !== undefined && bookmarked.has(row),
        isOwn: !view.author.isRemote && view.author.handle === viewer.handle,
      },
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Merging and paging
// ---------------------------------------------------------------------------------------------

/** A feed entry with the time it sorts by (a repost sorts by the repost, not the original). */
export interface FeedEntry {
  view: PostView;
  at: number;
}

/** Newest first; equal times by id, so merges from several sources are stable. */
export function byNewest(a: FeedEntry, b: FeedEntry): number {
  return b.at - a.at || (a.view.id < b.view.id ? 1 : a.view.id > b.view.id ? -1 : 0);
}

/**
 * Newest first, one entry per (post, reposter) id, then one page: like `pageNewestFirst`, a page
 * never ends inside a millisecond that continues past it. `nextBefore` is the exclusive cursor of
 * the next page, null when this one is the last.
 */
export function pageEntries(
  entries: readonly FeedEntry[],
  limit: number,
): { views: PostView[]; nextBefore: string | null } {
  const seen = new Set<string>();
  const sorted = [...entries].sort(byNewest).filter((entry) => {
    const key = `${entry.view.id}|${entry.view.repostedBy?.address ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (sorted.length <= limit) return { views: sorted.map((e) => e.view), nextBefore: null };
  let page = sorted.slice(0, limit);
  const boundary = sorted[limit]!.at;
  const whole = page.filter((entry) => entry.at !== boundary);
  if (whole.length > 0) page = whole;
  const last = page[page.length - 1]!;
  return {
    views: page.map((e) => e.view),
    nextBefore: new Date(last.at).toISOString(),
  };
}
