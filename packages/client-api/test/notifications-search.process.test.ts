import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, nodeOnPort, type RestartableNode } from '@swarm/testnet';
import { createRestAPIClient, type mastodon } from 'masto';
import generator from 'megalodon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Notifications, a person's statuses and search through the front door (docs/clients.md): two
// nodes started as the README says, A and B (B names A as its seed); alice and carol on A, bob
// on B, each with a token made in Settings → Development. Posts are written through the admin
// API (the client API's own posting is tested with statuses). `pnpm build` first.

const PASSWORD = 'correct horse battery staple';
const ADMIN_TOKEN = 'client-api-notifications-admin-token-0123456789';
/** Pushes between nodes go through the outbox worker (every few seconds; longer under load). */
const ARRIVAL = { timeout: 60_000, interval: 500 };

let dataDir: string;
let a: RestartableNode;
let b: RestartableNode;
let alice: mastodon.rest.Client;
let aliceToken: string;
let carol: mastodon.rest.Client;
let bobOnB: mastodon.rest.Client;
let ids: { alice: string; carol: string; bob: string };
let nextAddress = 1;
const address = () => `198.51.100.${nextAddress++}`;

async function signUp(node: RestartableNode, handle: string) {
  const response = await fetch(`${node.url}/signup`, {
    method: 'POST',
    headers: { accept: 'text/html', origin: node.url, 'x-forwarded-for': address() },
    body: new URLSearchParams({ handle, displayName: handle.toUpperCase(), password: PASSWORD }),
    redirect: 'manual',
  });
  expect(response.status).toBe(303);
  const cookie = /swarm_session=[^;]+/.exec(response.headers.get('set-cookie') ?? '')![0];
  const made = await fetch(`${node.url}/trpc/settings.createDeveloperApp`, {
    method: 'POST',
    headers: { origin: node.url, 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name: `${handle}'s bot`, scopes: ['read', 'write', 'follow'] }),
  });
  expect(made.status).toBe(200);
  return ((await made.json()) as { result: { data: { accessToken: string } } }).result.data
    .accessToken;
}

async function adminPost(node: RestartableNode, body: Record<string, unknown>) {
  const response = await fetch(`${node.url}/api/swarm/admin/posts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { post: { id: string } }).post.id;
}

const bearer = (path: string, token = aliceToken) =>
  fetch(`${a.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

const nextLink = (response: Response) => {
  const href = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  return href ? new URL(href).pathname + new URL(href).search : null;
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swarm-client-notifications-'));
  const env = { ADDRESS_HEADER: 'X-Forwarded-For', XFF_DEPTH: '1', ADMIN_TOKEN };
  a = nodeOnPort({
    dataDir: join(dataDir, 'a'),
    port: await freePort(),
    env: { ...env, SWARM_NODE_NAME: 'Node A' },
  });
  b = nodeOnPort({
    dataDir: join(dataDir, 'b'),
    port: await freePort(),
    env: { ...env, SWARM_NODE_NAME: 'Node B', SWARM_SEEDS: a.domain },
  });
  await Promise.all([a.start(), b.start()]);
  aliceToken = await signUp(a, 'alice');
  alice = createRestAPIClient({ url: a.url, accessToken: aliceToken });
  carol = createRestAPIClient({ url: a.url, accessToken: await signUp(a, 'carol') });
  bobOnB = createRestAPIClient({ url: b.url, accessToken: await signUp(b, 'bob') });
  ids = {
    alice: (await alice.v1.accounts.verifyCredentials()).id,
    carol: (await carol.v1.accounts.verifyCredentials()).id,
    bob: (await alice.v1.accounts.lookup({ acct: `bob@${b.domain}` })).id,
  };
}, 240_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await rm(dataDir, { recursive: true, force: true });
});

describe('notifications', () => {
  let mentionId: string;

  it('a local follow and a mention; a remote follow', async () => {
    await carol.v1.accounts.$select(ids.alice).follow();
    await adminPost(a, { handle: 'carol', content: 'hello @alice, see #swarmtag' });
    // bob follows alice from B, through B's client API: A hears of it.
    const aliceOnB = await bobOnB.v1.accounts.lookup({ acct: `alice@${a.domain}` });
    await bobOnB.v1.accounts.$select(aliceOnB.id).follow();
    await expect.poll(async () => (await alice.v1.notifications.list()).length, ARRIVAL).toBe(3);
    const list = await alice.v1.notifications.list();
    expect(list.map((n) => [n.type, n.account?.acct])).toEqual([
      ['follow', `bob@${b.domain}`],
      ['mention', 'carol'],
      ['follow', 'carol'],
    ]);
    const mention = list[1]!;
    mentionId = mention.id;
    expect(mention.status).toMatchObject({ account: { id: ids.carol } });
    expect(mention.status!.content).toContain('hello');
    expect(list[0]!.status).toBeUndefined();
    // Ids sort in time order as decimal strings of one length.
    expect(BigInt(list[0]!.id)).toBeGreaterThan(BigInt(list[2]!.id));
  }, 120_000);

  it('filters by type, excluded type and account; megalodon reads the same', async () => {
    const follows = await alice.v1.notifications.list({ types: ['follow'] });
    expect(follows.map((n) => n.account?.acct)).toEqual([`bob@${b.domain}`, 'carol']);
    const noFollows = await alice.v1.notifications.list({ excludeTypes: ['follow'] });
    expect(noFollows.map((n) => n.type)).toEqual(['mention']);
    const byBob = await alice.v1.notifications.list({ accountId: ids.bob });
    expect(byBob.map((n) => n.type)).toEqual(['follow']);
    expect(await alice.v1.notifications.list({ types: ['poll'] })).toEqual([]);
    const client = generator('mastodon', a.url, aliceToken);
    const got = await client.getNotifications({ exclude_types: ['follow' as never] });
    expect(got.data.map((n) => n.type)).toEqual(['mention']);
  });

  it('pages by id with Link headers', async () => {
    const first = await bearer('/api/v1/notifications?limit=2');
    const page1 = (await first.json()) as { id: string }[];
    expect(page1).toHaveLength(2);
    const next = nextLink(first);
    expect(next).toContain(`max_id=${page1[1]!.id}`);
    const page2 = (await (await bearer(next!)).json()) as { id: string; type: string }[];
    expect(page2.map((n) => n.type)).toEqual(['follow']);
    const newer = (await (
      await bearer(`/api/v1/notifications?min_id=${page2[0]!.id}&limit=1`)
    ).json()) as { id: string }[];
    expect(newer.map((n) => n.id)).toEqual([page1[1]!.id]);
    const since = (await (
      await bearer(`/api/v1/notifications?since_id=${page2[0]!.id}&limit=1`)
    ).json()) as { id: string }[];
    expect(since.map((n) => n.id)).toEqual([page1[0]!.id]);
    expect(await (await bearer('/api/v1/notifications?max_id=abc')).json()).toEqual([]);
  });

  it('one by id; dismiss; unknown ids and others’ are 404; clear', async () => {
    expect((await alice.v1.notifications.$select(mentionId).fetch()).type).toBe('mention');
    for (const id of ['abc', '1', mentionId + '0']) {
      const response = await bearer(`/api/v1/notifications/${id}`);
      expect(response.status).toBe(404);
    }
    await alice.v1.notifications.$select(mentionId).dismiss();
    expect((await bearer(`/api/v1/notifications/${mentionId}`)).status).toBe(404);
    expect((await alice.v1.notifications.list()).map((n) => n.type)).toEqual(['follow', 'follow']);
    const dismissAgain = await fetch(`${a.url}/api/v1/notifications/${mentionId}/dismiss`, {
      method: 'POST',
      headers: { authorization: `Bearer ${aliceToken}` },
    });
    expect(dismissAgain.status).toBe(404);
    await alice.v1.notifications.clear();
    expect(await alice.v1.notifications.list()).toEqual([]);
    expect((await fetch(`${a.url}/api/v1/notifications`)).status).toBe(401);
  });
});

describe("a person's statuses", () => {
  it('local: newest first, paged by id, filters; pinned is empty', async () => {
    const first = await adminPost(a, { handle: 'carol', content: 'carol one' });
    await adminPost(a, { handle: 'carol', content: 'carol two' });
    await adminPost(a, { handle: 'carol', content: 'carol replies', replyToId: first });
    const all = await carol.v1.accounts.$select(ids.carol).statuses.list();
    expect(all.map((s) => s.content.replace(/<[^>]+>/g, ''))).toEqual([
      'carol replies',
      'carol two',
      'carol one',
      'hello @alice, see #swarmtag',
    ]);
    const noReplies = await alice.v1.accounts
      .$select(ids.carol)
      .statuses.list({ excludeReplies: true });
    expect(noReplies).toHaveLength(3);
    expect(await alice.v1.accounts.$select(ids.carol).statuses.list({ pinned: true })).toEqual([]);
    const paged = await bearer(`/api/v1/accounts/${ids.carol}/statuses?limit=2`);
    const page1 = (await paged.json()) as { id: string }[];
    const next = nextLink(paged);
    expect(next).toContain(`max_id=${page1[1]!.id}`);
    const page2 = (await (await bearer(next!)).json()) as { id: string }[];
    expect(page2).toHaveLength(2);
    expect(BigInt(page2[0]!.id)).toBeLessThan(BigInt(page1[1]!.id));
    // Anyone may read public posts; an unknown account is 404.
    expect((await fetch(`${a.url}/api/v1/accounts/${ids.carol}/statuses`)).status).toBe(200);
    expect(
      (await fetch(`${a.url}/api/v1/accounts/00000000-0000-4000-8000-000000000000/statuses`))
        .status,
    ).toBe(404);
  });

  it("remote: bob's posts as copies, once alice follows him", async () => {
    await alice.v1.accounts.$select(ids.bob).follow();
    await expect
      .poll(
        async () => (await alice.v1.accounts.relationships.fetch({ id: [ids.bob] }))[0]?.following,
        ARRIVAL,
      )
      .toBe(true);
    await adminPost(b, { handle: 'bob', content: 'news from bob' });
    await expect
      .poll(
        async () =>
          (await alice.v1.accounts.$select(ids.bob).statuses.list()).map((s) =>
            s.content.replace(/<[^>]+>/g, ''),
          ),
        ARRIVAL,
      )
      .toContain('news from bob');
    const [status] = await alice.v1.accounts.$select(ids.bob).statuses.list();
    expect(status!.account).toMatchObject({ id: ids.bob, acct: `bob@${b.domain}` });
  }, 150_000);

  it('favourites: the person’s own likes, newest first; the author is notified', async () => {
    expect(await alice.v1.favourites.list()).toEqual([]);
    const carolPosts = await alice.v1.accounts.$select(ids.carol).statuses.list();
    const [newest, , oldest] = carolPosts;
    await alice.v1.statuses.$select(oldest!.id).favourite();
    await alice.v1.statuses.$select(newest!.id).favourite();
    const liked = await alice.v1.favourites.list();
    expect(liked.map((s) => s.id)).toEqual([newest!.id, oldest!.id]);
    expect(liked[0]!.favourited).toBe(true);
    const paged = await bearer('/api/v1/favourites?limit=1');
    expect(((await paged.json()) as { id: string }[]).map((s) => s.id)).toEqual([newest!.id]);
    const page2 = (await (await bearer(nextLink(paged)!)).json()) as { id: string }[];
    expect(page2.map((s) => s.id)).toEqual([oldest!.id]);
    const forCarol = await carol.v1.notifications.list({ types: ['favourite'] });
    expect(forCarol.map((n) => [n.account?.acct, n.status?.id])).toEqual([
      ['alice', newest!.id],
      ['alice', oldest!.id],
    ]);
    expect((await fetch(`${a.url}/api/v1/favourites`)).status).toBe(401);
  });
});

describe('search', () => {
  it('people here by handle; a remote address only with resolve', async () => {
    const found = await alice.v2.search.list({ q: 'caro', type: 'accounts' });
    expect(found.accounts.map((x) => x.acct)).toEqual(['carol']);
    const remote = await alice.v2.search.list({ q: `bob@${b.domain}`, resolve: true });
    expect(remote.accounts.map((x) => x.acct)).toEqual([`bob@${b.domain}`]);
    const byUrl = await alice.v2.search.list({ q: `${b.url}/@bob`, resolve: true });
    expect(byUrl.accounts.map((x) => x.id)).toEqual([ids.bob]);
    const resolveAnonymously = await fetch(
      `${a.url}/api/v2/search?q=${encodeURIComponent(`bob@${b.domain}`)}&resolve=true`,
    );
    expect(resolveAnonymously.status).toBe(401);
  });

  it('a post by its URL: ours at once; another node’s only with resolve, then kept', async () => {
    const [carols] = await alice.v1.accounts.$select(ids.carol).statuses.list();
    const ours = await alice.v2.search.list({ q: carols!.url!, type: 'statuses' });
    expect(ours.statuses.map((s) => s.id)).toEqual([carols!.id]);
    // dora on B is followed by nobody on A: her post is not here until it is resolved.
    await signUp(b, 'dora');
    const postId = await adminPost(b, { handle: 'dora', content: 'found by its address' });
    const url = `${b.url}/posts/${postId}`;
    expect((await alice.v2.search.list({ q: url })).statuses).toEqual([]);
    const resolved = await alice.v2.search.list({ q: url, resolve: true });
    expect(resolved.statuses.map((s) => [s.account.acct, s.url])).toEqual([
      [`dora@${b.domain}`, url],
    ]);
    expect(resolved.statuses[0]!.content).toContain('found by its address');
    // Kept: found again without resolve, and by id.
    expect((await alice.v2.search.list({ q: url })).statuses.map((s) => s.id)).toEqual([
      resolved.statuses[0]!.id,
    ]);
    // Not a post's address, or a post that does not exist: nothing, not an error.
    for (const q of [`${b.url}/posts/%00`, `${b.url}/posts/${crypto.randomUUID()}`]) {
      const response = await bearer(`/api/v2/search?resolve=true&q=${encodeURIComponent(q)}`);
      expect([
        response.status,
        ((await response.json()) as { statuses: unknown[] }).statuses,
      ]).toEqual([200, []]);
    }
  });

  it('a mention in a post never copied here shows once its post is fetched in the background', async () => {
    // dora (B, followed by nobody on A) mentions alice: A is told of the mention, not sent the post.
    const postId = await adminPost(b, {
      handle: 'dora',
      content: `@alice@${a.domain} a word from B`,
    });
    const mentions = async () =>
      (await alice.v1.notifications.list({ types: ['mention'] })).filter(
        (n) => n.account?.acct === `dora@${b.domain}`,
      );
    // The first reads leave it out and fetch the post; a later one has it.
    await expect
      .poll(async () => (await mentions()).map((n) => n.status?.url), ARRIVAL)
      .toEqual([`${b.url}/posts/${postId}`]);
    expect((await mentions())[0]!.status!.content).toContain('a word from B');
  }, 150_000);

  it('statuses by words and hashtags', async () => {
    const posts = await alice.v2.search.list({ q: 'hello', type: 'statuses' });
    expect(posts.statuses.map((s) => s.account.acct)).toEqual(['carol']);
    expect(posts.accounts).toEqual([]);
    const tags = await alice.v2.search.list({ q: '#swarmtag', type: 'hashtags' });
    expect(tags.hashtags.map((t) => t.name)).toEqual(['swarmtag']);
    const bad = await bearer('/api/v2/search?q=x&type=people');
    expect(bad.status).toBe(422);
    expect((await bearer(`/api/v2/search?q=${'x'.repeat(300)}`)).status).toBe(422);
  });

  it('a suspended person is never found, nor shown by id', async () => {
    const suspended = await fetch(`${a.url}/api/swarm/admin/users/carol/suspension`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ suspended: true, reason: 'test' }),
    });
    expect(suspended.status).toBe(200);
    expect((await alice.v2.search.list({ q: 'carol' })).accounts).toEqual([]);
    expect((await bearer(`/api/v1/accounts/${ids.carol}`)).status).toBe(404);
    expect((await bearer('/api/v1/accounts/lookup?acct=carol')).status).toBe(404);
  });
});
