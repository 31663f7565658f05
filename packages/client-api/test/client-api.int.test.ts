import { createHash } from 'node:crypto';
import { authServicesOf, type AuthServices } from '@swarm/auth';
import {
  createManualClock,
  createTestNode,
  startOriginPeer,
  type TestNode,
  type TestNodeOverrides,
} from '@swarm/testnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientApi } from '../src/index.ts';

// The client API over a test node's database (both databases in CI): what it stores for an app
// and what it counts for nodeinfo and the instance documents. The front door, with the real
// client libraries, is client-libraries.process.test.ts.

const DAY_MS = 24 * 60 * 60 * 1000;

let t: TestNode;
let auth: AuthServices;

/** A test node with the client API in the place of the gateway: `t.request` goes through it. */
const clientApiNode = (env: Record<string, string> = {}, overrides: TestNodeOverrides = {}) =>
  createTestNode(env, {
    ...overrides,
    app: (node) => {
      const api = createClientApi({ node, auth: authServicesOf(node) });
      const fetch = (request: Request) => api.fetch(request, { clientIp: '192.0.2.7' });
      return {
        fetch,
        request: (path, init) => fetch(new Request(`https://alpha.test${path}`, init)),
      };
    },
  });

beforeAll(async () => {
  t = await clientApiNode();
  auth = authServicesOf(t.node);
});

afterAll(async () => {
  await t?.close();
});

interface NodeInfo {
  openRegistrations: boolean;
  usage: { users: Record<string, number>; localPosts: number };
}
interface InstanceV1 {
  approval_required: boolean;
  invites_enabled: boolean;
  stats: { user_count: number };
}
interface InstanceV2 {
  registrations: { enabled: boolean };
  contact: { account: Record<string, unknown> | null };
}
const json = async <T>(path: string) => (await t.request(path)).json() as Promise<T>;
const nodeInfo = () => json<NodeInfo>('/nodeinfo/2.1');
const v1 = () => json<InstanceV1>('/api/v1/instance');
const v2 = () => json<InstanceV2>('/api/v2/instance');

describe('app registration, stored', () => {
  it('keeps the redirect URIs and scopes, and only the hash of the secret', async () => {
    const response = await t.request('/api/v1/apps', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Stored',
        redirect_uris: ['com.example.app:/cb', 'urn:ietf:wg:oauth:2.0:oob'],
        scopes: 'read write:statuses',
      }),
    });
    expect(response.status).toBe(200);
    const app = (await response.json()) as { id: string; client_id: string; client_secret: string };
    const row = await t.node.db.prisma.clientApp.findUniqueOrThrow({ where: { id: app.id } });
    expect(row).toMatchObject({
      name: 'Stored',
      clientId: app.client_id,
      redirectUris: ['com.example.app:/cb', 'urn:ietf:wg:oauth:2.0:oob'],
      scopes: 'read write:statuses',
      website: null,
    });
    const hash = createHash('sha256').update(app.client_secret).digest();
    expect(Buffer.from(row.secretHash).equals(hash)).toBe(true);
    expect(JSON.stringify(row)).not.toContain(app.client_secret);
  });
});

describe('what the node tells apps about itself', () => {
  it('counts visible people, active ones by their sessions, and names the first admin', async () => {
    const made = await Promise.all([
      auth.accounts.createUser({ handle: 'root', displayName: 'Root', isAdmin: true }),
      auth.accounts.createUser({ handle: 'alice', isAdmin: false }),
    ]);
    const [root, alice] = made.map((m) => {
      if (!m.ok) throw new Error(m.reason.message);
      return m.value.user;
    });
    await auth.sessions.create(alice!.id);
    // Two people, one of whom signed in.
    expect((await nodeInfo()).usage).toEqual({
      users: { total: 2, activeMonth: 1, activeHalfyear: 1 },
      localPosts: 0,
    });
    expect((await v2()).contact.account).toMatchObject({
      id: root!.id,
      username: 'root',
      display_name: 'Root',
    });

    // Forty days later alice was active this half-year, not this month.
    t.clock.advance(40 * DAY_MS);
    expect((await nodeInfo()).usage.users).toEqual({
      total: 2,
      activeMonth: 0,
      activeHalfyear: 1,
    });
    // A suspended person is not counted.
    await t.node.db.prisma.user.update({
      where: { id: alice!.id },
      data: { suspendedAt: t.clock.now() },
    });
    expect((await v1()).stats.user_count).toBe(1);
  });

  it('follows the registrations mode the admin sets', async () => {
    const { registrations } = t.node.moderation;
    expect((await nodeInfo()).openRegistrations).toBe(true);
    expect((await registrations.setMode('root', 'approval')).ok).toBe(true);
    expect((await nodeInfo()).openRegistrations).toBe(false);
    expect((await v1()).approval_required).toBe(true);
    expect((await registrations.setMode('root', 'invite')).ok).toBe(true);
    expect((await v2()).registrations.enabled).toBe(false);
    expect((await v1()).invites_enabled).toBe(true);
  });
});

describe('the rate limit', () => {
  it('counts per token and per address, says what is left, and answers 429 past it', async () => {
    const limited = await clientApiNode({ SWARM_APP_RATE_LIMIT: '3' });
    try {
      const ritaAuth = authServicesOf(limited.node);
      const made = await ritaAuth.accounts.createUser({ handle: 'rita', isAdmin: false });
      if (!made.ok) throw new Error(made.reason.message);
      const token = async () => {
        const app = await ritaAuth.developerApps.create(made.value.user.id, {
          name: 'Counter',
          scopes: ['read'],
        });
        if (!app.ok) throw new Error(app.reason.message);
        return app.value.accessToken;
      };
      const [one, two] = [await token(), await token()];
      const call = (token?: string) =>
        limited.request('/api/v1/instance', {
          headers: token ? { authorization: `Bearer ${token}` } : {},
        });
      const seen = [];
      for (let i = 0; i < 4; i += 1) {
        const res = await call(one);
        seen.push([res.status, res.headers.get('x-ratelimit-remaining')]);
      }
      expect(seen).toEqual([
        [200, '2'],
        [200, '1'],
        [200, '0'],
        [429, '0'],
      ]);
      const refused = await call(one);
      expect(refused.headers.get('retry-after')).toBe('100');
      expect(await refused.json()).toMatchObject({ error: expect.stringMatching(/Too many/) });
      const first = await call(two);
      expect(first.headers.get('x-ratelimit-limit')).toBe('3');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
      // Full again once each spent request has come back (100 s each under 3 per 5 minutes).
      expect(Date.parse(first.headers.get('x-ratelimit-reset')!)).toBe(
        limited.clock.now().getTime() + 100_000,
      );
      // Without a token, the address has a budget of its own; a made-up token counts there too.
      expect((await call()).headers.get('x-ratelimit-remaining')).toBe('2');
      expect((await call('made-up')).headers.get('x-ratelimit-remaining')).toBe('1');
      limited.clock.advance(100_000);
      expect((await call(one)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('streaming: a copy edited on its node', () => {
  it('is sent again as status.update, with each receiver’s own state and when it changed', async () => {
    // Real time on the manual clock: the feed reads copies by when they were stored, from the
    // database's clock; the origin peer (real HTTP) dates its posts by ours.
    const clock = createManualClock(new Date());
    const n = await clientApiNode({ SWARM_DEV: '1' }, { clock });
    const origin = await startOriginPeer({
      users: [{ handle: 'olive', displayName: 'Olive' }],
      now: () => clock.now(),
    });
    const readers: ReadableStreamDefaultReader<string>[] = [];
    try {
      const veraAuth = authServicesOf(n.node);
      const vera = await veraAuth.accounts.createUser({ handle: 'vera', isAdmin: false });
      if (!vera.ok) throw new Error(vera.reason.message);
      const app = await veraAuth.developerApps.create(vera.value.user.id, {
        name: 'Reader',
        scopes: ['read', 'write'],
      });
      if (!app.ok) throw new Error(app.reason.message);
      const auth = { authorization: `Bearer ${app.value.accessToken}` };

      /** An event stream, and the events it received so far. */
      const listen = async (headers: Record<string, string>) => {
        const res = await n.request('/api/v1/streaming/public/remote', { headers });
        expect(res.status).toBe(200);
        const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
        readers.push(reader);
        let text = '';
        void (async () => {
          for (;;) {
            const { value, done } = await reader.read().catch(() => ({ value: '', done: true }));
            if (done) return;
            text += value;
          }
        })();
        const events = () =>
          [...text.matchAll(/event: (\S+)\ndata: (.*)\n\n/g)].map((m) => ({
            event: m[1]!,
            status: JSON.parse(m[2]!) as {
              id: string;
              content: string;
              bookmarked: boolean;
              edited_at: string | null;
            },
          }));
        return { events };
      };
      const mine = await listen(auth);
      const anyone = await listen({});

      const original = origin.addPost('olive', 'first words');
      const found = await n.request(
        `/api/v2/search?type=statuses&resolve=true&q=${encodeURIComponent(`${origin.url}/posts/${original.id}`)}`,
        { headers: auth },
      );
      const [copy] = ((await found.json()) as { statuses: { id: string }[] }).statuses;
      expect(copy).toBeDefined();
      for (const stream of [mine, anyone]) {
        await expect
          .poll(() => stream.events().map((e) => e.event), { timeout: 10_000 })
          .toEqual(['update']);
      }
      const bookmarked = await n.request(`/api/v1/statuses/${copy!.id}/bookmark`, {
        method: 'POST',
        headers: auth,
      });
      expect(bookmarked.status).toBe(200);

      expect(mine.events()[0]!.status.edited_at).toBeNull();

      // Its node says it differently now; the thread read after the copy is stale refreshes it.
      // The origin sends no edit time: `edited_at` is when this node saw the change.
      origin.posts.get(original.id)!.content = 'second words';
      clock.advance(11 * 60_000);
      const seenAt = clock.now().toISOString();
      expect(
        (await n.request(`/api/v1/statuses/${copy!.id}/context`, { headers: auth })).status,
      ).toBe(200);
      await n.node.threads.settled();
      for (const [stream, bookmark] of [
        [mine, true],
        [anyone, false],
      ] as const) {
        await expect
          .poll(() => stream.events().map((e) => e.event), { timeout: 10_000 })
          .toEqual(['update', 'status.update']);
        expect(stream.events()[1]!.status).toMatchObject({
          id: copy!.id,
          content: expect.stringContaining('second words'),
          bookmarked: bookmark,
          edited_at: seenAt,
        });
      }
      const read = await n.request(`/api/v1/statuses/${copy!.id}`, { headers: auth });
      expect(await read.json()).toMatchObject({ edited_at: seenAt });
    } finally {
      for (const reader of readers) await reader.cancel().catch(() => undefined);
      await origin.close();
      await n.close();
    }
  }, 60_000);
});

describe('Idempotency-Key, shared by the replicas of the node', () => {
  /** A second client API over the same database, as another web replica. */
  let replica: TestNode;
  let token: string;
  let userId: string;
  const keys = () => t.node.db.prisma.postIdempotencyKey.findMany({ where: { userId } });

  beforeAll(async () => {
    replica = await clientApiNode({}, { replicaOf: t });
    const made = await auth.accounts.createUser({ handle: 'ivy', isAdmin: false });
    if (!made.ok) throw new Error(made.reason.message);
    userId = made.value.user.id;
    const app = await auth.developerApps.create(userId, { name: 'Retrier', scopes: ['write'] });
    if (!app.ok) throw new Error(app.reason.message);
    token = app.value.accessToken;
  });
  afterAll(async () => {
    await replica?.close();
  });

  const post = async (on: TestNode, key: string, status: string) => {
    const res = await on.request('/api/v1/statuses', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body: JSON.stringify({ status }),
    });
    return { status: res.status, body: (await res.json()) as { id: string; error?: string } };
  };
  const postsOf = () => t.node.db.prisma.post.count({ where: { authorId: userId } });

  it('answers a retry on the other replica with the first post; a failed post frees its key', async () => {
    const first = await post(t, 'retry-1', 'posted once');
    expect(first.status).toBe(200);
    expect(await post(replica, 'retry-1', 'posted once')).toEqual(first);
    expect(await postsOf()).toBe(1);

    // Refused by the node (empty): the key is free, and the next request with it posts.
    expect((await post(replica, 'retry-2', '')).status).toBe(422);
    expect(await keys()).toHaveLength(1);
    const second = await post(t, 'retry-2', 'second try');
    expect(second.status).toBe(200);
    expect(second.body.id).not.toBe(first.body.id);

    // Sent together to both replicas: one post, both answer it.
    const [one, two] = await Promise.all([
      post(t, 'retry-3', 'at once'),
      post(replica, 'retry-3', 'at once'),
    ]);
    expect(one).toEqual(two);
    expect(await postsOf()).toBe(3);
  });

  it('makes a retry wait for the request holding the key, or answers 409 past the wait', async () => {
    // Another replica is making the post right now: its claim is in the table, without a post.
    const held = await t.node.db.prisma.postIdempotencyKey.create({
      data: { userId, key: 'held', createdAt: t.clock.now() },
    });
    // A replica that waits 200 ms for it answers 409.
    const hurried = await clientApiNode({}, { replicaOf: t, postKeyWaitMs: 200 });
    try {
      const conflict = await post(hurried, 'held', 'held elsewhere');
      expect(conflict.status).toBe(409);
      expect(conflict.body).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    } finally {
      await hurried.close();
    }

    // Another waits (10 s at most) for the holder, who finishes with its post meanwhile.
    const waiting = post(replica, 'held', 'held elsewhere');
    const made = await t.node.actions.posts.create(userId, { content: 'made by the holder' });
    if (!made.ok) throw new Error(made.reason.message);
    await t.node.db.prisma.postIdempotencyKey.update({
      where: { id: held.id },
      data: { postId: made.value.post.id },
    });
    const answered = await waiting;
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ content: expect.stringContaining('made by the holder') });
  });

  it('takes over a claim its replica abandoned, and forgets keys past the hour', async () => {
    const before = await postsOf();
    await t.node.db.prisma.postIdempotencyKey.create({
      data: { userId, key: 'abandoned', createdAt: t.clock.now() },
    });
    t.clock.advance(2 * 60_000);
    expect((await post(replica, 'abandoned', 'after a crash')).status).toBe(200);
    expect(await postsOf()).toBe(before + 1);

    const kept = await post(t, 'retry-1', 'posted once');
    t.clock.advance(61 * 60_000);
    const again = await post(replica, 'retry-1', 'posted once');
    expect(again.status).toBe(200);
    expect(again.body.id).not.toBe(kept.body.id);
    // The sweep removes the keys past the hour (retry-2, retry-3, held, abandoned), not the new one.
    expect(await t.node.actions.postKeys.sweep()).toBe(4);
    expect((await keys()).map((k) => k.key)).toEqual(['retry-1']);
  });
});
