import { baseUrlForDomain } from '@swarm/contract';
import type { MediaRecord, StatusRecord, UploadView } from '@swarm/domain';
import { formatApiId } from '../ids.ts';
import { absoluteUrl, accountEntity, profileUrl } from './account.ts';
import { postHtml } from './html.ts';

/**
 * Mastodon's Status entity from the client read model's record (docs/clients.md "Statuses").
 * `domain` is this node's. Ids are `api_id`s (docs/clients.md "Ids"); people are their row
 * UUIDs. The node has no content warnings, polls, emojis, edits, pins or per-post mutes: those
 * fields are empty or false.
 */

const VISIBILITY = { public: 'public', unlisted: 'unlisted', followers: 'private' } as const;

/** The post's page on its own node: what `url` and `uri` name. */
export function postUrl(record: Pick<StatusRecord, 'nodeDomain' | 'postId'>): string {
  return `${baseUrlForDomain(record.nodeDomain)}/posts/${record.postId}`;
}

function mediaEntity(
  item: MediaRecord,
  baseUrl: string,
  extra: { previewUrl?: string; focus?: { x: number; y: number } | null } = {},
) {
  const url = absoluteUrl(item.url, baseUrl);
  const size =
    item.width && item.height
      ? {
          width: item.width,
          height: item.height,
          size: `${item.width}x${item.height}`,
          aspect: item.width / item.height,
        }
      : null;
  const focus = extra.focus ? { focus: extra.focus } : {};
  return {
    id: item.id,
    type: item.mimeType.startsWith('image/') ? ('image' as const) : ('unknown' as const),
    url,
    preview_url: extra.previewUrl ?? url,
    remote_url: null,
    preview_remote_url: null,
    text_url: null,
    meta: size ? { original: size, small: size, ...focus } : focus,
    description: item.altText === '' ? null : item.altText,
    blurhash: item.blurhash,
  };
}

export type MediaAttachmentEntity = ReturnType<typeof mediaEntity>;

/** Mastodon's MediaAttachment entity of an upload not yet posted (`/api/v2/media`). */
export function uploadEntity(upload: UploadView, domain: string) {
  return mediaEntity(
    {
      id: upload.id,
      url: upload.url,
      mimeType: upload.mimeType,
      altText: upload.description,
      blurhash: upload.blurhash,
      width: upload.width,
      height: upload.height,
    },
    baseUrlForDomain(domain),
    { previewUrl: upload.thumbUrl, focus: upload.focus },
  );
}

function ownEntity(record: StatusRecord, domain: string, baseUrl: string) {
  const mentionOf = (handle: string, named: string | null) => {
    const where = (named ?? record.nodeDomain).toLowerCase();
    const known = record.mentions.find(
      (m) => m.domain.toLowerCase() === where && m.handle.toLowerCase() === handle.toLowerCase(),
    );
    return known ? known : null;
  };
  const content = postHtml(record.content, {
    mention: (handle, named) => {
      const known = mentionOf(handle, named);
      if (!known) return null;
      try {
        return profileUrl(known.handle, known.domain);
      } catch {
        return null; // a domain no address can be made of: left as text
      }
    },
    tag: (name) => `${baseUrl}/tags/${encodeURIComponent(name)}`,
  });
  const url = postUrl(record);
  return {
    id: formatApiId(record.apiId),
    created_at: record.createdAt.toISOString(),
    in_reply_to_id: record.inReplyTo ? formatApiId(record.inReplyTo.apiId) : null,
    in_reply_to_account_id: record.inReplyTo?.accountId ?? null,
    sensitive: record.isNsfw,
    spoiler_text: '',
    visibility: VISIBILITY[record.visibility],
    language: null,
    uri: url,
    url,
    replies_count: record.repliesCount,
    reblogs_count: record.repostsCount,
    favourites_count: record.likesCount,
    edited_at: record.editedAt?.toISOString() ?? null,
    favourited: record.viewer.favourited,
    reblogged: record.viewer.reblogged,
    muted: false,
    bookmarked: record.viewer.bookmarked,
    pinned: false,
    content,
    filtered: [],
    application: null,
    account: accountEntity(record.account, domain),
    media_attachments: record.media.map((item) => mediaEntity(item, baseUrl)),
    mentions: record.mentions.flatMap((m) => {
      if (!m.accountId) return [];
      let mentionUrl: string;
      try {
        mentionUrl = profileUrl(m.handle, m.domain);
      } catch {
        return [];
      }
      return [
        {
          id: m.accountId,
          username: m.handle,
          url: mentionUrl,
          acct: m.domain === domain ? m.handle : `${m.handle}@${m.domain}`,
        },
      ];
    }),
    tags: record.tags.map((name) => ({
      name,
      url: `${baseUrl}/tags/${encodeURIComponent(name)}`,
    })),
    emojis: [],
    card: record.card
      ? {
          url: record.card.url,
          title: record.card.title ?? '',
          description: record.card.description ?? '',
          type: 'link',
          author_name: '',
          author_url: '',
          provider_name: '',
          provider_url: '',
          html: '',
          width: 0,
          height: 0,
          image: record.card.image,
          embed_url: '',
          blurhash: null,
        }
      : null,
    poll: null,
  };
}

type OwnStatus = ReturnType<typeof ownEntity>;

/** Mastodon's Status entity; a repost's has its original's in `reblog`. */
export interface StatusEntity extends OwnStatus {
  reblog: (OwnStatus & { reblog: null }) | null;
}

/** One status entity. `domain`: this node's. */
export function statusEntity(record: StatusRecord, domain: string): StatusEntity {
  const baseUrl = baseUrlForDomain(domain);
  const own = ownEntity(record, domain, baseUrl);
  return {
    ...own,
    reblog: record.reblog ? { ...ownEntity(record.reblog, domain, baseUrl), reblog: null } : null,
  };
}

/** Several, in the order given. */
export function statusEntities(records: readonly StatusRecord[], domain: string): StatusEntity[] {
  return records.map((record) => statusEntity(record, domain));
}
