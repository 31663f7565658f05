import {
  formatSwarmPostId,
  formatTimestamp,
  isHttpUrl,
  parseSwarmPostId,
  type OriginPostPush,
  type PostPush,
} from '@swarm/contract';
import { guessMimeType } from '../interactions/inbound-helpers.ts';
import type { PostView } from '../views/index.ts';

// A pushed post (either dialect, docs/protocol.md "Post delivery") as the view the remote post
// store takes. Only what the author's node said; counts are the caller's. The id and URL rules
// are feeds/post-views.ts's (a folder of the same level, so not imported): bare ids for ours,
// `swarm:{domain}:{id}` otherwise, http(s) URLs or nothing.

export type AnyPostPush = PostPush | OriginPostPush;

/** The view id of post `id` living on `domain`. */
export function viewPostId(domain: string, id: string, self: string): string {
  return domain === self ? id : formatSwarmPostId({ domain, postId: id });
}

const viewUrl = (value: string | null | undefined): string | null =>
  value && isHttpUrl(value) ? value : null;

/**
 * A reference to another post in a push (`replyToId`): `swarm:{domain}:{id}` (ours when it
 * names this node), or an id on the pushing node. Null when it cannot name a post.
 */
function postRef(ref: string | undefined, domain: string, self: string): string | null {
  if (!ref) return null;
  if (ref.startsWith('swarm:')) {
    const parsed = parseSwarmPostId(ref);
    return parsed.ok ? viewPostId(parsed.value.domain, parsed.value.postId, self) : null;
  }
  try {
    return viewPostId(domain, ref, self);
  } catch {
    return null; // not an id we can link to: stored as a post without its parent
  }
}

export function pushedPostView(
  push: AnyPostPush,
  counts: { likesCount: number; repostsCount: number; repliesCount: number },
  self: string,
  now: Date,
): PostView {
  const { post, author, nodeDomain } = push;
  const id = viewPostId(nodeDomain, post.id, self);
  // A post dated ahead of our clock would sit on top of every timeline: it is dated now.
  const createdAt = new Date(post.createdAt) > now ? now : new Date(post.createdAt);
  const previewUrl = viewUrl(post.linkPreviewUrl);
  return {
    id,
    path: `/posts/${id}`,
    author: {
      handle: author.handle,
      domain: nodeDomain,
      address: `${author.handle}@${nodeDomain}`,
      displayName: author.displayName || author.handle,
      avatarUrl: viewUrl(author.avatarUrl),
      isRemote: true,
    },
    content: post.content,
    createdAt: formatTimestamp(createdAt),
    isNsfw: post.isNsfw || author.isNsfw,
    media: (post.media ?? [])
      .filter((item) => isHttpUrl(item.url))
      .map((item) => ({
        url: item.url,
        mimeType: item.mimeType || guessMimeType(item.url),
        altText: item.altText ?? '',
      })),
    linkPreview: previewUrl
      ? {
          url: previewUrl,
          title: post.linkPreviewTitle || null,
          description: post.linkPreviewDescription || null,
          image: viewUrl(post.linkPreviewImage),
        }
      : null,
    ...counts,
    replyToId: postRef(post.replyToId, nodeDomain, self),
    repostedBy: null,
    nodeDomain,
    isRemote: true,
    viewer: null,
  };
}
