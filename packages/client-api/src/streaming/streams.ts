import { normaliseHashtag } from '@swarm/contract';

/**
 * The streams an app may subscribe to (docs/clients.md, "Streaming"), as Mastodon names them.
 * A subscription has a key (what the hub indexes) and the `stream` array Mastodon puts on every
 * event of it (`["hashtag", "rust"]`, `["list", "12"]`, `["user"]`).
 */

export const STREAM_NAMES = [
  'user',
  'user:notification',
  'public',
  'public:local',
  'public:remote',
  'hashtag',
  'hashtag:local',
  'list',
] as const;
export type StreamName = (typeof STREAM_NAMES)[number];

/** Streams that anyone may read without a token (as Mastodon allows). */
const PUBLIC_STREAMS: ReadonlySet<string> = new Set([
  'public',
  'public:local',
  'public:remote',
  'hashtag',
  'hashtag:local',
]);

export interface Subscription {
  name: StreamName;
  /** `public:local`, `hashtag:rust`, `list:12`, `user`: unique per connection. */
  key: string;
  /** Mastodon's `stream` field of its events. */
  stream: string[];
  tag?: string;
  list?: string;
}

export type SubscriptionResult =
  | { ok: true; subscription: Subscription }
  | { ok: false; status: 400 | 401 | 403 | 404; error: string };

/** Scopes of which one opens a stream: statuses for timelines, notifications for those. */
export function scopesFor(name: StreamName): readonly string[] {
  return name === 'user:notification'
    ? ['read', 'read:notifications']
    : ['read', 'read:statuses', 'read:notifications'];
}

export function isPublicStream(name: string): boolean {
  return PUBLIC_STREAMS.has(name);
}

/**
 * A stream asked for by name and parameters (`tag`, `list`), from a query string, a path
 * (`/api/v1/streaming/hashtag/local`) or a subscribe message; `user` is the caller's person.
 */
export function parseSubscription(
  name: string | undefined,
  params: { tag?: unknown; list?: unknown },
  caller: { userId: string | null } | null,
): SubscriptionResult {
  if (!name || !(STREAM_NAMES as readonly string[]).includes(name)) {
    return { ok: false, status: 400, error: 'Unknown stream type' };
  }
  const stream = name as StreamName;
  if (!isPublicStream(stream) && !caller) {
    return { ok: false, status: 401, error: 'Missing access token' };
  }
  if (
    (stream === 'user' || stream === 'user:notification' || stream === 'list') &&
    !caller?.userId
  ) {
    return { ok: false, status: 403, error: 'This stream requires an authenticated user' };
  }
  if (stream === 'hashtag' || stream === 'hashtag:local') {
    const given = typeof params.tag === 'string' ? params.tag : '';
    const tag = normaliseHashtag(given);
    if (!tag) return { ok: false, status: 400, error: 'No tag for stream provided' };
    // The event's `stream` names the tag as the app wrote it (apps match on it); the key is the
    // tag as the node compares it.
    const subscription = { name: stream, key: `${stream}:${tag}`, stream: [stream, given], tag };
    return { ok: true, subscription };
  }
  if (stream === 'list') {
    const list =
      typeof params.list === 'string' && /^\d{1,20}$|^[\w-]{1,64}$/.test(params.list)
        ? params.list
        : null;
    if (!list) return { ok: false, status: 400, error: 'No list for stream provided' };
    return {
      ok: true,
      subscription: { name: stream, key: `list:${list}`, stream: [stream, list], list },
    };
  }
  return { ok: true, subscription: { name: stream, key: stream, stream: [stream] } };
}

/** `/api/v1/streaming/public/local` → `public:local`; `/api/v1/streaming` → undefined. */
export function streamFromPath(pathname: string): string | undefined {
  const rest = pathname.replace(/^\/api\/v1\/streaming\/?/, '').replace(/\/$/, '');
  return rest === '' ? undefined : rest.split('/').join(':');
}
