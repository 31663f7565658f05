import type { TokenGrant } from '@swarm/auth';
import { createLogger, type StreamBatch, type StreamFeed, type StreamPost } from '@swarm/domain';
import { describe, expect, it } from 'vitest';
import {
  createStreamingHub,
  type StreamEventText,
  type StreamRenderers,
  type StreamSink,
} from './hub.ts';
import { parseSubscription } from './streams.ts';

// The hub's routing and bounds on a feed this test drives; the whole path (database, sockets,
// the libraries) is tested on a running node (test/streaming.process.test.ts).

function fakeFeed(audience: { follows?: Set<string>; hides?: Set<string> } = {}) {
  let listener: ((batch: StreamBatch) => void) | undefined;
  const feed: StreamFeed = {
    subscribe(l) {
      listener = l;
      return () => (listener = undefined);
    },
    watchNotifications: () => undefined,
    audience: async () => ({
      follows: (viewer, post) => audience.follows?.has(`${viewer} ${post.authorId}`) ?? false,
      hides: (viewer, post) => audience.hides?.has(`${viewer} ${post.authorId}`) ?? false,
    }),
    poll: async () => undefined,
  };
  return {
    feed,
    async emit(batch: Partial<StreamBatch>) {
      listener?.({ posts: [], updated: [], deleted: [], notifications: [], ...batch });
      // Delivery is asynchronous (audience, rendering): let it finish.
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    },
  };
}

const post = (over: Partial<StreamPost> = {}): StreamPost => ({
  id: 'p1',
  apiId: '100',
  authorId: 'alice',
  remoteAuthorId: null,
  author: { handle: 'alice', domain: 'node.example' },
  repostOf: null,
  visibility: 'public',
  local: true,
  isReply: false,
  tags: ['rust'],
  listed: true,
  shown: true,
  ...over,
});

const grant = (userId: string | null, tokenId = `t-${userId}`): TokenGrant => ({
  tokenId,
  scopes: ['read'],
  app: { id: 'app', name: 'App', website: null, scopes: ['read'] },
  userId,
});

function sink(accept = true) {
  const sent: StreamEventText[] = [];
  const closed: string[] = [];
  const s: StreamSink = {
    send: (text) => {
      sent.push(text);
      return accept;
    },
    heartbeat: () => true,
    close: (reason) => void closed.push(reason),
  };
  return { s, sent, closed };
}

type Statuses = StreamRenderers['statuses'];

/** The same text for every receiver. */
const sameForAll: Statuses = async (posts) => {
  const texts = new Map(posts.map((p) => [p.id, `{"id":"${p.apiId}"}`]));
  return (id) => texts.get(id);
};

function setup(audience?: Parameters<typeof fakeFeed>[0], limits = {}, statuses = sameForAll) {
  const driver = fakeFeed(audience);
  let shutdown: (() => void) | undefined;
  const hub = createStreamingHub({
    feed: driver.feed,
    logger: createLogger('silent'),
    renderers: {
      statuses,
      notifications: async (notes) => new Map(notes.map((n) => [n.id, `{"id":"${n.apiId}"}`])),
    },
    limits,
    onShutdown: (l) => (shutdown = l),
  });
  const connect = (userId: string | null, streams: [string, Record<string, string>?][]) => {
    const opened = hub.open({ grant: userId ? grant(userId) : null, ip: '192.0.2.1', token: null });
    if (!opened.ok) throw new Error(opened.error);
    const out = sink();
    hub.attach(opened.connection, out.s);
    for (const [name, params] of streams) {
      const parsed = parseSubscription(name, params ?? {}, opened.connection.grant);
      if (!parsed.ok) throw new Error(parsed.error);
      hub.subscribe(opened.connection, parsed.subscription);
    }
    return { ...out, connection: opened.connection };
  };
  return { hub, driver, connect, shutdown: () => shutdown?.() };
}

describe('streaming hub', () => {
  it('renders a status once for all its receivers, each with their own state', async () => {
    const asked: string[][] = [];
    const { driver, connect } = setup(
      { follows: new Set(['bob alice']) },
      {},
      async (posts, viewers) => {
        asked.push([...viewers].sort());
        return (id, viewer) =>
          posts.some((p) => p.id === id) ? `{"id":"${id}","seenBy":"${viewer ?? ''}"}` : undefined;
      },
    );
    const bob = connect('bob', [['user'], ['public']]);
    const carol = connect('carol', [['public']]);
    const anyone = connect(null, [['public']]);
    await driver.emit({ posts: [post()] });
    expect(asked).toEqual([['bob', 'carol']]);
    const seen = (s: { sent: StreamEventText[] }) => s.sent.map((t) => JSON.parse(t.ws).payload);
    expect(seen(bob)).toEqual(Array(2).fill('{"id":"p1","seenBy":"bob"}'));
    expect(seen(carol)).toEqual(['{"id":"p1","seenBy":"carol"}']);
    expect(seen(anyone)).toEqual(['{"id":"p1","seenBy":""}']);
  });

  it('sends an edited copy as status.update where the post goes', async () => {
    const { driver, connect } = setup({ follows: new Set(['bob alice']) });
    const bob = connect('bob', [['user']]);
    const anyone = connect(null, [['public:remote']]);
    const copy = post({ authorId: 'alice', local: false });
    await driver.emit({ updated: [copy, post({ id: 'p2', shown: false })] });
    for (const s of [bob, anyone]) {
      expect(s.sent.map((t) => JSON.parse(t.ws).event)).toEqual(['status.update']);
    }
    expect(anyone.sent[0]!.sse).toBe('event: status.update\ndata: {"id":"100"}\n\n');
  });

  it('sends a listed post on its public and tag streams, with Mastodon’s stream field', async () => {
    const { driver, connect } = setup();
    const local = connect(null, [['public:local'], ['hashtag', { tag: 'Rust' }]]);
    const remote = connect(null, [['public:remote']]);
    await driver.emit({ posts: [post()] });
    expect(local.sent.map((t) => JSON.parse(t.ws))).toEqual([
      { stream: ['public:local'], event: 'update', payload: '{"id":"100"}' },
      { stream: ['hashtag', 'Rust'], event: 'update', payload: '{"id":"100"}' },
    ]);
    expect(local.sent[0]!.sse).toBe('event: update\ndata: {"id":"100"}\n\n');
    expect(remote.sent).toEqual([]);
  });

  it('keeps a post from whoever hides its author, and unlisted ones off public streams', async () => {
    const { driver, connect } = setup({ hides: new Set(['carol alice']) });
    const carol = connect('carol', [['public']]);
    const dave = connect('dave', [['public']]);
    await driver.emit({
      posts: [post(), post({ id: 'p2', listed: false, visibility: 'unlisted' })],
    });
    expect(carol.sent).toEqual([]);
    expect(dave.sent).toHaveLength(1);
  });

  it('puts a post on the user streams of its author and followers only', async () => {
    const { driver, connect } = setup({ follows: new Set(['bob alice']) });
    const alice = connect('alice', [['user']]);
    const bob = connect('bob', [['user']]);
    const carol = connect('carol', [['user']]);
    await driver.emit({ posts: [post({ visibility: 'followers', listed: false })] });
    expect(alice.sent).toHaveLength(1);
    expect(bob.sent).toHaveLength(1);
    expect(JSON.parse(bob.sent[0]!.ws)).toMatchObject({ stream: ['user'], event: 'update' });
    expect(carol.sent).toEqual([]);
    // Replies are not on home.
    await driver.emit({ posts: [post({ id: 'p3', isReply: true, listed: false })] });
    expect(bob.sent).toHaveLength(1);
  });

  it('sends a deletion where the post went, and a notification to its recipient', async () => {
    const { driver, connect } = setup();
    const anyone = connect(null, [['public:local']]);
    const alice = connect('alice', [['user:notification']]);
    await driver.emit({
      deleted: [post()],
      notifications: [
        {
          id: 'n1',
          apiId: '7',
          recipientId: 'alice',
          type: 'like',
          createdAt: new Date(0),
          accountId: 'bob',
          postId: 'p1',
        },
        {
          id: 'n2',
          apiId: '8',
          recipientId: 'bob',
          type: 'like',
          createdAt: new Date(0),
          accountId: 'alice',
          postId: 'p1',
        },
      ],
    });
    expect(JSON.parse(anyone.sent[0]!.ws)).toEqual({
      stream: ['public:local'],
      event: 'delete',
      payload: '100',
    });
    expect(alice.sent.map((t) => JSON.parse(t.ws))).toEqual([
      { stream: ['user:notification'], event: 'notification', payload: '{"id":"7"}' },
    ]);
  });

  it('drops a connection that cannot keep up, and frees its place', async () => {
    const { hub, driver } = setup();
    const opened = hub.open({ grant: null, ip: '192.0.2.9', token: null });
    if (!opened.ok) throw new Error(opened.error);
    const slow = sink(false);
    hub.attach(opened.connection, slow.s);
    const parsed = parseSubscription('public', {}, null);
    if (!parsed.ok) throw new Error(parsed.error);
    hub.subscribe(opened.connection, parsed.subscription);
    await driver.emit({ posts: [post()] });
    expect(slow.closed).toEqual(['slow']);
    expect(hub.size()).toBe(0);
  });

  it('bounds connections per token and per address, and closes them all on shutdown', () => {
    const { hub, connect, shutdown } = setup(undefined, { perToken: 2, perAddress: 3 });
    const a = connect('alice', []);
    connect('alice', []);
    expect(hub.open({ grant: grant('alice'), ip: '192.0.2.2', token: null })).toMatchObject({
      ok: false,
      status: 429,
    });
    connect(null, []);
    expect(hub.open({ grant: null, ip: '192.0.2.1', token: null })).toMatchObject({
      ok: false,
      status: 429,
    });
    shutdown();
    expect(a.closed).toEqual(['shutdown']);
    expect(hub.size()).toBe(0);
    expect(hub.open({ grant: null, ip: '192.0.2.3', token: null })).toMatchObject({
      ok: false,
      status: 503,
    });
  });
});
