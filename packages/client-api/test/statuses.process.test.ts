import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freePort,
  nodeOnPort,
  signUp,
  smallPng,
  tokenFor,
  trpc,
  uploadImage,
  type RestartableNode,
} from '@swarm/testnet';
import { createRestAPIClient, MastoHttpError, type mastodon } from 'masto';
import generator from 'megalodon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Statuses and timelines of the client API (docs/clients.md "Statuses", "Timelines") through
// the front door: two nodes started as the README says, A and B, people on each with app tokens,
// and masto.js and megalodon as apps use them (plain fetch for headers and raw answers). B's
// carol follows A's alice, so B keeps copies of alice's posts: what B answers about them is the
// remote case. `pnpm build` first.

let dataDir: string;
let a: RestartableNode;
let b: RestartableNode;
const cookies: Record<string, string> = {};
const tokens: Record<string, string> = {};

const ENV = { ADDRESS_HEADER: 'X-Forwarded-For', XFF_DEPTH: '1' };

const masto = (node: RestartableNode, who?: string) =>
  createRestAPIClient({ url: node.url, accessToken: who ? tokens[who] : undefined });
const mega = (node: RestartableNode, who: string) => generator('mastodon', node.url, tokens[who]!);

async function api(
  node: RestartableNode,
  path: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${node.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, headers: response.headers, json: json as never };
}

async function httpStatus(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (error instanceof MastoHttpError) return error.statusCode;
    throw error;
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swarm-statuses-'));
  const [portA, portB] = [await freePort(), await freePort()];
  a = nodeOnPort({ dataDir: join(dataDir, 'a'), port: portA, env: ENV });
  b = nodeOnPort({ dataDir: join(dataDir, 'b'), port: portB, env: ENV });
  await Promise.all([a.start(), b.start()]);
  for (const handle of ['alice', 'bob']) cookies[handle] = await signUp(a, handle);
  cookies.carol = await signUp(b, 'carol');
  for (const handle of ['alice', 'bob']) tokens[handle] = await tokenFor(a, cookies[handle]!);
  tokens.carol = await tokenFor(b, cookies.carol);
  tokens.aliceRead = await tokenFor(a, cookies.alice!, 'read');
}, 300_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await rm(dataDir, { recursive: true, force: true });
});

describe('writing and reading statuses on their node', () => {
  it('posts with masto.js and reads the status back: HTML, mentions, tags, account', async () => {
    const client = masto(a, 'alice');
    const status = await client.v1.statuses.create({
      status: 'Hello @bob, see https://example.org/page. #Swarm <b>bold</b>',
    });
    expect(status.id).toMatch(/^\d{15,19}$/);
    expect(status.account).toMatchObject({ username: 'alice', acct: 'alice' });
    expect(status.account.url).toBe(`${a.url}/@alice`);
    expect(status.visibility).toBe('public');
    expect(status.sensitive).toBe(false);
    expect(status.spoilerText).toBe('');
    expect(status.url).toBe(`${a.url}/posts/${/[0-9a-f-]{36}$/.exec(status.url!)![0]}`);
    expect(status.content).toContain(`<a href="${a.url}/@bob" class="u-url mention">`);
    expect(status.content).toContain(`<a href="${a.url}/tags/swarm" class="mention hashtag"`);
    expect(status.content).toContain('<a href="https://example.org/page"');
    expect(status.content).toContain('&lt;b&gt;bold&lt;/b&gt;');
    expect(status.mentions).toEqual([
      expect.objectContaining({ username: 'bob', acct: 'bob', url: `${a.url}/@bob` }),
    ]);
    expect(status.tags).toEqual([{ name: 'swarm', url: `${a.url}/tags/swarm` }]);
    const read = await masto(a, 'bob').v1.statuses.$select(status.id).fetch();
    expect(read).toMatchObject({ id: status.id, content: status.content, favourited: false });
    // Anyone may read a public status, as on Mastodon.
    const anonymous = await api(a, `/api/v1/statuses/${status.id}`);
    expect(anonymous.status).toBe(200);
  });

  it('maps visibility, marks content warnings sensitive, refuses direct messages', async () => {
    const client = masto(a, 'alice');
    const followersOnly = await client.v1.statuses.create({
      status: 'for followers',
      visibility: 'private',
    });
    expect(followersOnly.visibility).toBe('private');
    const unlisted = await client.v1.statuses.create({ status: 'quiet', visibility: 'unlisted' });
    expect(unlisted.visibility).toBe('unlisted');
    const warned = await client.v1.statuses.create({
      status: 'the plot twist',
      spoilerText: 'Spoilers',
    });
    expect(warned.sensitive).toBe(true);
    expect(warned.content).toBe('<p>Spoilers<br>the plot twist</p>');
    const direct = await api(a, '/api/v1/statuses', {
      method: 'POST',
      token: tokens.alice,
      body: { status: 'secret', visibility: 'direct' },
    });
    expect(direct.status).toBe(422);
    expect((direct.json as { error: string }).error).toMatch(/end-to-end encrypted/);
    // A followers-only post is not found by someone who does not follow.
    expect(await httpStatus(masto(a, 'bob').v1.statuses.$select(followersOnly.id).fetch())).toBe(
      404,
    );
  });

  it('attaches the poster’s own free uploads only', async () => {
    const mine = await uploadImage(a, cookies.alice!, await smallPng(64, 48));
    const bobs = await uploadImage(a, cookies.bob!, await smallPng());
    const client = masto(a, 'alice');
    expect(await httpStatus(client.v1.statuses.create({ mediaIds: [bobs], status: 'x' }))).toBe(
      422,
    );
    const status = await client.v1.statuses.create({ mediaIds: [mine], status: 'a photo' });
    expect(status.mediaAttachments).toHaveLength(1);
    expect(status.mediaAttachments[0]).toMatchObject({
      id: mine,
      type: 'image',
      meta: { original: { width: 64, height: 48 } },
    });
    expect(status.mediaAttachments[0]!.url).toMatch(new RegExp(`^${a.url}/`));
    expect(status.mediaAttachments[0]!.blurhash).toBeTruthy();
    // Already in a post: not free any more.
    expect(await httpStatus(client.v1.statuses.create({ mediaIds: [mine], status: 'again' }))).toBe(
      422,
    );
  });

  it('uploads media through the API (masto.js v2, megalodon v1), describes it, posts it', async () => {
    const png = await smallPng(40, 30);
    const client = masto(a, 'alice');
    const uploaded = await client.v2.media.create({
      file: new Blob([png], { type: 'image/png' }),
      description: 'a small blue square',
      focus: '0.5,-0.25',
    });
    expect(uploaded).toMatchObject({
      type: 'image',
      description: 'a small blue square',
      meta: { original: { width: 40, height: 30 }, focus: { x: 0.5, y: -0.25 } },
    });
    expect(uploaded.url).toMatch(new RegExp(`^${a.url}/media/uploads/`));
    expect((await fetch(uploaded.url!)).headers.get('content-type')).toBe('image/webp');
    // Read back and changed before it is posted.
    expect(await client.v1.media.$select(uploaded.id).fetch()).toMatchObject({
      id: uploaded.id,
    });
    const changed = await client.v1.media.$select(uploaded.id).update({ description: 'grey' });
    expect(changed.description).toBe('grey');
    // megalodon uploads a file from disk, as a desktop app does (form-data with its name).
    const path = join(dataDir, 'photo.png');
    await writeFile(path, png);
    const viaMega = await mega(a, 'alice').uploadMedia(createReadStream(path));
    expect(viaMega.data).toMatchObject({ type: 'image' });
    // The description is the photo's alt text in the post.
    // Unlisted: the public timelines' cases count the photos posted there.
    const status = await client.v1.statuses.create({
      status: 'two photos',
      visibility: 'unlisted',
      mediaIds: [uploaded.id, (viaMega.data as { id: string }).id],
    });
    expect(status.mediaAttachments.map((m) => m.description)).toEqual(['grey', null]);
    // Posted: it can no longer be changed; bob cannot see or change alice's uploads at all.
    expect(
      await httpStatus(client.v1.media.$select(uploaded.id).update({ description: 'x' })),
    ).toBe(404);
    const fresh = await client.v2.media.create({ file: new Blob([png], { type: 'image/png' }) });
    for (const call of [
      () => masto(a, 'bob').v1.media.$select(fresh.id).fetch(),
      () => masto(a, 'bob').v1.media.$select(fresh.id).update({ description: 'mine now' }),
    ]) {
      expect(await httpStatus(call())).toBe(404);
    }
    // Bad inputs: no file, not an image, a focus out of range, a description too long.
    const form = (fields: Record<string, string | Blob>) => {
      const body = new FormData();
      for (const [k, v] of Object.entries(fields)) body.append(k, v);
      return fetch(`${a.url}/api/v2/media`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.alice}` },
        body,
      });
    };
    const image = new Blob([png], { type: 'image/png' });
    for (const [fields, status] of [
      [{ description: 'no file' }, 422],
      [{ file: new Blob(['not an image'], { type: 'image/png' }) }, 422],
      [{ file: image, focus: '2,0' }, 422],
      [{ file: image, description: 'x'.repeat(1501) }, 422],
    ] as const) {
      const res = await form(fields);
      expect([res.status, ((await res.json()) as { error?: string }).error]).toEqual([
        status,
        expect.any(String),
      ]);
    }
    const readOnly = await api(a, '/api/v2/media', { method: 'POST', token: tokens.aliceRead });
    expect(readOnly.status).toBe(403);
  });

  it('honours Idempotency-Key, refuses oversize and bad fields with 422', async () => {
    const client = masto(a, 'alice');
    const headers = { 'Idempotency-Key': 'key-1' };
    const first = await client.v1.statuses.create(
      { status: 'once only' },
      { requestInit: { headers } },
    );
    const second = await client.v1.statuses.create(
      { status: 'once only' },
      { requestInit: { headers } },
    );
    expect(second.id).toBe(first.id);
    const other = await masto(a, 'bob').v1.statuses.create(
      { status: 'once only' },
      { requestInit: { headers } },
    );
    expect(other.id).not.toBe(first.id);
    // Sent twice at once (a retry while the first is running): one post, both answer it.
    const overlapping = { requestInit: { headers: { 'Idempotency-Key': 'key-2' } } };
    const [one, two] = await Promise.all(
      [1, 2].map(() => client.v1.statuses.create({ status: 'sent twice' }, overlapping)),
    );
    expect(two!.id).toBe(one!.id);
    // A retry with media answers the first post (its uploads are that post's now). Unlisted:
    // the public timeline case below counts the photos there.
    const photo = await uploadImage(a, cookies.alice!, await smallPng());
    const withMedia = { requestInit: { headers: { 'Idempotency-Key': 'key-media' } } };
    const shown = await client.v1.statuses.create(
      { status: 'a photo', mediaIds: [photo], visibility: 'unlisted' },
      withMedia,
    );
    const retried = await client.v1.statuses.create(
      { status: 'a photo', mediaIds: [photo], visibility: 'unlisted' },
      withMedia,
    );
    expect(retried.id).toBe(shown.id);
    const post = (body: unknown, headers?: Record<string, string>) =>
      api(a, '/api/v1/statuses', { method: 'POST', token: tokens.alice, body, headers });
    // A refused post frees its key: the corrected retry posts.
    const freed = { 'Idempotency-Key': 'key-3' };
    expect((await post({ status: 'x'.repeat(5001) }, freed)).status).toBe(422);
    const corrected = await post({ status: 'shorter' }, freed);
    expect(corrected.status).toBe(200);
    expect((await post({ status: 'shorter' }, freed)).json).toMatchObject({
      id: (corrected.json as { id: string }).id,
    });
    expect((await post({ status: 'x' }, { 'Idempotency-Key': 'k'.repeat(201) })).status).toBe(422);
    for (const body of [
      { status: 'x'.repeat(5001) },
      { status: '' },
      { status: 'x', visibility: 'everyone' },
      { status: 'x', sensitive: 'maybe' },
      { status: 'x', poll: { options: ['a', 'b'], expires_in: 300 } },
      { status: 'x', media_ids: ['not-an-upload'] },
    ]) {
      const answer = await post(body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.json).toHaveProperty('error');
    }
    expect((await post({ status: 'x', in_reply_to_id: '123456789012345678' })).status).toBe(404);
    // A read-only token may not post; no token at all is a 401.
    const readOnly = await api(a, '/api/v1/statuses', {
      method: 'POST',
      token: tokens.aliceRead,
      body: { status: 'x' },
    });
    expect(readOnly.status).toBe(403);
    expect(
      (await api(a, '/api/v1/statuses', { method: 'POST', body: { status: 'x' } })).status,
    ).toBe(401);
  });

  it('answers unknown ids with 404 Record not found', async () => {
    for (const id of ['1', '123456789012345678', 'abc', '99999999999999999999999']) {
      const answer = await api(a, `/api/v1/statuses/${id}`, { token: tokens.alice });
      expect(answer.status).toBe(404);
      expect(answer.json).toMatchObject({ error: 'Record not found' });
    }
  });

  it('deletes one’s own status with its text; someone else’s is not found', async () => {
    const client = masto(a, 'alice');
    const status = await client.v1.statuses.create({ status: 'to be removed' });
    expect(await httpStatus(masto(a, 'bob').v1.statuses.$select(status.id).remove())).toBe(404);
    const deleted = await api(a, `/api/v1/statuses/${status.id}`, {
      method: 'DELETE',
      token: tokens.alice,
    });
    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({ id: status.id, text: 'to be removed' });
    expect(await httpStatus(client.v1.statuses.$select(status.id).fetch())).toBe(404);
  });

  it('favourites and reblogs with megalodon; who did is listed and paged', async () => {
    const status = await masto(a, 'alice').v1.statuses.create({ status: 'like me' });
    const bob = mega(a, 'bob');
    const liked = await bob.favouriteStatus(status.id);
    expect(liked.data).toMatchObject({ id: status.id, favourited: true, favourites_count: 1 });
    const reblog = await bob.reblogStatus(status.id);
    expect(reblog.data.reblog).toMatchObject({ id: status.id, reblogged: true });
    expect(reblog.data.id).not.toBe(status.id);
    expect(reblog.data.account.username).toBe('bob');
    await masto(a, 'alice').v1.statuses.$select(status.id).favourite();
    const by = await api(a, `/api/v1/statuses/${status.id}/favourited_by?limit=1`);
    expect(by.status).toBe(200);
    expect((by.json as { username: string }[]).map((x) => x.username)).toEqual(['alice']);
    const next = /<([^>]+)>; rel="next"/.exec(by.headers.get('link') ?? '')![1]!;
    const second = await fetch(next);
    expect(((await second.json()) as { username: string }[]).map((x) => x.username)).toEqual([
      'bob',
    ]);
    const reblogged = await masto(a).v1.statuses.$select(status.id).rebloggedBy.list();
    expect(reblogged.map((x) => x.username)).toEqual(['bob']);
    // The reblog is a status of its own: readable, with the original inside.
    const wrapper = await masto(a, 'alice').v1.statuses.$select(reblog.data.id).fetch();
    expect(wrapper.reblog?.id).toBe(status.id);
    const undone = await bob.unreblogStatus(status.id);
    expect(undone.data).toMatchObject({ id: status.id, reblogged: false, reblogs_count: 0 });
    const unliked = await bob.unfavouriteStatus(status.id);
    expect(unliked.data).toMatchObject({ favourited: false, favourites_count: 1 });
    expect(await httpStatus(masto(a, 'bob').v1.statuses.$select('1').favourite())).toBe(404);
    // Bookmarks are the person's own: bob's shows to bob only.
    const kept = await masto(a, 'bob').v1.statuses.$select(status.id).bookmark();
    expect(kept.bookmarked).toBe(true);
    expect((await masto(a, 'bob').v1.statuses.$select(status.id).fetch()).bookmarked).toBe(true);
    expect((await masto(a, 'alice').v1.statuses.$select(status.id).fetch()).bookmarked).toBe(false);
    const dropped = await masto(a, 'bob').v1.statuses.$select(status.id).unbookmark();
    expect(dropped.bookmarked).toBe(false);
    const noScope = await api(a, `/api/v1/statuses/${status.id}/bookmark`, {
      method: 'POST',
      token: tokens.aliceRead,
    });
    expect(noScope.status).toBe(403);
    const readOnly = await api(a, `/api/v1/statuses/${status.id}/favourite`, {
      method: 'POST',
      token: tokens.aliceRead,
    });
    expect(readOnly.status).toBe(403);
  });

  it('answers a thread: ancestors root first, descendants in reading order', async () => {
    const alice = masto(a, 'alice');
    const bob = masto(a, 'bob');
    const root = await alice.v1.statuses.create({ status: 'root' });
    const reply = await bob.v1.statuses.create({ status: 'reply', inReplyToId: root.id });
    expect(reply.inReplyToId).toBe(root.id);
    expect(reply.inReplyToAccountId).toBe(root.account.id);
    const deeper = await alice.v1.statuses.create({ status: 'deeper', inReplyToId: reply.id });
    const sibling = await alice.v1.statuses.create({ status: 'sibling', inReplyToId: root.id });
    const ofRoot = await bob.v1.statuses.$select(root.id).context.fetch();
    expect(ofRoot.ancestors).toEqual([]);
    expect(ofRoot.descendants.map((s) => s.id)).toEqual([reply.id, deeper.id, sibling.id]);
    const ofDeeper = await mega(a, 'bob').getStatusContext(deeper.id);
    expect(ofDeeper.data.ancestors.map((s) => s.id)).toEqual([root.id, reply.id]);
    expect(ofDeeper.data.descendants).toEqual([]);
  });
});

describe('timelines', () => {
  it('pages home with Link headers as Mastodon forms them, and masto.js follows them', async () => {
    const carolOnA = await signUp(a, 'dave');
    tokens.dave = await tokenFor(a, carolOnA);
    const dave = masto(a, 'dave');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await dave.v1.statuses.create({ status: `home ${i}` })).id);
    const first = await api(a, '/api/v1/timelines/home?limit=2', { token: tokens.dave });
    expect(first.status).toBe(200);
    expect((first.json as { id: string }[]).map((s) => s.id)).toEqual([ids[4], ids[3]]);
    expect(first.headers.get('link')).toBe(
      `<${a.url}/api/v1/timelines/home?limit=2&max_id=${ids[3]}>; rel="next", ` +
        `<${a.url}/api/v1/timelines/home?limit=2&min_id=${ids[4]}>; rel="prev"`,
    );
    const pages: string[][] = [];
    for await (const page of dave.v1.timelines.home.list({ limit: 2 })) {
      pages.push(page.map((s) => s.id));
      if (pages.length > 5) break;
    }
    // The last page still links on; the page after it is empty and links nowhere (as Mastodon).
    expect(pages).toEqual([[ids[4], ids[3]], [ids[2], ids[1]], [ids[0]], []]);
    const since = await api(a, `/api/v1/timelines/home?since_id=${ids[1]}`, { token: tokens.dave });
    expect((since.json as { id: string }[]).map((s) => s.id)).toEqual([ids[4], ids[3], ids[2]]);
    const min = await api(a, `/api/v1/timelines/home?min_id=${ids[1]}&limit=2`, {
      token: tokens.dave,
    });
    expect((min.json as { id: string }[]).map((s) => s.id)).toEqual([ids[3], ids[2]]);
    const big = await api(a, '/api/v1/timelines/home?limit=500', { token: tokens.dave });
    expect((big.json as unknown[]).length).toBe(5);
    for (const bad of ['limit=abc', 'max_id=abc', 'since_id=-1']) {
      const answer = await api(a, `/api/v1/timelines/home?${bad}`, { token: tokens.dave });
      expect(answer.status, bad).toBe(422);
    }
    expect((await api(a, '/api/v1/timelines/home')).status).toBe(401);
  });

  it('answers public and tag timelines without a token; local, only_media, muted people', async () => {
    const local = await api(a, '/api/v1/timelines/public?local=true&limit=40');
    expect(local.status).toBe(200);
    const contents = (local.json as { content: string }[]).map((s) => s.content);
    expect(contents.some((c) => c.includes('Hello'))).toBe(true);
    // Followers-only and unlisted posts are not in public lists.
    expect(contents.some((c) => c.includes('for followers') || c.includes('quiet'))).toBe(false);
    const media = await mega(a, 'bob').getPublicTimeline({ only_media: true });
    expect(media.data.length).toBe(1);
    expect(media.data[0]!.media_attachments).toHaveLength(1);
    const tag = await masto(a).v1.timelines.tag.$select('swarm').list();
    expect(tag.map((s) => s.tags.map((t) => t.name))).toEqual([['swarm']]);
    expect((await api(a, '/api/v1/timelines/tag/not-a-tag!')).json).toEqual([]);
    // Bob mutes alice on the page; her posts leave his public timeline.
    await trpc(a, cookies.bob!, 'moderation.safety.mute', { target: 'alice' });
    const muted = await api(a, '/api/v1/timelines/public?local=true&limit=40', {
      token: tokens.bob,
    });
    expect(
      (muted.json as { account: { username: string } }[]).some(
        (s) => s.account.username === 'alice',
      ),
    ).toBe(false);
    const remoteOnly = await api(a, '/api/v1/timelines/public?remote=true');
    expect(remoteOnly.json).toEqual([]);
  });
});

describe('posts of another node, as node B answers them', () => {
  let original: mastodon.v1.Status;

  beforeAll(async () => {
    original = await masto(a, 'alice').v1.statuses.create({ status: 'from A to the swarm #far' });
    await trpc(b, cookies.carol!, 'interactions.follow', { address: `alice@${a.domain}` });
  }, 60_000);

  it('lists the copy in the follower’s home timeline with a remote account', async () => {
    let copy: mastodon.v1.Status | undefined;
    await expect
      .poll(
        async () => {
          const home = await masto(b, 'carol').v1.timelines.home.list({ limit: 40 });
          copy = home.find((s) => s.content.includes('from A to the swarm'));
          return copy !== undefined;
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toBe(true);
    expect(copy!.id).not.toBe(original.id);
    expect(copy!.account).toMatchObject({
      username: 'alice',
      acct: `alice@${a.domain}`,
      url: `${a.url}/@alice`,
    });
    expect(copy!.url).toBe(original.url);
    expect(copy!.tags).toEqual([{ name: 'far', url: `${b.url}/tags/far` }]);
    const read = await masto(b, 'carol').v1.statuses.$select(copy!.id).fetch();
    expect(read.id).toBe(copy!.id);
    const remote = await api(b, '/api/v1/timelines/public?remote=true&limit=40');
    expect((remote.json as { id: string }[]).map((s) => s.id)).toContain(copy!.id);
    const localOnly = await api(b, '/api/v1/timelines/public?local=true&limit=40');
    expect((localOnly.json as { id: string }[]).map((s) => s.id)).not.toContain(copy!.id);
  });

  it('refuses likes and reposts of a remote post from an app, for now; bookmarks and replies work', async () => {
    const home = await masto(b, 'carol').v1.timelines.home.list({ limit: 40 });
    const copy = home.find((s) => s.content.includes('from A to the swarm'))!;
    for (const path of ['favourite', 'reblog', 'unfavourite', 'unreblog']) {
      const answer = await api(b, `/api/v1/statuses/${copy.id}/${path}`, {
        method: 'POST',
        token: tokens.carol,
      });
      expect(answer.status, path).toBe(422);
      expect((answer.json as { error: string }).error).toMatch(/cannot act toward other nodes yet/);
    }
    // A bookmark needs no signature: it stays on this node.
    const kept = await masto(b, 'carol').v1.statuses.$select(copy.id).bookmark();
    expect(kept).toMatchObject({ id: copy.id, bookmarked: true });
    const reply = await masto(b, 'carol').v1.statuses.create({
      status: 'hello from B',
      inReplyToId: copy.id,
    });
    expect(reply.inReplyToId).toBe(copy.id);
    expect(reply.inReplyToAccountId).toBe(copy.account.id);
    // The reply reached A: its thread there lists it, with carol as a remote account.
    await expect
      .poll(
        async () => {
          const thread = await masto(a, 'bob').v1.statuses.$select(original.id).context.fetch();
          return thread.descendants.map((s) => s.account.acct);
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toContain(`carol@${b.domain}`);
    // And B's thread of the copy has carol's reply too (her own post, here).
    const there = await masto(b, 'carol').v1.statuses.$select(copy.id).context.fetch();
    expect(there.descendants.map((s) => s.id)).toContain(reply.id);
  });
});
