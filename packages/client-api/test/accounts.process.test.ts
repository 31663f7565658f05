import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, nodeOnPort, type RestartableNode } from '@swarm/testnet';
import { createRestAPIClient, MastoHttpError, type mastodon } from 'masto';
import generator from 'megalodon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Accounts through the front door (docs/clients.md "Accounts"): two nodes started as the README
// says, A and B (B names A as its seed). alice and carol live on A, bob on B. alice's token is
// made in Settings → Development (the tRPC procedure behind that page), then masto.js and
// megalodon act with it on local (carol) and remote (bob) accounts. `pnpm build` first.

const PASSWORD = 'correct horse battery staple';
const ADMIN_TOKEN = 'client-accounts-admin-token-0123456789';
/** A 1×1 PNG: an avatar small enough for any upload limit. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

let dataDir: string;
let a: RestartableNode;
let b: RestartableNode;
let aliceCookie: string;
let carolCookie: string;
let bobCookie: string;
let aliceToken: string;
let carolToken: string;
let masto: mastodon.rest.Client;
let nextAddress = 1;
const address = () => `198.51.100.${nextAddress++}`;

async function signUp(node: RestartableNode, handle: string, displayName: string) {
  const response = await fetch(`${node.url}/signup`, {
    method: 'POST',
    headers: { accept: 'text/html', origin: node.url, 'x-forwarded-for': address() },
    body: new URLSearchParams({ handle, displayName, password: PASSWORD }),
    redirect: 'manual',
  });
  expect(response.status).toBe(303);
  return /swarm_session=[^;]+/.exec(response.headers.get('set-cookie') ?? '')![0];
}

async function trpc(node: RestartableNode, cookie: string, path: string, body: unknown) {
  const response = await fetch(`${node.url}/trpc/${path}`, {
    method: 'POST',
    headers: { origin: node.url, 'content-type': 'application/json', cookie },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { result?: { data: unknown } },
  };
}

/** An app and token made in Settings → Development, as a bot's author does. */
async function developerToken(node: RestartableNode, cookie: string, scopes: string[]) {
  const made = await trpc(node, cookie, 'settings.createDeveloperApp', {
    name: 'Test bot',
    scopes,
  });
  expect(made.status).toBe(200);
  return (made.body.result!.data as { accessToken: string }).accessToken;
}

const bearer = (token: string, path: string, init: RequestInit = {}) =>
  fetch(`${a.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) },
  });

async function errorOf(response: Response) {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: response.status, error: ((await response.json()) as { error: string }).error };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swarm-client-accounts-'));
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
  aliceCookie = await signUp(a, 'alice', 'Alice A.');
  carolCookie = await signUp(a, 'carol', 'Carol C.');
  bobCookie = await signUp(b, 'bob', 'Bob B.');
  aliceToken = await developerToken(a, aliceCookie, ['read', 'write', 'follow']);
  carolToken = await developerToken(a, carolCookie, ['read', 'write', 'follow']);
  masto = createRestAPIClient({ url: a.url, accessToken: aliceToken });
}, 240_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await rm(dataDir, { recursive: true, force: true });
});

describe('a token made in Settings → Development', () => {
  it('works with masto.js and megalodon as the person, and is listed, then deleted', async () => {
    const me = await masto.v1.accounts.verifyCredentials();
    expect(me).toMatchObject({ username: 'alice', acct: 'alice', displayName: 'Alice A.' });
    const client = generator('mastodon', a.url, aliceToken);
    expect((await client.verifyAccountCredentials()).data.username).toBe('alice');
    const list = await fetch(`${a.url}/trpc/settings.developerApps`, {
      headers: { cookie: aliceCookie, origin: a.url },
    });
    const apps = ((await list.json()) as { result: { data: { id: string; name: string }[] } })
      .result.data;
    expect(apps.map((x) => x.name)).toEqual(['Test bot']);
    // A second app, deleted: its token stops at once.
    const other = await developerToken(a, aliceCookie, ['read']);
    expect((await bearer(other, '/api/v1/accounts/verify_credentials')).status).toBe(200);
    const again = await fetch(`${a.url}/trpc/settings.developerApps`, {
      headers: { cookie: aliceCookie, origin: a.url },
    });
    const newest = ((await again.json()) as { result: { data: { id: string }[] } }).result.data[0]!;
    const deleted = await trpc(a, aliceCookie, 'settings.deleteDeveloperApp', {
      appId: newest.id,
    });
    expect(deleted.status).toBe(200);
    expect(await errorOf(await bearer(other, '/api/v1/accounts/verify_credentials'))).toEqual({
      status: 401,
      error: 'The access token is invalid',
    });
  });

  it('refuses an unknown scope and a blank name with the field named', async () => {
    const bad = await trpc(a, aliceCookie, 'settings.createDeveloperApp', {
      name: 'x',
      scopes: ['admin:read'],
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('Unknown scope: admin:read.');
    const blank = await trpc(a, aliceCookie, 'settings.createDeveloperApp', {
      name: '  ',
      scopes: ['read'],
    });
    expect(blank.status).toBe(400);
  });
});

describe('local accounts', () => {
  let carolId: string;

  it('by lookup and by id, with the bot flag; unknown ids are 404', async () => {
    const carol = await masto.v1.accounts.lookup({ acct: 'carol' });
    expect(carol).toMatchObject({ username: 'carol', acct: 'carol', bot: false });
    carolId = carol.id;
    expect((await masto.v1.accounts.$select(carolId).fetch()).displayName).toBe('Carol C.');
    expect(await masto.v1.accounts.lookup({ acct: `carol@${a.domain}` })).toMatchObject({
      id: carolId,
    });
    for (const id of ['nope', '00000000-0000-4000-8000-000000000000', '1'.repeat(40)]) {
      expect(await errorOf(await bearer(aliceToken, `/api/v1/accounts/${id}`))).toEqual({
        status: 404,
        error: 'Record not found',
      });
    }
    expect(
      (await errorOf(await bearer(aliceToken, '/api/v1/accounts/lookup?acct=nobody'))).status,
    ).toBe(404);
    expect((await errorOf(await bearer(aliceToken, '/api/v1/accounts/lookup'))).status).toBe(422);
    expect(await masto.v1.accounts.$select(carolId).featuredTags.list()).toEqual([]);
  });

  it('follow, relationships, followers and following; unfollow', async () => {
    const followed = await masto.v1.accounts.$select(carolId).follow();
    expect(followed).toMatchObject({ id: carolId, following: true, requested: false });
    const [relationship] = await masto.v1.accounts.relationships.fetch({ id: [carolId] });
    expect(relationship).toMatchObject({ following: true, followedBy: false, muting: false });
    const followers = await masto.v1.accounts.$select(carolId).followers.list();
    expect(followers.map((x) => x.acct)).toEqual(['alice']);
    const me = await masto.v1.accounts.verifyCredentials();
    const following = await masto.v1.accounts.$select(me.id).following.list();
    expect(following.map((x) => x.acct)).toEqual(['carol']);
    // carol follows back: alice sees `followed_by`.
    const carolMasto = createRestAPIClient({ url: a.url, accessToken: carolToken });
    await carolMasto.v1.accounts.$select(me.id).follow();
    const [both] = await masto.v1.accounts.relationships.fetch({ id: [carolId, 'nope'] });
    expect(both).toMatchObject({ following: true, followedBy: true });
    expect(await masto.v1.accounts.$select(carolId).unfollow()).toMatchObject({
      following: false,
      followedBy: true,
    });
  });

  it('pages followers with Link headers (limit, max_id, min_id)', async () => {
    const me = await masto.v1.accounts.verifyCredentials();
    const dave = await signUp(a, 'dave', 'Dave');
    const daveToken = await developerToken(a, dave, ['read', 'write', 'follow']);
    await createRestAPIClient({ url: a.url, accessToken: daveToken })
      .v1.accounts.$select(me.id)
      .follow();
    const first = await bearer(aliceToken, `/api/v1/accounts/${me.id}/followers?limit=1`);
    expect(((await first.json()) as { acct: string }[]).map((x) => x.acct)).toEqual(['dave']);
    const link = first.headers.get('link') ?? '';
    const next = /<([^>]+)>; rel="next"/.exec(link)?.[1];
    expect(next).toContain('max_id=');
    expect(link).toContain('rel="prev"');
    const second = await bearer(aliceToken, new URL(next!).pathname + new URL(next!).search);
    expect(((await second.json()) as { acct: string }[]).map((x) => x.acct)).toEqual(['carol']);
    const prev = /<([^>]+)>; rel="prev"/.exec(second.headers.get('link') ?? '')?.[1];
    const back = await bearer(aliceToken, new URL(prev!).pathname + new URL(prev!).search);
    expect(((await back.json()) as { acct: string }[]).map((x) => x.acct)).toEqual(['dave']);
    // masto.js follows the Link header itself.
    const pages: string[][] = [];
    for await (const page of masto.v1.accounts.$select(me.id).followers.list({ limit: 1 })) {
      pages.push(page.map((x) => x.acct));
      if (pages.length > 5) break;
    }
    // A full page links to the next one, which may be empty (as on Mastodon).
    expect(pages.filter((p) => p.length > 0)).toEqual([['dave'], ['carol']]);
    const garbage = await bearer(
      aliceToken,
      `/api/v1/accounts/${me.id}/followers?max_id=not-a-cursor`,
    );
    expect(garbage.status).toBe(200);
    expect(await garbage.json()).toEqual([]);
  });

  it('mute and block, listed; undone', async () => {
    expect(await masto.v1.accounts.$select(carolId).mute()).toMatchObject({ muting: true });
    expect((await masto.v1.mutes.list()).map((x) => x.id)).toEqual([carolId]);
    expect(await masto.v1.accounts.$select(carolId).unmute()).toMatchObject({ muting: false });
    expect(await masto.v1.mutes.list()).toEqual([]);
    expect(await masto.v1.accounts.$select(carolId).block()).toMatchObject({ blocking: true });
    expect((await masto.v1.blocks.list()).map((x) => x.id)).toEqual([carolId]);
    // Her follow of alice went with the block.
    expect((await masto.v1.accounts.relationships.fetch({ id: [carolId] }))[0]).toMatchObject({
      blocking: true,
      followedBy: false,
    });
    expect(await masto.v1.accounts.$select(carolId).unblock()).toMatchObject({ blocking: false });
    expect(await masto.v1.blocks.list()).toEqual([]);
  });

  it('refuses yourself and scopes that do not cover the action', async () => {
    const me = await masto.v1.accounts.verifyCredentials();
    const self = await bearer(aliceToken, `/api/v1/accounts/${me.id}/follow`, { method: 'POST' });
    expect(await errorOf(self)).toEqual({ status: 422, error: 'You cannot follow yourself.' });
    const readOnly = await developerToken(a, aliceCookie, ['read']);
    const refused = await bearer(readOnly, `/api/v1/accounts/${carolId}/follow`, {
      method: 'POST',
    });
    expect(await errorOf(refused)).toEqual({
      status: 403,
      error: 'This action is outside the authorized scopes',
    });
    const anonymous = await fetch(`${a.url}/api/v1/accounts/${carolId}/block`, { method: 'POST' });
    expect((await errorOf(anonymous)).status).toBe(401);
  });
});

describe('remote accounts', () => {
  let bobId: string;

  it('lookup resolves bob@B from his node; then by id', async () => {
    const bob = await masto.v1.accounts.lookup({ acct: `bob@${b.domain}` });
    expect(bob).toMatchObject({
      username: 'bob',
      acct: `bob@${b.domain}`,
      displayName: 'Bob B.',
      url: `${b.url}/@bob`,
    });
    bobId = bob.id;
    expect(await masto.v1.accounts.$select(bobId).fetch()).toMatchObject({
      acct: `bob@${b.domain}`,
    });
    const missing = await bearer(aliceToken, `/api/v1/accounts/lookup?acct=nobody@${b.domain}`);
    expect((await errorOf(missing)).status).toBe(404);
  });

  it('follow reaches B (requested, then following); lists and unfollow', async () => {
    const followed = await masto.v1.accounts.$select(bobId).follow();
    expect(followed.following || followed.requested).toBe(true);
    await expect
      .poll(
        async () => (await masto.v1.accounts.relationships.fetch({ id: [bobId] }))[0]?.following,
        { timeout: 60_000 },
      )
      .toBe(true);
    // B counts alice among bob's followers.
    await expect
      .poll(
        async () => {
          const page = (await (await fetch(`${b.url}/api/swarm/users/bob/followers`)).json()) as {
            followers?: { handle: string }[];
          };
          return page.followers?.map((e) => e.handle);
        },
        { timeout: 60_000 },
      )
      .toEqual([`alice@${a.domain}`]);
    const me = await masto.v1.accounts.verifyCredentials();
    expect((await masto.v1.accounts.$select(me.id).following.list()).map((x) => x.acct)).toContain(
      `bob@${b.domain}`,
    );
    expect((await masto.v1.accounts.$select(bobId).followers.list()).map((x) => x.acct)).toEqual([
      'alice',
    ]);
    expect(await masto.v1.accounts.$select(bobId).unfollow()).toMatchObject({
      following: false,
      requested: false,
    });
  }, 150_000);

  it('mute and block a remote person', async () => {
    expect(await masto.v1.accounts.$select(bobId).mute()).toMatchObject({ muting: true });
    expect((await masto.v1.mutes.list()).map((x) => x.acct)).toEqual([`bob@${b.domain}`]);
    await masto.v1.accounts.$select(bobId).unmute();
    expect(await masto.v1.accounts.$select(bobId).block()).toMatchObject({ blocking: true });
    expect((await masto.v1.blocks.list()).map((x) => x.acct)).toEqual([`bob@${b.domain}`]);
    await masto.v1.accounts.$select(bobId).unblock();
  });
});

describe('lists and bookmarks', () => {
  let carolId: string;
  let bobId: string;
  let listId: string;
  const lists = () => masto.v1.lists;

  it('a list: made, read, renamed; bad titles, policies and others’ lists refused', async () => {
    const made = await lists().create({ title: 'Friends' });
    expect(made).toMatchObject({ title: 'Friends', repliesPolicy: 'list', exclusive: false });
    listId = made.id;
    const followed = await bearer(aliceToken, `/api/v1/lists/${listId}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ replies_policy: 'followed' }),
    });
    expect(await followed.json()).toMatchObject({ replies_policy: 'followed', title: 'Friends' });
    expect((await lists().list()).map((l) => l.title)).toEqual(['Friends']);
    expect(await lists().$select(listId).fetch()).toMatchObject({ id: listId, title: 'Friends' });
    const renamed = await lists().$select(listId).update({ title: 'Close friends' });
    expect(renamed).toMatchObject({ title: 'Close friends', repliesPolicy: 'followed' });
    // megalodon reads the same lists.
    const client = generator('mastodon', a.url, aliceToken);
    expect((await client.getLists()).data.map((l) => l.title)).toEqual(['Close friends']);

    const blank = await bearer(aliceToken, '/api/v1/lists', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: '  ' }),
    });
    expect(await errorOf(blank)).toMatchObject({ status: 422 });
    const policy = await bearer(aliceToken, `/api/v1/lists/${listId}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ replies_policy: 'everyone' }),
    });
    expect(await errorOf(policy)).toMatchObject({ status: 422 });
    // Another person's list does not exist for carol; nor does a made-up id.
    for (const path of [`/api/v1/lists/${listId}`, `/api/v1/timelines/list/${listId}`]) {
      expect((await errorOf(await bearer(carolToken, path))).status).toBe(404);
    }
    expect((await errorOf(await bearer(aliceToken, '/api/v1/lists/12'))).status).toBe(404);
    const readOnly = await developerToken(a, aliceCookie, ['read']);
    const refused = await bearer(readOnly, '/api/v1/lists', { method: 'POST' });
    expect((await errorOf(refused)).status).toBe(403);
  });

  it('members: people followed here and on B; others refused', async () => {
    carolId = (await masto.v1.accounts.lookup({ acct: 'carol' })).id;
    bobId = (await masto.v1.accounts.lookup({ acct: `bob@${b.domain}` })).id;
    const notFollowed = await bearer(aliceToken, `/api/v1/lists/${listId}/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ account_ids: [carolId] }),
    });
    expect((await errorOf(notFollowed)).status).toBe(422);
    const empty = await bearer(aliceToken, `/api/v1/lists/${listId}/accounts`, {
      method: 'POST',
    });
    expect((await errorOf(empty)).status).toBe(422);

    await masto.v1.accounts.$select(carolId).follow();
    await masto.v1.accounts.$select(bobId).follow();
    await expect
      .poll(
        async () => (await masto.v1.accounts.relationships.fetch({ id: [bobId] }))[0]?.following,
        { timeout: 60_000 },
      )
      .toBe(true);
    await lists()
      .$select(listId)
      .accounts.create({ accountIds: [carolId, bobId] });
    const members = await lists().$select(listId).accounts.list();
    expect(members.map((m) => m.acct).sort()).toEqual([`bob@${b.domain}`, 'carol']);
    const paged = await bearer(aliceToken, `/api/v1/lists/${listId}/accounts?limit=1`);
    expect(((await paged.json()) as unknown[]).length).toBe(1);
    expect(paged.headers.get('link')).toMatch(/max_id=.*rel="next"/);
    expect((await masto.v1.accounts.$select(bobId).lists.list()).map((l) => l.id)).toEqual([
      listId,
    ]);
  }, 120_000);

  it('the list timeline holds members’ posts, local and pushed from B; exclusive leaves home', async () => {
    const carol = createRestAPIClient({ url: a.url, accessToken: carolToken });
    const local = await carol.v1.statuses.create({ status: 'carol for the list' });
    const pushed = await trpc(b, bobCookie, 'posts.create', {
      content: 'bob for the list',
      visibility: 'public',
    });
    expect(pushed.status).toBe(200);
    const timeline = () => masto.v1.timelines.list.$select(listId).list();
    await expect
      .poll(async () => (await timeline()).map((s) => s.content), { timeout: 60_000 })
      .toEqual([expect.stringContaining('bob for the list'), expect.stringContaining('carol for')]);
    const [bobs] = await timeline();
    expect(bobs!.account.acct).toBe(`bob@${b.domain}`);
    // Paged by status ids, as the other timelines.
    const older = await masto.v1.timelines.list.$select(listId).list({ maxId: bobs!.id });
    expect(older.map((s) => s.id)).toEqual([local.id]);
    const client = generator('mastodon', a.url, aliceToken);
    expect((await client.getListTimeline(listId)).data.map((s) => s.id)).toEqual([
      bobs!.id,
      local.id,
    ]);
    // Exclusive: carol's and bob's posts are read in the list, not at home.
    const home = async () => (await masto.v1.timelines.home.list()).map((s) => s.id);
    expect(await home()).toContain(local.id);
    await lists().$select(listId).update({ title: 'Close friends', exclusive: true });
    expect(await home()).not.toContain(local.id);
    await lists().$select(listId).update({ title: 'Close friends', exclusive: false });

    // Taken off the list: their posts leave it.
    await lists()
      .$select(listId)
      .accounts.remove({ accountIds: [bobId] });
    expect((await timeline()).map((s) => s.id)).toEqual([local.id]);
  }, 120_000);

  it('bookmarks: newest bookmarked first, paged by Link, local and remote posts', async () => {
    const [local] = await masto.v1.timelines.list.$select(listId).list();
    const remote = (await masto.v1.accounts.$select(bobId).statuses.list())[0]!;
    expect(remote.content).toContain('bob for the list');
    await masto.v1.statuses.$select(local!.id).bookmark();
    await masto.v1.statuses.$select(remote.id).bookmark();
    expect((await masto.v1.bookmarks.list()).map((s) => s.id)).toEqual([remote.id, local!.id]);
    const first = await bearer(aliceToken, '/api/v1/bookmarks?limit=1');
    expect(((await first.json()) as { id: string }[]).map((s) => s.id)).toEqual([remote.id]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    const second = await bearer(aliceToken, new URL(next!).pathname + new URL(next!).search);
    expect(((await second.json()) as { id: string }[]).map((s) => s.id)).toEqual([local!.id]);
    // carol's bookmarks are her own.
    const carol = createRestAPIClient({ url: a.url, accessToken: carolToken });
    expect(await carol.v1.bookmarks.list()).toEqual([]);
    await masto.v1.statuses.$select(remote.id).unbookmark();
    expect((await masto.v1.bookmarks.list()).map((s) => s.id)).toEqual([local!.id]);
    const odd = await bearer(aliceToken, '/api/v1/bookmarks?max_id=not-a-cursor');
    expect(await odd.json()).toEqual([]);
  });

  it('a list deleted is gone', async () => {
    expect(await bearer(aliceToken, `/api/v1/lists/${listId}`, { method: 'DELETE' })).toMatchObject(
      { status: 200 },
    );
    expect((await errorOf(await bearer(aliceToken, `/api/v1/lists/${listId}`))).status).toBe(404);
    expect(await lists().list()).toEqual([]);
  });
});

describe('the person’s own settings', () => {
  it('update_credentials: name, note, bot, avatar; answered as the credential account', async () => {
    const updated = await masto.v1.accounts.updateCredentials({
      displayName: 'Alice the bot',
      note: 'I post\n\nby <script>',
      bot: true,
      locked: true,
      avatar: new Blob([PNG], { type: 'image/png' }),
    });
    expect(updated).toMatchObject({
      displayName: 'Alice the bot',
      note: '<p>I post</p><p>by &lt;script&gt;</p>',
      bot: true,
      locked: false,
      source: { note: 'I post\n\nby <script>' },
    });
    expect(updated.avatar).toMatch(new RegExp(`^${a.url}/media/uploads/`));
    expect((await fetch(updated.avatar)).status).toBe(200);
    // Our pages and B see the bot flag (the profile on the wire).
    const profile = (await (await fetch(`${a.url}/api/swarm/users/alice`)).json()) as {
      profile: { isBot: boolean };
    };
    expect(profile.profile.isBot).toBe(true);
    // megalodon's form of the same call.
    const client = generator('mastodon', a.url, aliceToken);
    const again = await client.updateCredentials({ bot: false, display_name: 'Alice A.' });
    expect(again.data).toMatchObject({ bot: false, display_name: 'Alice A.' });
  });

  it('update_credentials refuses bad values with 422', async () => {
    const long = await bearer(aliceToken, '/api/v1/accounts/update_credentials', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'x'.repeat(600) }),
    });
    expect((await errorOf(long)).status).toBe(422);
    const bot = await bearer(aliceToken, '/api/v1/accounts/update_credentials', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ bot: 'maybe' }),
    });
    expect(await errorOf(bot)).toEqual({
      status: 422,
      error: 'Validation failed: bot is not a boolean',
    });
    const form = new FormData();
    form.set('avatar', new Blob([Buffer.from('not an image')], { type: 'image/png' }), 'a.png');
    const notImage = await bearer(aliceToken, '/api/v1/accounts/update_credentials', {
      method: 'PATCH',
      body: form,
    });
    expect(await errorOf(notImage)).toMatchObject({
      status: 422,
      error: expect.stringMatching(/^Validation failed: avatar: /),
    });
  });

  it('preferences', async () => {
    expect(await masto.v1.preferences.fetch()).toMatchObject({
      'posting:default:visibility': 'public',
      'reading:expand:media': 'default',
    });
  });

  it('markers: set, read back with versions, refused for a bad id', async () => {
    expect(await masto.v1.markers.fetch({ timeline: ['home'] })).toEqual({});
    const set = await masto.v1.markers.create({ home: { lastReadId: '109876543210987654' } });
    expect(set.home).toMatchObject({ lastReadId: '109876543210987654', version: 1 });
    await masto.v1.markers.create({ home: { lastReadId: '109876543210987655' } });
    const read = await masto.v1.markers.fetch({ timeline: ['home', 'notifications'] });
    expect(read.home).toMatchObject({ lastReadId: '109876543210987655', version: 2 });
    expect(read.notifications).toBeUndefined();
    const bad = await bearer(aliceToken, '/api/v1/markers', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ home: { last_read_id: 'abc' } }),
    });
    expect((await errorOf(bad)).status).toBe(422);
  });

  it('reports an account to the moderators', async () => {
    const carol = await masto.v1.accounts.lookup({ acct: 'carol' });
    const report = await masto.v1.reports.create({
      accountId: carol.id,
      comment: 'spam everywhere',
      category: 'spam',
    });
    expect(report).toMatchObject({ actionTaken: false, comment: 'spam everywhere' });
    expect(report.targetAccount.id).toBe(carol.id);
    const missing = await bearer(aliceToken, '/api/v1/reports', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ comment: 'x' }),
    });
    expect((await errorOf(missing)).status).toBe(422);
  });

  /** The moderation queue of a node, as its admin API answers it. */
  async function queue(node: RestartableNode) {
    const res = await fetch(`${node.url}/api/swarm/admin/reports?status=all`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    return (
      (await res.json()) as {
        reports: {
          id: string;
          comment: string;
          forwardState: string | null;
          posts: { postId: string; postExcerpt: string | null }[];
        }[];
      }
    ).reports;
  }

  it('a report names every status the app sent; each must be the account’s and readable', async () => {
    const carol = await masto.v1.accounts.lookup({ acct: 'carol' });
    const carolMasto = createRestAPIClient({ url: a.url, accessToken: carolToken });
    const first = await carolMasto.v1.statuses.create({ status: 'cheap watches' });
    const second = await carolMasto.v1.statuses.create({ status: 'cheaper watches' });
    const report = await masto.v1.reports.create({
      accountId: carol.id,
      statusIds: [first.id, second.id],
      comment: 'two of them',
      category: 'spam',
    });
    expect(report.statusIds).toEqual([first.id, second.id]);
    const filed = (await queue(a)).find((r) => r.comment === 'two of them');
    expect(filed?.posts.map((p) => p.postExcerpt)).toEqual(['cheap watches', 'cheaper watches']);
    // A status of someone else, one the reporter may not read, and too many: refused.
    const own = await masto.v1.statuses.create({ status: 'mine' });
    // erin's followers-only post: alice does not follow her.
    const erinToken = await developerToken(a, await signUp(a, 'erin', 'Erin'), ['read', 'write']);
    const erin = createRestAPIClient({ url: a.url, accessToken: erinToken });
    const hidden = await erin.v1.statuses.create({
      status: 'for followers',
      visibility: 'private',
    });
    const send = (statusIds: string[], accountId = carol.id) =>
      bearer(aliceToken, '/api/v1/reports', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ account_id: accountId, status_ids: statusIds }),
      });
    expect((await errorOf(await send([first.id, own.id]))).status).toBe(404);
    const erinId = (await erin.v1.accounts.verifyCredentials()).id;
    expect((await errorOf(await send([hidden.id], erinId))).status).toBe(404);
    const many = Array.from({ length: 21 }, (_, i) => `1${String(i).padStart(17, '0')}`);
    expect((await errorOf(await send(many))).status).toBe(422);
    // A moderator deleting "the post" of this report deletes both.
    const acted = await fetch(`${a.url}/api/swarm/admin/reports/${filed!.id}/action`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'delete-post', reason: 'spam' }),
    });
    expect(acted.status).toBe(200);
    for (const status of [first, second]) {
      expect((await bearer(aliceToken, `/api/v1/statuses/${status.id}`)).status).toBe(404);
    }
  });

  it('a report about a remote account’s statuses goes to its node with every status', async () => {
    const bob = await masto.v1.accounts.lookup({ acct: `bob@${b.domain}` });
    const statuses = await masto.v1.accounts.$select(bob.id).statuses.list();
    const pushed = await trpc(b, bobCookie, 'posts.create', {
      content: 'bob again',
      visibility: 'public',
    });
    expect(pushed.status).toBe(200);
    // The second copy: read from bob's node when alice looks at his profile.
    await expect
      .poll(async () => (await masto.v1.accounts.$select(bob.id).statuses.list()).length, {
        timeout: 60_000,
      })
      .toBeGreaterThan(statuses.length);
    const both = (await masto.v1.accounts.$select(bob.id).statuses.list()).slice(0, 2);
    const report = await masto.v1.reports.create({
      accountId: bob.id,
      statusIds: both.map((s) => s.id),
      comment: 'remote pair',
      forward: true,
    });
    expect(report.statusIds).toEqual(both.map((s) => s.id));
    expect(report.forwarded).toBe(true);
    const here = (await queue(a)).find((r) => r.comment === 'remote pair');
    expect(here?.posts).toHaveLength(2);
    await expect
      .poll(async () => (await queue(a)).find((r) => r.comment === 'remote pair')?.forwardState, {
        timeout: 60_000,
      })
      .toBe('sent');
    const there = (await queue(b)).find((r) => r.comment === 'remote pair');
    expect(there?.posts.map((p) => p.postId)).toEqual(here?.posts.map((p) => p.postId));
  }, 120_000);
});

describe('start-up calls of apps', () => {
  it('answer empty lists', async () => {
    for (const path of [
      '/api/v1/trends',
      '/api/v1/trends/tags',
      '/api/v1/trends/statuses',
      '/api/v1/trends/links',
      '/api/v1/custom_emojis',
      '/api/v1/announcements',
      '/api/v2/suggestions',
      '/api/v1/suggestions',
      '/api/v1/filters',
      '/api/v2/filters',
      '/api/v1/followed_tags',
      '/api/v1/follow_requests',
      '/api/v1/endorsements',
      '/api/v1/conversations',
      '/api/v1/scheduled_statuses',
      '/api/v1/domain_blocks',
    ]) {
      const response = await bearer(aliceToken, path);
      expect([path, response.status, await response.json()]).toEqual([path, 200, []]);
    }
    // Every answer says what is left of the token's rate limit (set high for tests).
    const counted = await bearer(aliceToken, '/api/v1/trends');
    expect(counted.headers.get('x-ratelimit-limit')).toBe('1000000');
    expect(Number(counted.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(900_000);
    expect(await masto.v1.customEmojis.list()).toEqual([]);
    expect(await masto.v2.filters.list()).toEqual([]);
    expect(await masto.v1.followRequests.list()).toEqual([]);
    const anonymous = await fetch(`${a.url}/api/v1/follow_requests`);
    expect((await errorOf(anonymous)).status).toBe(401);
  });

  it('MastoHttpError carries the 404 of an unknown account', async () => {
    const error = await masto.v1.accounts
      .$select('00000000-0000-4000-8000-000000000000')
      .fetch()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MastoHttpError);
    expect((error as MastoHttpError).statusCode).toBe(404);
  });
});
