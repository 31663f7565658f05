import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionUser } from '@swarm/auth';
import { createRemoteContentWorker, type RemoteContentWorker } from '@swarm/domain';
import {
  createManualClock,
  createTestNode,
  insertKeyedUser,
  signedInCaller,
  startOriginPeer,
  type KeyedUser,
  type ManualClock,
  type OriginPeer,
  type TestNode,
} from './harness.ts';

// Reposts by remote people, kept (docs/architecture.md "Stored remote content", "Reposts"): an
// origin-profile peer (carol's node; the origin pushes reposts and lists them among a user's
// posts) and a third node (erin's) whose posts carol reposts. Real HTTP all ways; our node driven
// through its front door (tRPC callers), its inbox and its background worker, on one manual clock.

const DAY = 24 * 60 * 60_000;

let clock: ManualClock;
let origin: OriginPeer;
let third: OriginPeer;
let ours: TestNode;
let server: ServerType;
let worker: RemoteContentWorker;
let self: string;
let alice: KeyedUser;
let bob: KeyedUser;

const as = (user: SessionUser) => signedInCaller(ours.node, user);
const prisma = () => ours.node.db.prisma;
const copyOf = (domain: string, id: string) =>
  prisma().post.findUnique({
    where: { apId: `swarm:${domain}:${id}` },
    select: { id: true, content: true, repostOfId: true, deletedAt: true },
  });
/** carol's stored repost entries: their ids on her node → the row they repeat. */
async function carolsReposts() {
  const rows = await prisma().post.findMany({
    where: { apId: { startsWith: `swarm:${origin.domain}:` }, repostOfId: { not: null } },
    select: { apId: true, repostOfId: true },
  });
  return new Map(rows.map((r) => [r.apId!.split(':').pop()!, r.repostOfId]));
}
/** alice's home as our pages show it: content → who reposted it (null: a post of its own). */
async function aliceHome() {
  const home = await as(alice.user).timeline.home();
  return home.posts.map((p) => [p.content, p.repostedBy?.address ?? null]);
}
/** carol reposts `repostOfId` on her node (an entry with no text, listed among her posts). */
function carolReposts(repostOfId: string) {
  clock.advance(1_000); // each entry newer than the last
  const entry = origin.addPost('carol', '', clock.now());
  entry.repostOfId = repostOfId;
  return entry;
}
const pushRepost = (id: string, extra: Record<string, unknown>) =>
  origin.pushPost(self, { author: 'carol', postId: id, extra });
/** The next poll of carol is due, past the reader's short answer cache. */
async function pollCarol() {
  clock.advance(30 * 60_000);
  await worker.pollAll();
}

beforeAll(async () => {
  clock = createManualClock(new Date());
  const now = () => clock.now();
  origin = await startOriginPeer({ users: [{ handle: 'carol', displayName: 'Carol' }], now });
  third = await startOriginPeer({ users: [{ handle: 'erin', displayName: 'Erin' }], now });
  server = serve({ fetch: (request) => ours.app.fetch(request), port: 0, hostname: '127.0.0.1' });
  await once(server, 'listening');
  self = `localhost:${(server.address() as AddressInfo).port}`;
  ours = await createTestNode(
    { SWARM_DOMAIN: self, SWARM_DEV: '1', SWARM_CRAWL_PER_MIN: '0' },
    { clock, remoteContent: { retention: { keepPerAuthor: 1 } } },
  );
  worker = createRemoteContentWorker({ node: ours.node });
  alice = await insertKeyedUser(ours.node, 'alice');
  bob = await insertKeyedUser(ours.node, 'bob');
  for (const peer of [origin, third]) {
    expect((await peer.announceTo(self)).status).toBe(200);
    expect(await ours.node.registry.probe(peer.domain, 'admin')).toMatchObject({ ok: true });
  }
  await as(alice.user).interactions.follow({ address: `carol@${origin.domain}` });
  origin.addPost('carol', 'carol writes', new Date(clock.now().getTime() - 60_000));
  await worker.pollAll();
});

afterAll(async () => {
  await worker?.stop();
  server?.close();
  await ours?.close();
  await origin?.close();
  await third?.close();
});

describe('a pushed repost', () => {
  let bobPost: string;

  it('of a post held here shows in the follower’s home and on the reposter’s profile', async () => {
    bobPost = (await as(bob.user).posts.create({ content: 'bob writes' })).post.id;
    const entry = carolReposts(`swarm:${self}:${bobPost}`);
    const pushed = await pushRepost(entry.id, { repostOfId: `swarm:${self}:${bobPost}` });
    expect(pushed).toMatchObject({
      status: 200,
      body: {
        success: true,
        message: 'Repost received',
        postId: `swarm:${origin.domain}:${entry.id}`,
      },
    });
    expect((await carolsReposts()).get(entry.id)).toBe(bobPost);
    expect((await aliceHome())[0]).toEqual(['bob writes', `carol@${origin.domain}`]);
    const profile = await as(alice.user).profiles.get({ address: `carol@${origin.domain}` });
    expect(profile.posts[0]).toMatchObject({
      content: 'bob writes',
      repostedBy: { address: `carol@${origin.domain}` },
    });
    // The client API's home: a status of carol's whose `reblog` is bob's post.
    const [first] = await ours.node.clientReads.timelines.home(
      { id: alice.user.id, handle: alice.user.handle },
      { limit: 5 },
    );
    expect(first).toMatchObject({
      content: '',
      account: { handle: 'carol' },
      reblog: { rowId: bobPost, content: 'bob writes' },
    });
    // A repeat refreshes the same row.
    const again = await pushRepost(entry.id, { repostOfId: `swarm:${self}:${bobPost}` });
    expect(again).toMatchObject({ status: 200, body: { message: 'Repost refreshed' } });
    expect((await carolsReposts()).size).toBe(1);
  });

  it('names its original only by reference: a forged one creates and overwrites nothing', async () => {
    const erinPost = third.addPost('erin', 'erin writes');
    const entry = carolReposts(`swarm:${third.domain}:${erinPost.id}`);
    // carol's node claims to carry erin's post: it is not erin's node.
    const forged = {
      repostOfId: `swarm:${third.domain}:${erinPost.id}`,
      repostOf: { id: erinPost.id, content: 'forged words', author: { handle: 'erin' } },
    };
    const first = await pushRepost(entry.id, forged);
    expect(first).toMatchObject({ status: 200, body: { success: true } });
    expect(String((first.body as { message: string }).message)).toMatch(/not kept/);
    expect(await copyOf(third.domain, erinPost.id)).toBeNull();
    expect((await carolsReposts()).has(entry.id)).toBe(false);
    // carol's next read, which would read erin's post from erin's node, comes within a minute.
    const poll = await prisma().remoteAuthorPoll.findFirstOrThrow({
      where: { remoteActor: { handle: 'carol', nodeDomain: origin.domain } },
    });
    expect(poll.nextPollAt.getTime()).toBeLessThanOrEqual(clock.now().getTime() + 60_000);

    // erin's post reaches this node from her own node (bob follows her).
    await as(bob.user).interactions.follow({ address: `erin@${third.domain}` });
    const own = await third.pushPost(self, { author: 'erin', postId: erinPost.id });
    expect(own).toMatchObject({ status: 200, body: { message: 'Post received' } });
    const held = await copyOf(third.domain, erinPost.id);

    const second = await pushRepost(entry.id, forged);
    expect(second).toMatchObject({ status: 200, body: { message: 'Repost received' } });
    expect((await carolsReposts()).get(entry.id)).toBe(held!.id);
    expect(await copyOf(third.domain, erinPost.id)).toMatchObject({ content: 'erin writes' });
    expect((await aliceHome())[0]).toEqual(['erin writes', `carol@${origin.domain}`]);
    // Nobody here follows erin for the rest of the file.
    await as(bob.user).interactions.unfollow({ address: `erin@${third.domain}` });
  });

  it('is removed by the unrepost that reaches the reposted post’s node (here)', async () => {
    const entry = [...origin.posts.values()].find(
      (p) => p.repostOfId === `swarm:${self}:${bobPost}`,
    )!;
    const undone = await origin.interact(self, 'unrepost', { actor: 'carol', target: bobPost });
    expect(undone.status).toBe(200);
    origin.posts.delete(entry.id);
    expect((await carolsReposts()).has(entry.id)).toBe(false);
    expect(await prisma().post.findUnique({ where: { id: bobPost } })).not.toBeNull();
    expect((await aliceHome()).map(([content]) => content)).not.toContain('bob writes');
  });
});

describe('a polled repost', () => {
  let erinAgain: string;

  it('is kept after its original is read from its own node, never from the reposter’s', async () => {
    erinAgain = third.addPost('erin', 'erin again').id;
    const entry = carolReposts(`swarm:${third.domain}:${erinAgain}`);
    const askedOrigin = origin.gets.length;
    await pollCarol();
    expect(third.gets).toContain(`/api/swarm/posts/${erinAgain}`);
    expect(
      origin.gets.slice(askedOrigin).every((g) => g.startsWith('/api/swarm/users/carol')),
    ).toBe(true);
    const original = await copyOf(third.domain, erinAgain);
    expect(original).toMatchObject({ content: 'erin again', repostOfId: null });
    expect((await carolsReposts()).get(entry.id)).toBe(original!.id);
    expect((await aliceHome())[0]).toEqual(['erin again', `carol@${origin.domain}`]);
  });

  it('hides with its original: a deleted original shows no repost', async () => {
    const bobSecond = (await as(bob.user).posts.create({ content: 'bob again' })).post.id;
    carolReposts(`swarm:${self}:${bobSecond}`);
    await pollCarol();
    expect((await aliceHome())[0]).toEqual(['bob again', `carol@${origin.domain}`]);
    await as(bob.user).posts.delete({ id: bobSecond });
    expect((await aliceHome()).map(([content]) => content)).not.toContain('bob again');
  });

  it('goes when a later poll no longer lists it; the original stays', async () => {
    const entry = [...origin.posts.values()].find(
      (p) => p.repostOfId === `swarm:${third.domain}:${erinAgain}`,
    )!;
    origin.posts.delete(entry.id);
    await pollCarol();
    expect((await carolsReposts()).has(entry.id)).toBe(false);
    expect(await copyOf(third.domain, erinAgain)).toMatchObject({ content: 'erin again' });
  });
});

describe('retention', () => {
  it('ages a repost as the reposter’s copy; its original is kept while it is, then judged alone', async () => {
    const erinPost = [...third.posts.values()].find((p) => p.content === 'erin writes')!;
    const original = (await copyOf(third.domain, erinPost.id))!;
    const repost = [...(await carolsReposts())].find(([, row]) => row === original.id)!;
    // Eight days on, erin's copy (nobody here follows her) is past its 7 days, but carol's
    // repost of it (carol is followed: 30 days) keeps it.
    clock.advance(8 * DAY);
    await worker.sweepOnce();
    expect(await copyOf(third.domain, erinPost.id)).not.toBeNull();
    expect((await carolsReposts()).has(repost[0])).toBe(true);
    // Past 30 days and not among carol's newest (1 here), the repost expires; the original
    // stays through that sweep and goes at the next, on its own rule.
    clock.advance(25 * DAY);
    origin.addPost('carol', 'carol much later');
    await pollCarol();
    await worker.sweepOnce();
    expect((await carolsReposts()).has(repost[0])).toBe(false);
    expect(await copyOf(third.domain, erinPost.id)).not.toBeNull();
    await worker.sweepOnce();
    expect(await copyOf(third.domain, erinPost.id)).toBeNull();
  });
});
