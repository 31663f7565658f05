import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineNodeWithPeople, trpcFailure, type TestNode } from './harness.ts';

// posts.create and posts.delete through createCaller on a real node with its own database,
// signed in with real sessions. Other nodes are unreachable here (connection refused): what
// crosses nodes is in packages/testnet/test/delivery.swarm.test.ts; this file checks the local
// effects and that a delivery to a dead node is queued, not lost.

const SELF = 'alpha.test';
let t: TestNode;
let as: Awaited<ReturnType<typeof offlineNodeWithPeople>>['as'];

beforeAll(async () => {
  ({ t, as } = await offlineNodeWithPeople(SELF, ['alice', 'bob', 'carol']));
});
afterAll(() => t.close());
const failure = trpcFailure;

const prisma = () => t.node.db.prisma;
const counts = async (handle: string) =>
  prisma().user.findUniqueOrThrow({
    where: { handle },
    select: { postsCount: true, followersCount: true, followingCount: true },
  });
const notificationsOf = (handle: string) =>
  prisma().notification.findMany({
    where: { recipient: { handle } },
    orderBy: { createdAt: 'asc' },
  });
/** Rows a refused call must not have touched. */
const tally = async () => ({
  posts: await prisma().post.count(),
  media: await prisma().mediaItem.count(),
  notifications: await prisma().notification.count(),
  deliveries: await prisma().outboxDelivery.count(),
});

describe('posts.create', () => {
  it('publishes text with media, NSFW flag and link preview, and counts it', async () => {
    const before = await counts('alice');
    const alice = await as('alice');
    const { post, deliveries } = await alice.posts.create({
      content: 'Hello swarm',
      media: [
        { url: 'https://img.example/cat.png', altText: 'a cat' },
        { url: 'https://img.example/clip.mp4', altText: '', mimeType: 'video/mp4' },
      ],
      isNsfw: true,
      linkPreview: {
        url: 'https://news.example/story',
        title: 'A story',
        description: 'What happened',
        image: 'https://news.example/story.jpg',
      },
    });
    expect(deliveries).toEqual([]);
    expect(post).toMatchObject({
      path: `/posts/${post.id}`,
      content: 'Hello swarm',
      isNsfw: true,
      isRemote: false,
      nodeDomain: SELF,
      replyToId: null,
      likesCount: 0,
      author: { handle: 'alice', address: 'alice', displayName: 'Alice', isRemote: false },
      media: [
        { url: 'https://img.example/cat.png', altText: 'a cat', mimeType: 'image/png' },
        { url: 'https://img.example/clip.mp4', altText: '', mimeType: 'video/mp4' },
      ],
      linkPreview: {
        url: 'https://news.example/story',
        title: 'A story',
        description: 'What happened',
        image: 'https://news.example/story.jpg',
      },
      viewer: { liked: false, reposted: false, bookmarked: false, isOwn: true },
    });
    expect((await counts('alice')).postsCount).toBe(before.postsCount + 1);
    // Peers see it too, through the gateway.
    const peerView = await t.request(`/api/swarm/posts/${post.id}`);
    expect(peerView.status).toBe(200);
    expect(await peerView.json()).toMatchObject({ id: post.id, content: 'Hello swarm' });
  });

  it('refuses bad input with BAD_REQUEST and stores nothing', async () => {
    const alice = await as('alice');
    const before = await tally();
    const media = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ url: `https://img.example/${i}.png`, altText: '' }));
    const bad: Parameters<typeof alice.posts.create>[0][] = [
      { content: '   ' },
      { content: 'x'.repeat(5001) },
      { content: 'five media', media: media(5) },
      { content: 'bad media', media: [{ url: 'javascript:alert(1)', altText: '' }] },
      { content: 'bad preview', linkPreview: { url: 'ftp://files.example/x' } },
      { content: 'reply to garbage', replyToId: 'swarm:not a domain:1' },
      { content: 'nul \u0000 inside' }, // Postgres text cannot hold it
      {
        content: 'nul in alt text',
        media: [{ url: 'https://img.example/1.png', altText: '\u0000' }],
      },
    ];
    for (const input of bad) {
      expect((await failure(alice.posts.create(input))).code).toBe('BAD_REQUEST');
    }
    // 5000 characters (emoji count once each) and 4 media are fine.
    await alice.posts.create({ content: '🐝'.repeat(5000), media: media(4) });
    const after = await tally();
    expect(after.posts).toBe(before.posts + 1);
    expect(after.media).toBe(before.media + 4);
  });

  it('needs a session', async () => {
    expect((await failure((await as(null)).posts.create({ content: 'hi' }))).code).toBe(
      'UNAUTHORIZED',
    );
  });

  it('replies to a local post: counts it and tells the parent’s author', async () => {
    const bob = await as('bob');
    const parent = (await bob.posts.create({ content: 'What do you think?' })).post;
    const alice = await as('alice');
    const { post: reply } = await alice.posts.create({
      content: 'I think yes',
      replyToId: parent.id,
    });
    expect(reply.replyToId).toBe(parent.id);
    const stored = await prisma().post.findUniqueOrThrow({ where: { id: parent.id } });
    expect(stored.repliesCount).toBe(1);
    const notes = (await notificationsOf('bob')).filter((n) => n.type === 'reply');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({
      actorHandle: 'alice',
      actorNodeDomain: null,
      postId: reply.id,
      content: 'I think yes',
    });
    // The reply is listed under the post for peers.
    const replies = (await (await t.request(`/api/swarm/replies?postId=${parent.id}`)).json()) as {
      replies: { id: string }[];
    };
    expect(replies.replies.map((r) => r.id)).toEqual([reply.id]);
  });

  it('refuses a reply to an unknown post with NOT_FOUND', async () => {
    const alice = await as('alice');
    const before = await tally();
    for (const replyToId of ['4f1e3a7c-0000-4000-8000-000000000000', 'no-such-post']) {
      expect((await failure(alice.posts.create({ content: 'hm', replyToId }))).code).toBe(
        'NOT_FOUND',
      );
    }
    expect(await tally()).toEqual(before);
  });

  it('notifies local people it mentions, once each, never the author', async () => {
    const alice = await as('alice');
    const before = {
      bob: (await notificationsOf('bob')).length,
      carol: (await notificationsOf('carol')).length,
      alice: (await notificationsOf('alice')).length,
    };
    const { post, deliveries } = await alice.posts.create({
      content: `Hi @bob and @Carol@${SELF}, also @bob again, @alice, @nobody and bob@mail.example.`,
    });
    expect(deliveries).toEqual([]);
    const bobNotes = await notificationsOf('bob');
    const carolNotes = await notificationsOf('carol');
    expect(bobNotes).toHaveLength(before.bob + 1);
    expect(carolNotes).toHaveLength(before.carol + 1);
    expect((await notificationsOf('alice')).length).toBe(before.alice);
    expect(bobNotes.at(-1)).toMatchObject({
      type: 'mention',
      actorHandle: 'alice',
      postId: post.id,
    });
  });

  it('queues a mention of someone on another node when that node is down, without losing it', async () => {
    const alice = await as('alice');
    const { post, deliveries } = await alice.posts.create({
      content: 'Hello @dora@gamma.test!',
    });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      kind: 'mention',
      targetDomain: 'gamma.test',
      status: 'pending',
      attempts: 1,
    });
    expect(deliveries[0]!.summary).toMatch(/^retrying, next in \d+ s$/);
    const row = await prisma().outboxDelivery.findUniqueOrThrow({
      where: { id: deliveries[0]!.id },
    });
    expect(JSON.parse(row.body)).toMatchObject({
      mentionedHandle: 'dora',
      mention: {
        actorHandle: 'alice',
        actorNodeDomain: SELF,
        postId: post.id,
        postContent: 'Hello @dora@gamma.test!',
      },
    });
    // The user sees it among their deliveries.
    const mine = await alice.deliveries.mine();
    expect(mine.map((d) => d.id)).toContain(deliveries[0]!.id);
  });
});

describe('posts.delete', () => {
  it('soft-deletes one’s own post and undoes its counters', async () => {
    const bob = await as('bob');
    const parent = (await bob.posts.create({ content: 'parent' })).post;
    const alice = await as('alice');
    const reply = (await alice.posts.create({ content: 'reply @bob', replyToId: parent.id })).post;
    const before = await counts('alice');
    expect(await alice.posts.delete({ id: reply.id })).toEqual({ id: reply.id });
    expect((await counts('alice')).postsCount).toBe(before.postsCount - 1);
    const parentRow = await prisma().post.findUniqueOrThrow({ where: { id: parent.id } });
    expect(parentRow.repliesCount).toBe(0);
    const replyRow = await prisma().post.findUniqueOrThrow({ where: { id: reply.id } });
    expect(replyRow.deletedAt).not.toBeNull();
    // Gone for peers and for bob's notifications.
    expect((await t.request(`/api/swarm/posts/${reply.id}`)).status).toBe(404);
    expect((await notificationsOf('bob')).some((n) => n.postId === reply.id)).toBe(false);
    // A second delete finds nothing and changes nothing.
    expect((await failure(alice.posts.delete({ id: reply.id }))).code).toBe('NOT_FOUND');
    expect((await counts('alice')).postsCount).toBe(before.postsCount - 1);
  });

  it("refuses someone else's post (FORBIDDEN) and unknown ids (NOT_FOUND)", async () => {
    const bob = await as('bob');
    const post = (await bob.posts.create({ content: 'mine' })).post;
    const alice = await as('alice');
    expect((await failure(alice.posts.delete({ id: post.id }))).code).toBe('FORBIDDEN');
    expect((await failure(alice.posts.delete({ id: 'not-a-uuid' }))).code).toBe('NOT_FOUND');
    const row = await prisma().post.findUniqueOrThrow({ where: { id: post.id } });
    expect(row.deletedAt).toBeNull();
  });
});
