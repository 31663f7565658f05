import { isHttpUrl, type OriginPostPush, type PostPush } from '@swarm/contract';
import { actorView, postPath, viewPostId, viewPostRef, viewUrl } from '../feeds/post-views.ts';
import { guessMimeType } from '../interactions/inbound-helpers.ts';
import type { PostView } from '../views/index.ts';

// A pushed post (either dialect, docs/protocol.md "Post delivery") as the view the remote post
// store takes, with the id and URL rules pages use (feeds/post-views.ts). Only what the author's
// node said; counts are the caller's; the store dates a post from the future "now".

export type AnyPostPush = PostPush | OriginPostPush;

export function pushedPostView(
  push: AnyPostPush,
  counts: { likesCount: number; repostsCount: number; repliesCount: number },
  self: string,
): PostView {
  const { post, author, nodeDomain } = push;
  const id = viewPostId(nodeDomain, post.id, self);
  const previewUrl = viewUrl(post.linkPreviewUrl);
  return {
    id,
    path: postPath(id),
    author: actorView(
      {
        handle: author.handle,
        domain: nodeDomain,
        displayName: author.displayName ?? '',
        avatarUrl: author.avatarUrl || null,
      },
      self,
    ),
    content: post.content,
    createdAt: post.createdAt,
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
    replyToId: viewPostRef(post.replyToId ?? null, nodeDomain, self),
    repostedBy: null,
    nodeDomain,
    isRemote: true,
    viewer: null,
  };
}
