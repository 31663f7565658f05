import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthServices, SessionUser } from '@swarm/auth';
import type { PostView } from '@swarm/domain';
import {
  createNodeWithAuth,
  sessionUserOf,
  signedInCaller,
  trpcFailure,
  type TestNode,
} from './harness.ts';

// The reads procedures (timeline, profiles, threads, notifications) through createCaller on a
// real node with its own database. Content is set up in the database directly (writing posts
// and follows is other procedures' business); everything asserted comes through the caller.

let t: TestNode;
let auth: AuthServices;
const users: Record<string, SessionUser> = {};
/** Post ids by name. */
const ids: Record<string, string> = {};

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

const callerAs = (user: SessionUser | null) => signedInCaller(t.node, user, { auth });
const codeOf = async (call: Promise<unknown>) => (await trpcFailure(call)).code;

const contents = (posts: PostView[]) => posts.map((p) => p.content);

beforeAll(async () => {
  ({ t, auth } = await createNodeWithAuth({ SWARM_DOMAIN: 'alpha.test' }));
  const prisma = t.node.db.prisma;
  for (const handle of ['alice', 'bob', 'carol', 'dora']) {
    const row = await prisma.user.create({
      data: { handle, displayName: handle.toUpperCase(), passwordHash: '!' },
    });
    users[handle] = sessionUserOf(row);
  }
  const { alice, bob, carol } = users as Record<string, SessionUser>;
  const post = async (
    name: string,
    author: SessionUser,
    minute: number,
    extra: Record<string, unknown> = {},
  ) => {
    const row = await prisma.post.create({
      data: { authorId: author.id, content: name, createdAt: at(minute), ...extra },
    });
    ids[name] = row.id;
    return row.id;
  };
  await post('alice-1', alice!, 1);
  await post('bob-1', bob!, 2);
  await post('carol-1', carol!, 3);
  await post('bob-2', bob!, 4, { isNsfw: true });
  await post('alice-2', alice!, 5);
  await post('bob-reply', bob!, 6, { replyToId: ids['alice-1'] });
  await post('carol-reply', carol!, 7, { replyToId: ids['alice-1'] });
  await post('bob-followers-only', bob!, 8, { visibility: 'followers' });
  await post('carol-2', carol!, 9);
  // bob reposts carol-1 at minute 10: alice sees carol-1 through bob.
  const repost = await post('bob-reposts-carol-1', bob!, 10, {
    content: '',
    repostOfId: ids['carol-1'],
  });
  await prisma.repost.create({
    data: {
      postId: ids['carol-1']!,
      actorKey: `local:${bob!.id}`,
      userId: bob!.id,
      repostPostId: repost,
    },
  });
  await post('alice-deleted', alice!, 11, { deletedAt: at(12) });

  // alice follows bob (accepted), not carol; alice likes bob-1 and reposted nothing.
  await prisma.follow.create({
    data: {
      followerKey: `local:${alice!.id}`,
      followerUserId: alice!.id,
      followeeKey: `local:${bob!.id}`,
      followeeUserId: bob!.id,
      state: 'accepted',
    },
  });
  await prisma.user.update({ where: { id: bob!.id }, data: { followersCount: 1 } });
  await prisma.like.create({
    data: { postId: ids['bob-1']!, actorKey: `local:${alice!.id}`, userId: alice!.id },
  });
});

afterAll(async () => {
  await t.close();
});

describe('timeline.home', () => {
  it('shows own posts and followed people’s posts and reposts, newest first', async () => {
    const home = await callerAs(users.alice!).timeline.home();
    expect(contents(home.posts)).toEqual([
      'carol-1', // reposted by bob at minute 10
      'bob-followers-only',
      'alice-2',
      'bob-2',
      'bob-1',
      'alice-1',
    ]);
    const reposted = home.posts[0]!;
    expect(reposted.id).toBe(ids['carol-1']);
    expect(reposted.repostedBy).toMatchObject({ handle: 'bob', address: 'bob', isRemote: false });
    expect(reposted.author).toMatchObject({ handle: 'carol', domain: 'alpha.test' });
    expect(home).toMatchObject({ nextBefore: null, followsNobody: false });
  });

  it('carries the viewer’s state: liked, own', async () => {
    const home = await callerAs(users.alice!).timeline.home();
    const byContent = new Map(home.posts.map((p) => [p.content, p]));
    expect(byContent.get('bob-1')!.viewer).toEqual({
      liked: true,
      reposted: false,
      bookmarked: false,
      isOwn: false,
    });
    expect(byContent.get('alice-2')!.viewer).toEqual({
      liked: false,
      reposted: false,
      bookmarked: false,
      isOwn: true,
    });
    // bob sees his repost of carol-1 as reposted.
    const bobHome = await callerAs(users.bob!).timeline.home();
    const carol1 = bobHome.posts.find((p) => p.id === ids['carol-1'])!;
    expect(carol1.viewer).toEqual({
      liked: false,
      reposted: true,
      bookmarked: false,
      isOwn: false,
    });
  });

  it('pages with `before` without losing or repeating posts', async () => {
    const caller = callerAs(users.alice!);
    const seen: string[] = [];
    let before: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = await caller.timeline.home({ limit: 2, before });
      expect(result.posts.length).toBeLessThanOrEqual(2);
      seen.push(...contents(result.posts));
      if (!result.nextBefore) break;
      before = result.nextBefore;
    }
    expect(seen).toEqual(contents((await caller.timeline.home()).posts));
  });

  it('says when the viewer follows nobody', async () => {
    const home = await callerAs(users.carol!).timeline.home();
    expect(home.followsNobody).toBe(true);
    expect(contents(home.posts)).toEqual(['carol-2', 'carol-1']);
    expect((await callerAs(users.dora!).timeline.home()).posts).toEqual([]);
  });

  it('needs a session, and refuses a bad cursor', async () => {
    expect(await codeOf(callerAs(null).timeline.home())).toBe('UNAUTHORIZED');
    expect(await codeOf(callerAs(users.alice!).timeline.home({ before: 'yesterday' }))).toBe(
      'BAD_REQUEST',
    );
    expect(await codeOf(callerAs(users.alice!).timeline.home({ limit: 0 }))).toBe('BAD_REQUEST');
  });
});

describe('timeline.local', () => {
  it('lists this node’s public top-level posts to anyone, with paging', async () => {
    const all = await callerAs(null).timeline.local();
    expect(contents(all.posts)).toEqual([
      'carol-2',
      'alice-2',
      'bob-2',
      'carol-1',
      'bob-1',
      'alice-1',
    ]);
    expect(all.posts.every((p) => p.viewer === null && !p.isRemote)).toBe(true);
    expect(all.posts.find((p) => p.content === 'bob-2')!.isNsfw).toBe(true);

    const first = await callerAs(users.alice!).timeline.local({ limit: 4 });
    expect(contents(first.posts)).toEqual(['carol-2', 'alice-2', 'bob-2', 'carol-1']);
    expect(first.nextBefore).toBe(at(3).toISOString());
    const second = await callerAs(users.alice!).timeline.local({
      limit: 4,
      before: first.nextBefore!,
    });
    expect(contents(second.posts)).toEqual(['bob-1', 'alice-1']);
    expect(second.nextBefore).toBeNull();
    expect(second.posts[0]!.viewer).toEqual({
      liked: true,
      reposted: false,
      bookmarked: false,
      isOwn: false,
    });
  });
});

describe('profiles.get (local)', () => {
  it('shows a local user with counts, posts and the viewer’s follow state', async () => {
    const page = await callerAs(users.alice!).profiles.get({ address: 'bob' });
    expect(page.isSwarm).toBe(false);
    expect(page.profile).toMatchObject({
      actor: { handle: 'bob', address: 'bob', domain: 'alpha.test', isRemote: false },
      followersCount: 1,
      viewer: { isSelf: false, followState: 'accepted', muted: false, blocked: false },
    });
    // alice follows bob: she sees his followers-only post; replies stay on their threads.
    expect(contents(page.posts)).toEqual(['carol-1', 'bob-followers-only', 'bob-2', 'bob-1']);
    const stranger = await callerAs(users.carol!).profiles.get({ address: '@BOB', limit: 2 });
    expect(stranger.profile.viewer).toEqual({
      isSelf: false,
      followState: 'none',
      muted: false,
      blocked: false,
    });
    expect(contents(stranger.posts)).toEqual(['carol-1', 'bob-2']);
    const self = await callerAs(users.bob!).profiles.get({ address: 'bob@alpha.test' });
    expect(self.profile.viewer).toEqual({
      isSelf: true,
      followState: 'none',
      muted: false,
      blocked: false,
    });
    expect(self.isSwarm).toBe(false);
    expect((await callerAs(null).profiles.get({ address: 'bob' })).profile.viewer).toBeNull();
  });

  it('answers NOT_FOUND for an unknown user and BAD_REQUEST for a malformed address', async () => {
    expect(await codeOf(callerAs(null).profiles.get({ address: 'nobody' }))).toBe('NOT_FOUND');
    expect(await codeOf(callerAs(null).profiles.get({ address: 'bad handle' }))).toBe(
      'BAD_REQUEST',
    );
    expect(await codeOf(callerAs(null).profiles.get({ address: 'bob@not a domain' }))).toBe(
      'BAD_REQUEST',
    );
  });
});

describe('threads.get (local)', () => {
  it('shows a post with its replies, oldest first', async () => {
    const thread = await callerAs(users.alice!).threads.get({ id: ids['alice-1']! });
    expect(thread.isSwarm).toBe(false);
    expect(thread.post).toMatchObject({ content: 'alice-1', path: `/posts/${ids['alice-1']}` });
    expect(thread.post.viewer?.isOwn).toBe(true);
    expect(contents(thread.replies)).toEqual(['bob-reply', 'carol-reply']);
    expect(thread.replies.every((r) => r.replyToId === ids['alice-1'])).toBe(true);
    // The same post by its swarm id on this node.
    const bySwarmId = await callerAs(null).threads.get({
      id: `swarm:alpha.test:${ids['alice-1']}`,
    });
    expect(bySwarmId.post.id).toBe(ids['alice-1']);
  });

  it('hides followers-only posts from strangers, deleted and unknown posts', async () => {
    const id = ids['bob-followers-only']!;
    expect((await callerAs(users.alice!).threads.get({ id })).post.content).toBe(
      'bob-followers-only',
    );
    expect(await codeOf(callerAs(users.carol!).threads.get({ id }))).toBe('NOT_FOUND');
    expect(await codeOf(callerAs(null).threads.get({ id: ids['alice-deleted']! }))).toBe(
      'NOT_FOUND',
    );
    expect(
      await codeOf(callerAs(null).threads.get({ id: '00000000-0000-4000-8000-000000000000' })),
    ).toBe('NOT_FOUND');
    expect(await codeOf(callerAs(null).threads.get({ id: 'not-a-uuid' }))).toBe('NOT_FOUND');
    expect(await codeOf(callerAs(null).threads.get({ id: 'swarm:nope' }))).toBe('BAD_REQUEST');
  });
});

describe('notifications', () => {
  let aliceIds: string[] = [];
  let bobNotification = '';

  beforeAll(async () => {
    const prisma = t.node.db.prisma;
    const { alice, bob } = users as Record<string, SessionUser>;
    const make = (data: Record<string, unknown>) =>
      prisma.notification.create({ data: data as never, select: { id: true } });
    const like = await make({
      recipientId: alice!.id,
      type: 'like',
      actorKey: `local:${bob!.id}`,
      actorUserId: bob!.id,
      actorHandle: 'bob',
      actorDisplayName: 'BOB',
      postId: ids['alice-1'],
      createdAt: at(20),
    });
    const follow = await make({
      recipientId: alice!.id,
      type: 'follow',
      actorKey: 'swarm://beta.test/erin',
      actorHandle: 'erin',
      actorDisplayName: 'Erin',
      actorAvatarUrl: 'https://beta.test/erin.png',
      actorNodeDomain: 'beta.test',
      createdAt: at(21),
    });
    const mention = await make({
      recipientId: alice!.id,
      type: 'mention',
      actorKey: 'swarm://beta.test/erin',
      actorHandle: 'erin',
      actorNodeDomain: 'beta.test',
      postApId: 'swarm:beta.test:p-42',
      content: 'hello @alice@alpha.test',
      createdAt: at(22),
    });
    aliceIds = [mention.id, follow.id, like.id];
    bobNotification = (
      await make({
        recipientId: bob!.id,
        type: 'follow',
        actorKey: `local:${alice!.id}`,
        actorUserId: alice!.id,
        actorHandle: 'alice',
        createdAt: at(23),
      })
    ).id;
  });

  it('lists the viewer’s notifications newest first, with actors and post paths', async () => {
    const page = await callerAs(users.alice!).notifications.list();
    expect(page.items.map((n) => n.id)).toEqual(aliceIds);
    expect(page.nextBefore).toBeNull();
    const [mention, follow, like] = page.items;
    expect(mention).toMatchObject({
      type: 'mention',
      actor: { address: 'erin@beta.test', isRemote: true, displayName: 'erin' },
      postPath: '/posts/swarm:beta.test:p-42',
      excerpt: 'hello @alice@alpha.test',
      read: false,
    });
    expect(follow).toMatchObject({
      type: 'follow',
      actor: {
        handle: 'erin',
        domain: 'beta.test',
        address: 'erin@beta.test',
        avatarUrl: 'https://beta.test/erin.png',
        isRemote: true,
      },
      postPath: null,
    });
    expect(like).toMatchObject({
      type: 'like',
      actor: { address: 'bob', domain: 'alpha.test', displayName: 'BOB', isRemote: false },
      postPath: `/posts/${ids['alice-1']}`,
    });

    const first = await callerAs(users.alice!).notifications.list({ limit: 2 });
    expect(first.items.map((n) => n.id)).toEqual(aliceIds.slice(0, 2));
    const rest = await callerAs(users.alice!).notifications.list({
      limit: 2,
      before: first.nextBefore!,
    });
    expect(rest.items.map((n) => n.id)).toEqual(aliceIds.slice(2));
    expect(rest.nextBefore).toBeNull();
  });

  it('counts unread and marks some or all read, ignoring other people’s ids', async () => {
    const alice = callerAs(users.alice!);
    const bob = callerAs(users.bob!);
    expect(await alice.notifications.unreadCount()).toBe(3);
    expect(await alice.notifications.markRead({ ids: [bobNotification] })).toEqual({ updated: 0 });
    expect(await bob.notifications.unreadCount()).toBe(1);
    expect(await alice.notifications.unreadCount()).toBe(3);

    expect(await alice.notifications.markRead({ ids: [aliceIds[1]!] })).toEqual({ updated: 1 });
    expect(await alice.notifications.unreadCount()).toBe(2);
    const items = (await alice.notifications.list()).items;
    expect(items.map((n) => n.read)).toEqual([false, true, false]);

    expect(await alice.notifications.markRead()).toEqual({ updated: 2 });
    expect(await alice.notifications.unreadCount()).toBe(0);
    expect(await bob.notifications.unreadCount()).toBe(1);
  });

  it('refuses signed-out callers and malformed ids', async () => {
    expect(await codeOf(callerAs(null).notifications.list())).toBe('UNAUTHORIZED');
    expect(await codeOf(callerAs(null).notifications.unreadCount())).toBe('UNAUTHORIZED');
    expect(await codeOf(callerAs(users.alice!).notifications.markRead({ ids: ['nope'] }))).toBe(
      'BAD_REQUEST',
    );
  });
});
