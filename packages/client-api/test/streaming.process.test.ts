import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freePort,
  nodeOnPort,
  signUp as signUpOn,
  tokenFor as tokenOn,
  trpc as trpcOn,
  type RestartableNode,
} from '@swarm/testnet';
import { createStreamingAPIClient, type mastodon } from 'masto';
import generator from 'megalodon';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Apps' streaming through the front door (docs/clients.md, "Streaming"): a node started as the
// README says, WebSocket clients of masto.js and megalodon, the event-stream form by fetch, and
// raw `ws` for what the libraries hide (status codes, the `stream` field). `pnpm build` first.

// masto.js's streaming client expects Node 22's globals (WebSocket, Promise.withResolvers); the
// node supports Node 20, where the tests may run: `ws` stands in, as an app on Node 20 would do.
(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
if (!('withResolvers' in Promise)) {
  Object.assign(Promise, {
    withResolvers<T>() {
      let resolve!: (value: T) => void;
      let reject!: (reason: unknown) => void;
      const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
      return { promise, resolve, reject };
    },
  });
}

const PASSWORD = 'correct horse battery staple';
const WAIT_MS = 15_000;

let dataDir: string;
let node: RestartableNode;
/** A second node, whose dora follows alice: alice's posts are pushed there. */
let other: RestartableNode;
const cookies = new Map<string, string>();
const tokens = new Map<string, string>();
let nextAddress = 1;
const address = () => `198.51.100.${nextAddress++}`;

async function signUp(handle: string) {
  const res = await fetch(`${node.url}/signup`, {
    method: 'POST',
    headers: { accept: 'text/html', origin: node.url, 'x-forwarded-for': address() },
    body: new URLSearchParams({ handle, displayName: handle, password: PASSWORD }),
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  const cookie = /swarm_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '');
  cookies.set(handle, `swarm_session=${cookie![1]}`);
}

async function trpc<T = unknown>(handle: string, path: string, input: unknown): Promise<T> {
  const res = await fetch(`${node.url}/trpc/${path}`, {
    method: 'POST',
    headers: {
      origin: node.url,
      'content-type': 'application/json',
      cookie: cookies.get(handle)!,
    },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as { result?: { data: T }; error?: unknown };
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body.error)}`);
  return body.result!.data;
}

/** A token for `handle` the way an app gets one: registration, consent (out of band), code. */
async function tokenFor(handle: string, scope = 'read write follow'): Promise<string> {
  const oob = 'urn:ietf:wg:oauth:2.0:oob';
  const app = (await (
    await fetch(`${node.url}/api/v1/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address() },
      body: JSON.stringify({ client_name: 'Stream test', redirect_uris: oob, scopes: scope }),
    })
  ).json()) as { client_id: string; client_secret: string };
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: oob,
    scope,
  });
  const consent = await fetch(`${node.url}/oauth/authorize?${query}`, {
    method: 'POST',
    headers: {
      accept: 'text/html',
      origin: node.url,
      cookie: cookies.get(handle)!,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ decision: 'allow' }),
  });
  const code = /data-testid="oauth-code">([^<]+)</.exec(await consent.text())?.[1];
  expect(code).toBeTruthy();
  const token = (await (
    await fetch(`${node.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'authorization_code',
        code,
        client_id: app.client_id,
        client_secret: app.client_secret,
        redirect_uri: oob,
      }),
    })
  ).json()) as { access_token: string };
  return token.access_token;
}

interface Received {
  stream: string[];
  event: string;
  payload: string;
}

/** A raw socket and what it received, in order. */
async function rawSocket(
  query: string,
  options: WebSocket.ClientOptions = {},
  protocol?: string,
  on: RestartableNode = node,
) {
  const ws = new WebSocket(
    `${on.url.replace(/^http/, 'ws')}/api/v1/streaming${query}`,
    protocol,
    options,
  );
  const received: Received[] = [];
  const errors: unknown[] = [];
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as Received & { error?: string };
    if (message.error) errors.push(message);
    else received.push(message);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    ws,
    received,
    errors,
    send: (message: unknown) => ws.send(JSON.stringify(message)),
    async next(test: (r: Received) => boolean = () => true): Promise<Received> {
      const deadline = Date.now() + WAIT_MS;
      for (;;) {
        const found = received.findIndex(test);
        if (found >= 0) return received.splice(found, 1)[0]!;
        if (Date.now() > deadline) throw new Error(`nothing arrived: ${JSON.stringify(received)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
}

/** The status code a refused upgrade answered. */
function refusedUpgrade(query: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${node.url.replace(/^http/, 'ws')}/api/v1/streaming${query}`, {
      headers,
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('open', () => {
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
    ws.on('error', () => undefined);
  });
}

async function post(handle: string, content: string, visibility = 'public'): Promise<string> {
  const created = await trpc<{ post: { id: string } }>(handle, 'posts.create', {
    content,
    visibility,
  });
  return created.post.id;
}

/** Waits until the streams of this node see a post written now (subscriptions are in place). */
const settle = () => new Promise((r) => setTimeout(r, 300));

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swarm-streaming-'));
  const env = { ADDRESS_HEADER: 'X-Forwarded-For', XFF_DEPTH: '1' };
  const [port, otherPort] = [await freePort(), await freePort()];
  node = nodeOnPort({ dataDir: join(dataDir, 'a'), port, env });
  // The other node names this one as its seed: it announces itself here at start, so this node
  // knows it (and that it takes pushed posts) before anyone there follows alice.
  other = nodeOnPort({
    dataDir: join(dataDir, 'b'),
    port: otherPort,
    env: { ...env, SWARM_SEEDS: `localhost:${port}` },
  });
  await node.start();
  await other.start();
  for (const handle of ['root', 'alice', 'bob', 'carol']) await signUp(handle);
  await trpc('bob', 'interactions.follow', { address: 'alice' });
  await trpc('carol', 'moderation.safety.mute', { target: `alice@${node.domain}` });
  for (const handle of ['root', 'alice', 'bob', 'carol'])
    tokens.set(handle, await tokenFor(handle));
}, 300_000);

afterAll(async () => {
  await Promise.all([node?.stop(), other?.stop()]);
  await rm(dataDir, { recursive: true, force: true });
});

describe('streaming endpoints', () => {
  it('answers health with OK', async () => {
    const res = await fetch(`${node.url}/api/v1/streaming/health`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('OK');
  });

  it('refuses a bad token with 401, in all three places a token may be, and on SSE', async () => {
    expect(await refusedUpgrade('?stream=user&access_token=bogus')).toBe(401);
    expect(await refusedUpgrade('?stream=public', { authorization: 'Bearer bogus' })).toBe(401);
    expect(await refusedUpgrade('?stream=public', { 'sec-websocket-protocol': 'bogus' })).toBe(401);
    const sse = await fetch(`${node.url}/api/v1/streaming/user`, {
      headers: { authorization: 'Bearer bogus' },
    });
    expect(sse.status).toBe(401);
    expect(await sse.json()).toMatchObject({ error: 'The access token is invalid' });
  });

  it('refuses the user stream without a token (401) and an unknown stream (400)', async () => {
    expect(await refusedUpgrade('?stream=user')).toBe(401);
    expect(await refusedUpgrade('?stream=nonsense')).toBe(400);
    const sse = await fetch(`${node.url}/api/v1/streaming/hashtag`);
    expect(sse.status).toBe(400);
    expect(await sse.json()).toMatchObject({ error: 'No tag for stream provided' });
  });

  it('answers a bad subscribe message on the socket with an error, and keeps it open', async () => {
    const socket = await rawSocket('');
    socket.send({ type: 'subscribe', stream: 'user' });
    socket.ws.send('not json');
    await expect.poll(() => socket.errors.length, { timeout: WAIT_MS }).toBe(2);
    expect(socket.errors[0]).toMatchObject({ status: 401 });
    expect(socket.errors[1]).toMatchObject({ status: 400 });
    expect(socket.ws.readyState).toBe(WebSocket.OPEN);
    socket.ws.close();
  });
});

describe('events', () => {
  it('a local post reaches public:local (masto.js, no token), a tag stream and the follower’s user stream', async () => {
    const masto = createStreamingAPIClient({
      streamingApiUrl: node.url.replace(/^http/, 'ws'),
      implementation: WebSocket,
    });
    const bobStream = createStreamingAPIClient({
      streamingApiUrl: node.url.replace(/^http/, 'ws'),
      accessToken: tokens.get('bob'),
      implementation: WebSocket,
    });
    const local = masto.public.local.subscribe();
    const tag = masto.hashtag.subscribe({ tag: 'StreamTest' });
    const home = bobStream.user.subscribe();
    const first = (s: AsyncIterable<mastodon.streaming.Event>) =>
      (async () => {
        for await (const event of s) if (event.event === 'update') return event;
        throw new Error('ended');
      })();
    const got = [first(local), first(tag), first(home)];
    await settle();
    await post('alice', 'hello from alice #streamtest');
    const [onLocal, onTag, onHome] = await Promise.all(got);
    for (const event of [onLocal, onTag, onHome]) {
      expect(event!.event).toBe('update');
      const status = event!.payload as mastodon.v1.Status;
      expect(status.content).toContain('hello from alice');
      expect(status.account.acct).toBe('alice');
    }
    expect(onLocal!.stream).toEqual(['public:local']);
    expect(onTag!.stream).toEqual(['hashtag', 'StreamTest']);
    expect(onHome!.stream).toEqual(['user']);
    masto.close();
    bobStream.close();
  });

  it('a muted author’s post does not reach the person who muted them; others’ do', async () => {
    const carol = await rawSocket(`?stream=public:local&access_token=${tokens.get('carol')}`);
    const anyone = await rawSocket('?stream=public:local');
    await settle();
    await post('alice', 'carol muted me');
    await anyone.next((r) => JSON.parse(r.payload).content.includes('carol muted me'));
    await post('bob', 'bob speaks');
    const first = await carol.next();
    expect(JSON.parse(first.payload).content).toContain('bob speaks');
    expect(carol.received).toEqual([]);
    carol.ws.close();
    anyone.ws.close();
  });

  it('followers-only posts reach followers’ user streams only', async () => {
    const bob = await rawSocket('?stream=user', {
      headers: { authorization: `Bearer ${tokens.get('bob')}` },
    });
    // Root follows nobody: neither the user stream nor a public one carries the post to them.
    const root = await rawSocket('', {}, tokens.get('root'));
    root.send({ type: 'subscribe', stream: 'user' });
    root.send({ type: 'subscribe', stream: 'public' });
    const anyone = await rawSocket('?stream=public');
    await settle();
    await post('alice', 'for my followers', 'followers');
    const onBob = await bob.next();
    expect(JSON.parse(onBob.payload).visibility).toBe('private');
    await post('bob', 'public again');
    expect(JSON.parse((await anyone.next()).payload).content).toContain('public again');
    expect(JSON.parse((await root.next()).payload).content).toContain('public again');
    expect([...anyone.received, ...root.received]).toEqual([]);
    for (const s of [bob, root, anyone]) s.ws.close();
  });

  it('a list stream carries its members’ posts to its owner only', async () => {
    const api = (handle: string, path: string, body?: unknown) =>
      fetch(`${node.url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          authorization: `Bearer ${tokens.get(handle)}`,
          'content-type': 'application/json',
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const list = (await (await api('bob', '/api/v1/lists', { title: 'Alice only' })).json()) as {
      id: string;
    };
    const alice = (await (await api('bob', '/api/v1/accounts/lookup?acct=alice')).json()) as {
      id: string;
    };
    expect(
      (await api('bob', `/api/v1/lists/${list.id}/accounts`, { account_ids: [alice.id] })).status,
    ).toBe(200);
    const bob = await rawSocket(`?stream=list&list=${list.id}&access_token=${tokens.get('bob')}`);
    // Another person's list is not theirs to read: refused as unknown.
    expect(
      await refusedUpgrade(`?stream=list&list=${list.id}&access_token=${tokens.get('root')}`),
    ).toBe(404);
    await settle();
    await post('root', 'root is not on the list');
    await post('alice', 'alice on the list');
    const got = await bob.next();
    expect(got.stream).toEqual(['list', list.id]);
    expect(JSON.parse(got.payload).content).toContain('alice on the list');
    expect(bob.received).toEqual([]);
    bob.ws.close();
  });

  it('a favourite reaches the author as a notification (megalodon) with her own state of the post, a deletion as delete', async () => {
    const client = generator('mastodon', node.url, tokens.get('alice'));
    const socket = await client.userStreaming();
    interface Notified {
      type: string;
      status?: { content: string; favourited: boolean; reblogged: boolean; bookmarked: boolean };
    }
    // Only the favourite: a notification of an earlier case may still be on its way.
    const notified = new Promise<Notified>((resolve) =>
      socket.on('notification', (n: Notified) => {
        if (n.type === 'favourite') resolve(n);
      }),
    );
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
    const watcher = await rawSocket('?stream=public:local');
    await settle();
    const postId = await post('alice', 'please like me');
    const update = await watcher.next();
    // alice likes and bookmarks her own post (nobody is notified of their own acts).
    const statusId = (JSON.parse(update.payload) as { id: string }).id;
    for (const action of ['favourite', 'bookmark']) {
      const res = await fetch(`${node.url}/api/v1/statuses/${statusId}/${action}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.get('alice')}` },
      });
      expect(res.status).toBe(200);
    }
    await trpc('root', 'interactions.like', { postId });
    const notification = await notified;
    expect(notification.type).toBe('favourite');
    // The status in it is as alice sees it, not as root (who liked it) or nobody does.
    expect(notification.status).toMatchObject({
      content: expect.stringContaining('please like me'),
      favourited: true,
      reblogged: false,
      bookmarked: true,
    });
    await trpc('alice', 'posts.delete', { id: postId });
    const deletion = await watcher.next((r) => r.event === 'delete');
    expect(deletion.payload).toBe(JSON.parse(update.payload).id);
    socket.stop();
    watcher.ws.close();
  });

  it('a status on the user stream carries its receiver’s like, repost and bookmark', async () => {
    const rest = (path: string) =>
      fetch(`${node.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.get('bob')}` },
      });
    const watcher = await rawSocket('?stream=public:local');
    const bob = await rawSocket(`?stream=user&access_token=${tokens.get('bob')}`);
    await settle();
    await post('alice', 'bob will like, bookmark and repost this');
    const original = JSON.parse((await watcher.next()).payload) as { id: string };
    await bob.next((r) => JSON.parse(r.payload).id === original.id);
    for (const action of ['favourite', 'bookmark']) {
      expect((await rest(`/api/v1/statuses/${original.id}/${action}`)).status).toBe(200);
    }
    expect((await rest(`/api/v1/statuses/${original.id}/reblog`)).status).toBe(200);
    // bob's repost reaches his own home stream as he sees it: liked, reposted, bookmarked.
    const repost = JSON.parse(
      (await bob.next((r) => JSON.parse(r.payload).reblog?.id === original.id)).payload,
    );
    for (const status of [repost, repost.reblog]) {
      expect(status).toMatchObject({
        favourited: true,
        reblogged: true,
        bookmarked: true,
        muted: false,
      });
    }
    for (const s of [watcher, bob]) s.ws.close();
  });

  it('megalodon’s local socket gets updates', async () => {
    const client = generator('mastodon', node.url, tokens.get('bob'));
    const socket = await client.localStreaming();
    const got = new Promise<{ content: string }>((resolve) => socket.on('update', resolve));
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
    await settle();
    await post('alice', 'megalodon hears this');
    expect((await got).content).toContain('megalodon hears this');
    socket.stop();
  });

  it('the event-stream form delivers the same events', async () => {
    const controller = new AbortController();
    const res = await fetch(`${node.url}/api/v1/streaming/user`, {
      headers: { authorization: `Bearer ${tokens.get('bob')}` },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    await settle();
    await post('alice', 'over SSE');
    let text = '';
    while (!text.includes('over SSE')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    expect(text).toMatch(/event: update\ndata: \{.*over SSE/);
    controller.abort();
  });
});

describe('posts of another node', () => {
  it('a copy pushed here arrives on public and public:remote, and on a follower’s user stream', async () => {
    const dora = await signUpOn(other, 'dora');
    const doraToken = await tokenOn(other, dora, 'read');
    await trpcOn(other, dora, 'interactions.follow', { address: `alice@${node.domain}` });
    const remote = await rawSocket('?stream=public:remote', {}, undefined, other);
    const local = await rawSocket('?stream=public:local', {}, undefined, other);
    const home = await rawSocket(`?stream=user&access_token=${doraToken}`, {}, undefined, other);
    remote.send({ type: 'subscribe', stream: 'public' });
    // The follow goes through alice's node's outbox; on a busy machine a first attempt may time
    // out and wait for its retry. Posts are pushed only once it is accepted.
    const lookup = await fetch(
      `${other.url}/api/v1/accounts/lookup?acct=${encodeURIComponent(`alice@${node.domain}`)}`,
      { headers: { authorization: `Bearer ${doraToken}` } },
    );
    const aliceThere = ((await lookup.json()) as { id: string }).id;
    await expect
      .poll(
        async () => {
          const res = await fetch(`${other.url}/api/v1/accounts/relationships?id[]=${aliceThere}`, {
            headers: { authorization: `Bearer ${doraToken}` },
          });
          return ((await res.json()) as { following: boolean }[])[0]?.following;
        },
        { timeout: 150_000, interval: 1_000 },
      )
      .toBe(true);
    // Pushed only to a node this one has verified: wait until it lists the other node.
    await expect
      .poll(
        async () => {
          const listed = (await (await fetch(`${node.url}/api/swarm/nodes`)).json()) as {
            nodes: { domain: string }[];
          };
          return listed.nodes.map((n) => n.domain);
        },
        { timeout: 120_000, interval: 1_000 },
      )
      .toContain(other.domain);
    await settle();
    // On a busy machine a push may miss its first attempt and come with the outbox's retry
    // (30 s later): alice posts again meanwhile, and whichever of her posts arrives first is
    // followed through the streams. (Copies of her earlier posts, read when dora followed her,
    // may arrive too: only these count.)
    const text = (r: Received) => (JSON.parse(r.payload) as { content: string }).content;
    const pushed = (r: Received) => /pushed here \d+\./.test(text(r));
    let found: Received | undefined;
    for (let round = 0; round < 8 && !found; round++) {
      await post('alice', `pushed here ${round}.`);
      found = await remote
        .next((r) => r.stream[0] === 'public:remote' && pushed(r))
        .catch(() => undefined);
    }
    expect(found, other.output().slice(-4000)).toBeDefined();
    const status = JSON.parse(found!.payload) as { id: string; account: { acct: string } };
    expect(status.account.acct).toBe(`alice@${node.domain}`);
    const which = /pushed here \d+\./.exec(text(found!))![0];
    const mine = (r: Received) => text(r).includes(which);
    const onPublic = await remote.next((r) => r.stream[0] === 'public' && mine(r));
    expect(JSON.parse(onPublic.payload).id).toBe(status.id);
    const onHome = await home.next(mine);
    expect(JSON.parse(onHome.payload).account.acct).toBe(`alice@${node.domain}`);
    // Not a post of that node: not on its public:local.
    expect(local.received).toEqual([]);
    for (const s of [remote, local, home]) s.ws.close();
  }, 240_000);
});
