import { formatTimestamp } from '@swarm/contract';
import { wireUrlMember } from './action-support.ts';

/**
 * The post as this node pushes it to the nodes of its author's followers (docs/protocol.md
 * "Post delivery", `pushedPostSchema`): the object the author signs (action `post`, target this
 * node), built by one function for the browser's `prepare`, the check of the signature and the
 * push itself, so the three never differ. Absent values are left out, never `null` or `""`.
 */

/** What a post's push is made of: the values of its row, as written. */
export interface PushedPostSource {
  id: string;
  content: string;
  createdAt: Date;
  isNsfw: boolean;
  visibility: 'public' | 'followers';
  /** The parent as peers name it: its id here, or the copy's `swarm:{domain}:{id}`. */
  replyToId: string | null;
  media: readonly { url: string; mimeType: string | null; altText: string | null }[];
  linkPreview: {
    url: string | null;
    title: string | null;
    description: string | null;
    image: string | null;
  } | null;
}

export function pushedPostOf(source: PushedPostSource): Record<string, unknown> {
  const preview = source.linkPreview;
  const media = source.media.map((item) => ({
    ...wireUrlMember('url', item.url),
    ...(item.mimeType ? { mimeType: item.mimeType } : {}),
    ...(item.altText ? { altText: item.altText } : {}),
  }));
  return {
    id: source.id,
    content: source.content,
    createdAt: formatTimestamp(source.createdAt),
    isNsfw: source.isNsfw,
    visibility: source.visibility,
    ...(source.replyToId ? { replyToId: source.replyToId } : {}),
    ...(media.length > 0 ? { media: media.filter((m) => m.url) } : {}),
    ...wireUrlMember('linkPreviewUrl', preview?.url ?? null),
    ...(preview?.title ? { linkPreviewTitle: preview.title } : {}),
    ...(preview?.description ? { linkPreviewDescription: preview.description } : {}),
    ...wireUrlMember('linkPreviewImage', preview?.image ?? null),
  };
}
