import { scopesAllow, type TokenGrant } from '@swarm/auth';
import type {
  Logger,
  StreamAudience,
  StreamBatch,
  StreamFeed,
  StreamNotification,
  StreamPost,
} from '@swarm/domain';
import type { Subscription } from './streams.ts';

/**
 * The streaming hub of one process (docs/clients.md, "Streaming"): every open socket or event
 * stream, what each subscribed to, and the fan-out of the node's stream feed to them. One feed
 * subscription serves every connection; each post is routed with one audience query for all
 * the people connected, read once with all its receivers' states and rendered once per distinct
 * state, and each event's text built once per payload and stream and shared by every connection
 * that gets it.
 */

/** Where a connection's events go: a WebSocket or an event stream. */
export interface StreamSink {
  /** Sends one event; false when the connection is too far behind (it is then dropped). */
  send(event: StreamEventText): boolean;
  /** A heartbeat; false when the other side stopped answering (the connection is dropped). */
  heartbeat(): boolean;
  /** Ends the connection (shutdown, revoked token, slow consumer). */
  close(reason: 'shutdown' | 'slow' | 'revoked' | 'dead'): void;
}

/** One event as both transports write it, built once and shared. */
export interface StreamEventText {
  /** The WebSocket message: `{"stream":[…],"event":…,"payload":…}`. */
  readonly ws: string;
  /** The event-stream block: `event: …\ndata: …\n\n`. */
  readonly sse: string;
}

export interface Connection {
  readonly id: number;
  readonly grant: TokenGrant | null;
  /** The bearer token, checked again at heartbeats (a revoked token's streams end). */
  readonly token: string | null;
  readonly ip: string;
  readonly subscriptions: Map<string, Subscription>;
  /** Whether the token may read notifications (the `user` stream carries them only then). */
  readonly notifications: boolean;
  sink?: StreamSink;
  closed: boolean;
}

export const STREAMING_LIMITS = {
  /** Connections one process holds. */
  maxConnections: 20_000,
  /** Connections of one token (an app needs one: a socket multiplexes streams). */
  perToken: 20,
  /** Connections from one address, with or without a token. */
  perAddress: 200,
  /** Streams one connection subscribes to. */
  subscriptionsPerConnection: 50,
  /** WebSocket pings / event-stream comments this often. */
  heartbeatMs: 30_000,
} as const;

export type StreamingLimits = typeof STREAMING_LIMITS;

export type OpenResult =
  { ok: true; connection: Connection } | { ok: false; status: 429 | 503; error: string };

/** Payloads of the events: Mastodon's entities as JSON text, rendered in batches. */
export interface StreamRenderers {
  /**
   * Status entities of the posts, read once for the people connected among `viewers`: the text
   * of a post as a receiver sees it (their likes, reposts, bookmarks; null: anonymous), or
   * undefined when it cannot be shown.
   */
  statuses(
    posts: readonly StreamPost[],
    viewers: readonly string[],
  ): Promise<(postId: string, viewer: string | null) => string | undefined>;
  /** Notification entities, by notification id. */
  notifications(notes: readonly StreamNotification[]): Promise<Map<string, string>>;
  /** Which of `lists` (ids) hold which authors: for the `list` stream (empty without lists). */
  listMembers?(
    lists: readonly string[],
    posts: readonly StreamPost[],
  ): Promise<(list: string, post: StreamPost) => boolean>;
  /** Whether `userId` owns list `list` (subscribing to another's list is refused). */
  ownsList?(userId: string, list: string): Promise<boolean>;
}

export interface StreamingHub {
  open(input: { grant: TokenGrant | null; ip: string; token: string | null }): OpenResult;
  attach(connection: Connection, sink: StreamSink): void;
  subscribe(connection: Connection, subscription: Subscription): string | null;
  unsubscribe(connection: Connection, key: string): void;
  close(connection: Connection): void;
  size(): number;
  /** Ends every connection (shutdown). */
  closeAll(): void;
  renderers: StreamRenderers;
}

export function eventText(
  stream: readonly string[],
  event: string,
  payload: string,
): StreamEventText {
  return {
    ws: JSON.stringify({ stream, event, payload }),
    sse: `event: ${event}\ndata: ${payload}\n\n`,
  };
}

/**
 * One event's texts, built once per distinct `stream` field (a tag stream names the tag as each
 * app wrote it) and shared by every connection that gets it.
 */
function shared(event: string, payload: string): (stream: readonly string[]) => StreamEventText {
  const texts = new Map<string, StreamEventText>();
  return (stream) => {
    const key = stream.join('\n');
    let text = texts.get(key);
    if (!text) texts.set(key, (text = eventText(stream, event, payload)));
    return text;
  };
}

/** Candidate subscription keys of a post on the public and tag streams. */
function publicKeys(post: StreamPost): string[] {
  if (!post.listed) return [];
  const keys = ['public', post.local ? 'public:local' : 'public:remote'];
  for (const tag of post.tags) {
    keys.push(`hashtag:${tag}`);
    if (post.local) keys.push(`hashtag:local:${tag}`);
  }
  return keys;
}

/** On a person's home: top-level posts and reposts, not replies (as the home timeline lists them). */
function homeMay(post: StreamPost): boolean {
  return post.shown && !post.isReply;
}

export function createStreamingHub(deps: {
  feed: StreamFeed;
  renderers: StreamRenderers;
  logger: Logger;
  /** Whether a token still stands (revoked, or its person suspended: no longer). */
  stillValid?: (token: string) => Promise<boolean>;
  limits?: Partial<StreamingLimits>;
  onShutdown?: (listener: () => void) => void;
}): StreamingHub {
  const { feed, renderers, logger } = deps;
  const limits = { ...STREAMING_LIMITS, ...deps.limits };
  const connections = new Map<number, Connection>();
  const byKey = new Map<string, Set<Connection>>();
  const perToken = new Map<string, number>();
  const perAddress = new Map<string, number>();
  let nextId = 1;
  let stopFeed: (() => void) | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let closing = false;

  const bump = (map: Map<string, number>, key: string, by: number) => {
    const n = (map.get(key) ?? 0) + by;
    if (n > 0) map.set(key, n);
    else map.delete(key);
  };

  function start() {
    if (stopFeed) return;
    feed.watchNotifications(() => {
      const users = new Set<string>();
      for (const key of byKey.keys()) {
        if (key.startsWith('user')) {
          for (const c of byKey.get(key) ?? []) if (c.grant?.userId) users.add(c.grant.userId);
        }
      }
      return users;
    });
    stopFeed = feed.subscribe((batch) => {
      void deliver(batch).catch((err: unknown) =>
        logger.warn({ err }, 'streaming: could not deliver a batch'),
      );
    });
    heartbeat = setInterval(() => {
      for (const c of [...connections.values()]) {
        if (c.sink && !c.sink.heartbeat()) drop(c, 'dead');
      }
      void recheckTokens().catch((err: unknown) =>
        logger.warn({ err }, 'streaming: could not check the tokens again'),
      );
    }, limits.heartbeatMs);
    heartbeat.unref?.();
  }

  /** One check per distinct token; the connections of one that no longer stands end. */
  async function recheckTokens() {
    if (!deps.stillValid) return;
    const tokens = new Set<string>();
    for (const c of connections.values()) if (c.token) tokens.add(c.token);
    for (const token of tokens) {
      if (await deps.stillValid(token)) continue;
      for (const c of [...connections.values()]) if (c.token === token) drop(c, 'revoked');
    }
  }

  function stop() {
    stopFeed?.();
    stopFeed = undefined;
    clearInterval(heartbeat);
    heartbeat = undefined;
  }

  function release(c: Connection) {
    if (c.closed) return;
    c.closed = true;
    connections.delete(c.id);
    for (const key of c.subscriptions.keys()) byKey.get(key)?.delete(c);
    for (const key of c.subscriptions.keys()) if (byKey.get(key)?.size === 0) byKey.delete(key);
    c.subscriptions.clear();
    if (c.grant) bump(perToken, c.grant.tokenId, -1);
    bump(perAddress, c.ip, -1);
    if (connections.size === 0) stop();
  }

  function drop(c: Connection, reason: Parameters<StreamSink['close']>[0]) {
    const sink = c.sink;
    release(c);
    try {
      sink?.close(reason);
    } catch {
      // already gone
    }
  }

  function send(c: Connection, text: StreamEventText) {
    if (c.closed || !c.sink) return;
    if (!c.sink.send(text)) drop(c, 'slow');
  }

  /** Connections subscribed to `key` (a snapshot: sending may drop some). */
  const subscribers = (key: string) => [...(byKey.get(key) ?? [])];

  async function deliver(batch: StreamBatch) {
    if (connections.size === 0) return;
    const homeViewers = new Set<string>();
    for (const c of subscribers('user')) if (c.grant?.userId) homeViewers.add(c.grant.userId);
    const listKeys = [...byKey.keys()].filter((k) => k.startsWith('list:'));

    // Who is connected where each post could go: one audience query for them all.
    const posts = batch.posts.filter((p) => p.shown);
    const updated = batch.updated.filter((p) => p.shown);
    const routed = [...posts, ...updated, ...batch.deleted];
    const viewers = new Set(homeViewers);
    for (const post of routed) {
      for (const key of publicKeys(post)) {
        for (const c of byKey.get(key) ?? []) if (c.grant?.userId) viewers.add(c.grant.userId);
      }
    }
    for (const key of listKeys) {
      for (const c of byKey.get(key) ?? []) if (c.grant?.userId) viewers.add(c.grant.userId);
    }
    const audience: StreamAudience =
      routed.length > 0 && viewers.size > 0
        ? await deps.feed.audience(routed, [...viewers])
        : { follows: () => false, hides: () => false };
    const inList =
      listKeys.length > 0 && renderers.listMembers
        ? await renderers.listMembers(
            listKeys.map((k) => k.slice('list:'.length)),
            routed,
          )
        : () => false;

    /** Each post's targets: (connection, subscription key) pairs. */
    const plan = (post: StreamPost) => {
      const targets: { c: Connection; key: string }[] = [];
      const viewerOk = (c: Connection) => !c.grant?.userId || !audience.hides(c.grant.userId, post);
      for (const key of publicKeys(post)) {
        for (const c of byKey.get(key) ?? []) if (viewerOk(c)) targets.push({ c, key });
      }
      if (homeMay(post)) {
        for (const c of byKey.get('user') ?? []) {
          const me = c.grant?.userId;
          if (!me) continue;
          const mine = post.authorId === me;
          if ((mine || audience.follows(me, post)) && (mine || viewerOk(c))) {
            targets.push({ c, key: 'user' });
          }
        }
      }
      for (const key of listKeys) {
        const list = key.slice('list:'.length);
        if (!homeMay(post) || !inList(list, post)) continue;
        for (const c of byKey.get(key) ?? []) {
          const me = c.grant?.userId;
          // A followers-only post only to a list owner who follows its author.
          if (!me || !viewerOk(c)) continue;
          if (
            post.visibility === 'followers' &&
            post.authorId !== me &&
            !audience.follows(me, post)
          )
            continue;
          targets.push({ c, key });
        }
      }
      return targets;
    };

    // New posts (`update`) and changed copies (`status.update`), each as its receiver sees it:
    // one read for every post and every receiver, one text per distinct payload.
    const jobs = [
      ...posts.map((post) => ({ event: 'update', post, targets: plan(post) })),
      ...updated.map((post) => ({ event: 'status.update', post, targets: plan(post) })),
    ].filter((job) => job.targets.length > 0);
    if (jobs.length > 0) {
      const receivers = new Set<string>();
      for (const { targets } of jobs) {
        for (const { c } of targets) if (c.grant?.userId) receivers.add(c.grant.userId);
      }
      const render = await renderers.statuses(
        jobs.map((job) => job.post),
        [...receivers],
      );
      for (const { event, post, targets } of jobs) {
        const texts = new Map<string, ReturnType<typeof shared>>();
        for (const { c, key } of targets) {
          const payload = render(post.id, c.grant?.userId ?? null);
          const sub = c.subscriptions.get(key);
          if (payload === undefined || !sub) continue;
          let text = texts.get(payload);
          if (!text) texts.set(payload, (text = shared(event, payload)));
          send(c, text(sub.stream));
        }
      }
    }

    for (const post of batch.deleted) {
      const text = shared('delete', post.apiId);
      for (const { c, key } of plan(post)) {
        const sub = c.subscriptions.get(key);
        if (sub) send(c, text(sub.stream));
      }
    }

    if (batch.notifications.length > 0) {
      const recipients = new Map<string, Set<Connection>>();
      for (const key of ['user', 'user:notification']) {
        for (const c of byKey.get(key) ?? []) {
          const me = c.grant?.userId;
          if (!me || (key === 'user' && !c.notifications)) continue;
          const set = recipients.get(me) ?? new Set();
          set.add(c);
          recipients.set(me, set);
        }
      }
      const notes = batch.notifications.filter((n) => recipients.has(n.recipientId));
      const payloads =
        notes.length > 0 ? await renderers.notifications(notes) : new Map<string, string>();
      for (const note of notes) {
        const payload = payloads.get(note.id);
        if (payload === undefined) continue;
        const text = shared('notification', payload);
        for (const c of recipients.get(note.recipientId) ?? []) {
          for (const key of ['user', 'user:notification']) {
            const sub = c.subscriptions.get(key);
            if (sub && (key !== 'user' || c.notifications)) send(c, text(sub.stream));
          }
        }
      }
    }
  }

  const hub: StreamingHub = {
    renderers,
    open({ grant, ip, token }) {
      if (closing)
        return { ok: false, status: 503, error: 'This node is restarting; try again shortly.' };
      if (connections.size >= limits.maxConnections) {
        return {
          ok: false,
          status: 503,
          error: 'This node holds as many streams as it can; try again later.',
        };
      }
      if (grant && (perToken.get(grant.tokenId) ?? 0) >= limits.perToken) {
        return {
          ok: false,
          status: 429,
          error: `At most ${limits.perToken} streaming connections per access token`,
        };
      }
      if ((perAddress.get(ip) ?? 0) >= limits.perAddress) {
        return {
          ok: false,
          status: 429,
          error: `At most ${limits.perAddress} streaming connections per address`,
        };
      }
      const connection: Connection = {
        id: nextId++,
        grant,
        token,
        ip,
        subscriptions: new Map(),
        notifications: grant ? scopesAllow(grant.scopes, ['read:notifications']) : false,
        closed: false,
      };
      connections.set(connection.id, connection);
      if (grant) bump(perToken, grant.tokenId, 1);
      bump(perAddress, ip, 1);
      start();
      return { ok: true, connection };
    },
    attach(connection, sink) {
      if (connection.closed) {
        sink.close('shutdown');
        return;
      }
      connection.sink = sink;
    },
    subscribe(connection, subscription) {
      if (connection.closed) return null;
      if (connection.subscriptions.has(subscription.key)) return null;
      if (connection.subscriptions.size >= limits.subscriptionsPerConnection) {
        return `At most ${limits.subscriptionsPerConnection} streams per connection`;
      }
      connection.subscriptions.set(subscription.key, subscription);
      let set = byKey.get(subscription.key);
      if (!set) byKey.set(subscription.key, (set = new Set()));
      set.add(connection);
      return null;
    },
    unsubscribe(connection, key) {
      if (!connection.subscriptions.delete(key)) return;
      const set = byKey.get(key);
      set?.delete(connection);
      if (set?.size === 0) byKey.delete(key);
    },
    close: (connection) => release(connection),
    size: () => connections.size,
    closeAll() {
      for (const c of [...connections.values()]) drop(c, 'shutdown');
    },
  };
  deps.onShutdown?.(() => {
    closing = true;
    hub.closeAll();
  });
  return hub;
}
