import type { NotificationView } from '../views/index.ts';
import { ALERT_OF_NOTIFICATION } from './push-rules.ts';

/**
 * What a push carries, as Mastodon's apps read it: `notification_id` to fetch the notification,
 * `notification_type`, and what to show at once (`title`, `body`, `icon`). `access_token` is
 * Mastodon's way to tell an app which of its accounts this is; this node keeps only the hashes
 * of tokens, so it has none to send and the field is empty (docs/clients.md "Web Push"). `url`
 * is ours: the page of this node that the web app's service worker opens on a click.
 */
export interface PushPayload {
  access_token: string;
  preferred_locale: string;
  notification_id: string;
  notification_type: string;
  icon: string;
  title: string;
  body: string;
  url: string;
}

const BODY_MAX_CHARS = 140;

function excerpt(text: string | null): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > BODY_MAX_CHARS ? `${flat.slice(0, BODY_MAX_CHARS - 1)}…` : flat;
}

function titleOf(view: NotificationView): string {
  const who = view.actor.displayName;
  switch (view.type) {
    case 'like':
      return `${who} favourited your post`;
    case 'repost':
      return `${who} boosted your post`;
    case 'follow':
      return `${who} followed you`;
    case 'mention':
      return `${who} mentioned you`;
    case 'reply':
      return `${who} replied to you`;
  }
}

/**
 * `view`: the notification as pages show it; `apiId`: its id as the client API answers it (the
 * `api_id` column, docs/clients.md "Ids"), which apps fetch it by; `postText`: the text of the
 * post concerned (the liked or reposted one; a mention's and a reply's own excerpt is on the
 * view).
 */
export function pushPayloadOf(
  view: NotificationView,
  apiId: string,
  postText: string | null,
  baseUrl: string,
): PushPayload {
  const avatar = view.actor.avatarUrl;
  const body =
    view.type === 'follow'
      ? `@${view.actor.isRemote ? view.actor.address : `${view.actor.handle}@${view.actor.domain}`}`
      : excerpt(view.excerpt ?? postText);
  return {
    access_token: '',
    preferred_locale: 'en',
    notification_id: apiId,
    notification_type: ALERT_OF_NOTIFICATION[view.type],
    icon: avatar ?? `${baseUrl}/icon-192.png`,
    title: titleOf(view),
    body,
    url:
      view.type === 'follow'
        ? `${baseUrl}/@${view.actor.address}`
        : `${baseUrl}${view.postPath ?? '/notifications'}`,
  };
}
