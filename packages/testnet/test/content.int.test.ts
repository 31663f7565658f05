import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  errorBodySchema,
  repliesResponseSchema,
  singlePostAnswerSchema,
  singlePostSchema,
  swarmUserResponseSchema,
  timelineResponseSchema,
} from '@swarm/contract';
import type { Prisma } from '@swarm/db';
import {
  bootNode,
  createDemoContentService,
  createLogger,
  DEMO_HANDLES,
  parseConfig,
  REPLIES_PAGE_SIZE,
} from '@swarm/domain';
import { createGatewayApp } from '@swarm/gateway';
import { createTestNode, type TestNode } from './harness.ts';

// Public reads about content (docs/protocol.md "Public reads"), through the gateway's front door.
// Rows are written straight into the node's database: posting has its own issue.

const MINUTE = 60_000;

async function getJson(t: TestNode, path: string) {
  const res = await t.request(path);
  return { status: res.status, body: (await res.json()) as unknown };
}

function fixtures(t: TestNode) {
  const { prisma } = t.node.db;
  /** `minutesAgo` before the node's clock: distinct values make the order unambiguous. */
  const at = (minutesAgo: number) => new Date(t.clock.now().getTime() - minutesAgo * MINUTE);
  return {
    prisma,
    at,
    user: (handle: string, data: Partial<Prisma.UserCreateInput> = {}) =>
      prisma.user.create({
        data: { handle, displayName: handle.toUpperCase(), passwordHash: '!', ...data },
      }),
    post: (
      authorId: string,
      minutesAgo: number,
      data: Partial<Prisma.PostUncheckedCreateInput> = {},
    ) =>
      prisma.post.create({
        data: { authorId, content: `post ${minutesAgo}`, createdAt: at(minutesAgo), ...data },
      }),
    remoteActor: (handle: string, nodeDomain: string) =>
      prisma.remoteActor.create({
        data: {
          actorUrl: `swarm://${nodeDomain}/${handle}`,
          handle,
          nodeDomain,
          displayName: `${handle} from ${nodeDomain}`,
          avatarUrl: `https://${nodeDomain}/avatars/${handle}.png`,
        },
      }),
  };
}

async function expectError(t: TestNode, path: string, status: number, code: string) {
  const { status: actual, body } = await getJson(t, path);
  expect(actual).toBe(status);
  expect(errorBodySchema.parse(body)).toMatchObject({ code, error: expect.any(String) });
}

describe('public reads about content', () => {
  let t: TestNode;
  let f: ReturnType<typeof fixtures>;
  beforeEach(async () => {
    t = await createTestNode();
    f = fixtures(t);
  });
  afterEach(async () => {
    await t.close();
  });

  describe('GET /api/swarm/users/[handle]', () => {
    it('answers the profile and recent public posts in the contract shape', async () => {
      const alice = await f.user('alice', {
        displayName: 'Alice',
        bio: 'Hello',
        avatarUrl: 'https://alpha.test/a.png',
        headerUrl: 'javascript:alert(1)', // never sent as is
        website: 'https://alice.example',
        isBot: false,
        did: 'did:key:zDnaeTestAliceKey',
        followersCount: 3,
        followingCount: 2,
        postsCount: 2,
      });
      await f.post(alice.id, 10, {
        content: 'older, with a picture and a link',
        likesCount: 4,
        repostsCount: 1,
        repliesCount: 2,
        isNsfw: true,
        linkPreviewUrl: 'https://news.example/story',
        linkPreviewTitle: 'A story',
        linkPreviewDescription: 'What happened',
        linkPreviewImage: 'https://news.example/story.jpg',
        media: {
          create: [
            {
              url: 'https://alpha.test/m/2.png',
              mimeType: 'image/png',
              altText: 'second',
              position: 1,
            },
            {
              url: 'https://alpha.test/m/1.jpg',
              mimeType: 'image/jpeg',
              altText: 'first',
              position: 0,
            },
          ],
        },
      });
      const newer = await f.post(alice.id, 5, { content: 'newer' });

      const { status, body } = await getJson(t, '/api/swarm/users/alice');
      expect(status).toBe(200);
      const answer = swarmUserResponseSchema.parse(body);
      expect(answer.nodeDomain).toBe('alpha.test');
      expect(answer.timestamp).toBe(t.clock.now().toISOString());
      expect(answer.profile).toEqual({
        handle: 'alice',
        displayName: 'Alice',
        bio: 'Hello',
        avatarUrl: 'https://alpha.test/a.png',
        headerUrl: '',
        website: 'https://alice.example',
        followersCount: 3,
        followingCount: 2,
        postsCount: 2,
        createdAt: alice.createdAt.toISOString(),
        isBot: false,
        nodeDomain: 'alpha.test',
        did: 'did:key:zDnaeTestAliceKey',
      });
      expect(answer.posts.map((p) => p.content)).toEqual([
        'newer',
        'older, with a picture and a link',
      ]);
      expect(answer.posts[0]).toEqual({
        id: newer.id,
        content: 'newer',
        createdAt: f.at(5).toISOString(),
        isNsfw: false,
        likesCount: 0,
        repostsCount: 0,
        repliesCount: 0,
        media: [],
        linkPreviewUrl: null,
        linkPreviewTitle: '',
        linkPreviewDescription: '',
        linkPreviewImage: '',
      });
      expect(answer.posts[1]).toMatchObject({
        isNsfw: true,
        likesCount: 4,
        repostsCount: 1,
        repliesCount: 2,
        media: [
          { url: 'https://alpha.test/m/1.jpg', mimeType: 'image/jpeg', altText: 'first' },
          { url: 'https://alpha.test/m/2.png', mimeType: 'image/png', altText: 'second' },
        ],
        linkPreviewUrl: 'https://news.example/story',
        linkPreviewTitle: 'A story',
        linkPreviewDescription: 'What happened',
        linkPreviewImage: 'https://news.example/story.jpg',
      });
    });

    it('looks handles up case-insensitively and leaves `did` out when the user has none', async () => {
      await f.user('bob');
      const { status, body } = await getJson(t, '/api/swarm/users/BoB');
      expect(status).toBe(200);
      const raw = body as { profile: Record<string, unknown> };
      expect(raw.profile.handle).toBe('bob');
      expect('did' in raw.profile).toBe(false);
    });

    it('lists reposts only with reposts=true, in time order, of posts anyone may see', async () => {
      const alice = await f.user('alice');
      const bob = await f.user('bob');
      const carl = await f.user('carl', { suspendedAt: f.at(1) });
      const shown = await f.post(bob.id, 90);
      const followersOnly = await f.post(bob.id, 89, { visibility: 'followers' });
      const deleted = await f.post(bob.id, 88, { deletedAt: f.at(1) });
      const hidden = await f.post(carl.id, 87);
      const copy = async (domain: string, minutesAgo: number) =>
        f.prisma.post.create({
          data: {
            apId: `swarm:${domain}:0b3c2a4e-7f6d-4e8a-9b1c-${String(minutesAgo).padStart(12, '0')}`,
            remoteAuthorId: (await f.remoteActor('erin', domain)).id,
            content: `copy from ${domain}`,
            createdAt: f.at(minutesAgo),
            fetchedAt: f.at(1),
          },
        });
      const good = await copy('good.test', 86);
      const blocked = await copy('blocked.test', 85);
      await f.prisma.nodeBlock.create({ data: { domain: 'blocked.test' } });
      const originals = [shown, followersOnly, deleted, hidden, good, blocked];
      for (const [i, original] of originals.entries()) {
        await f.post(alice.id, 40 - i, { content: '', repostOfId: original.id });
      }
      await f.post(alice.id, 50, { content: 'alice writes' });
      await f.post(alice.id, 10, { content: 'alice again' });

      const list = async (query: string) =>
        swarmUserResponseSchema
          .parse((await getJson(t, `/api/swarm/users/alice${query}`)).body)
          .posts.map((p) => [p.content, p.repostOfId ?? null]);
      expect(await list('?reposts=true')).toEqual([
        ['alice again', null],
        ['', good.apId], // a copy: its swarm id
        ['', shown.id], // ours: our id
        ['alice writes', null],
      ]);
      expect(await list('?reposts=1&limit=2')).toEqual([
        ['alice again', null],
        ['', good.apId],
      ]);
      // Readers that do not ask get the list they always got.
      expect(await list('')).toEqual([
        ['alice again', null],
        ['alice writes', null],
      ]);
      const raw = (await getJson(t, '/api/swarm/users/alice?reposts=true')).body as {
        posts: Record<string, unknown>[];
      };
      expect(raw.posts[0]).not.toHaveProperty('repostOfId');
      await expectError(t, '/api/swarm/users/alice?reposts=maybe', 400, 'INVALID_REQUEST');
    });

    it('applies limit: default 25, clamped to 50, 0 = profile only, invalid = 400', async () => {
      const alice = await f.user('alice');
      await f.prisma.post.createMany({
        data: Array.from({ length: 60 }, (_, i) => ({
          authorId: alice.id,
          content: `p${i}`,
          createdAt: f.at(100 - i),
        })),
      });
      const count = async (query: string) =>
        swarmUserResponseSchema.parse((await getJson(t, `/api/swarm/users/alice${query}`)).body)
          .posts.length;
      expect(await count('')).toBe(25);
      expect(await count('?limit=7')).toBe(7);
      expect(await count('?limit=50')).toBe(50);
      expect(await count('?limit=500')).toBe(50);
      const profileOnly = swarmUserResponseSchema.parse(
        (await getJson(t, '/api/swarm/users/alice?limit=0')).body,
      );
      expect(profileOnly.posts).toEqual([]);
      expect(profileOnly.profile.handle).toBe('alice');
      for (const bad of ['-1', 'abc', '1.5', '']) {
        await expectError(t, `/api/swarm/users/alice?limit=${bad}`, 400, 'INVALID_REQUEST');
      }
    });

    it('lists only live, public, top-level posts written here', async () => {
      const alice = await f.user('alice');
      const parent = await f.post(alice.id, 50, { content: 'listed' });
      await f.post(alice.id, 40, { content: 'deleted', deletedAt: f.at(1) });
      await f.post(alice.id, 30, { content: 'a reply', replyToId: parent.id });
      await f.post(alice.id, 25, { content: '', repostOfId: parent.id });
      await f.post(alice.id, 20, { content: 'unlisted', visibility: 'unlisted' });
      await f.post(alice.id, 10, { content: 'followers only', visibility: 'followers' });
      const answer = swarmUserResponseSchema.parse(
        (await getJson(t, '/api/swarm/users/alice')).body,
      );
      expect(answer.posts.map((p) => p.content)).toEqual(['listed']);
    });

    it('answers 404 USER_NOT_FOUND for unknown and remote handles', async () => {
      await expectError(t, '/api/swarm/users/nobody', 404, 'USER_NOT_FOUND');
      await f.remoteActor('carol', 'beta.test');
      await expectError(t, '/api/swarm/users/carol', 404, 'USER_NOT_FOUND');
      await expectError(t, '/api/swarm/users/carol@beta.test', 404, 'USER_NOT_FOUND');
    });
  });

  describe('GET /api/swarm/timeline', () => {
    it('answers public top-level local posts, newest first, in the contract shape', async () => {
      const alice = await f.user('alice', {
        displayName: 'Alice',
        avatarUrl: 'https://alpha.test/a.png',
        isNsfw: true,
      });
      const bob = await f.user('bob');
      const first = await f.post(alice.id, 30, {
        content: 'first',
        likesCount: 5,
        repostsCount: 2,
        repliesCount: 1,
        linkPreviewUrl: 'https://news.example/x',
        media: {
          create: [{ url: 'https://alpha.test/m.png', mimeType: 'image/png', altText: 'alt' }],
        },
      });
      await f.post(bob.id, 20, { content: 'second' });
      await f.post(bob.id, 15, { content: 'reply', replyToId: first.id });
      await f.post(bob.id, 14, { content: '', repostOfId: first.id });
      await f.post(bob.id, 13, { content: 'deleted', deletedAt: f.at(1) });
      await f.post(bob.id, 12, { content: 'unlisted', visibility: 'unlisted' });
      await f.post(bob.id, 11, { content: 'followers', visibility: 'followers' });
      const carol = await f.remoteActor('carol', 'beta.test');
      await f.prisma.post.create({
        data: {
          remoteAuthorId: carol.id,
          apId: 'swarm:beta.test:c1',
          content: 'remote copy',
          createdAt: f.at(5),
        },
      });

      const { status, body } = await getJson(t, '/api/swarm/timeline');
      expect(status).toBe(200);
      const answer = timelineResponseSchema.parse(body);
      expect(answer).toMatchObject({ nodeDomain: 'alpha.test', nodeIsNsfw: false });
      expect(answer.timestamp).toBe(t.clock.now().toISOString());
      expect(answer.posts.map((p) => p.content)).toEqual(['second', 'first']);
      expect(answer.posts[1]).toEqual({
        id: first.id,
        content: 'first',
        createdAt: f.at(30).toISOString(),
        author: {
          handle: 'alice',
          displayName: 'Alice',
          avatarUrl: 'https://alpha.test/a.png',
          isNsfw: true,
        },
        nodeDomain: 'alpha.test',
        nodeIsNsfw: false,
        isNsfw: false,
        likeCount: 5,
        repostCount: 2,
        replyCount: 1,
        media: [{ url: 'https://alpha.test/m.png', mimeType: 'image/png', altText: 'alt' }],
        linkPreviewUrl: 'https://news.example/x',
      });
      // The spec's singular count names only: no plural ones leak into the timeline.
      expect(Object.keys((body as { posts: object[] }).posts[0]!)).not.toContain('likesCount');
    });

    it('applies limit: default 20, clamped to 50, invalid = 400', async () => {
      const alice = await f.user('alice');
      await f.prisma.post.createMany({
        data: Array.from({ length: 60 }, (_, i) => ({
          authorId: alice.id,
          createdAt: f.at(100 - i),
        })),
      });
      const count = async (query: string) =>
        timelineResponseSchema.parse((await getJson(t, `/api/swarm/timeline${query}`)).body).posts
          .length;
      expect(await count('')).toBe(20);
      expect(await count('?limit=3')).toBe(3);
      expect(await count('?limit=51')).toBe(50);
      expect(await count('?limit=0')).toBe(0);
      for (const bad of ['-1', 'abc', '2e1']) {
        await expectError(t, `/api/swarm/timeline?limit=${bad}`, 400, 'INVALID_REQUEST');
      }
      await expectError(t, '/api/swarm/timeline?before=yesterday', 400, 'INVALID_REQUEST');
    });

    it('pages back with `before` without losing or repeating a post', async () => {
      const alice = await f.user('alice');
      const same = f.at(50);
      await f.prisma.post.createMany({
        data: [
          ...Array.from({ length: 23 }, (_, i) => ({
            authorId: alice.id,
            content: `m${i}`,
            createdAt: f.at(40 - i),
          })),
          // three posts in one millisecond, straddling a page boundary
          ...['s0', 's1', 's2'].map((content) => ({
            authorId: alice.id,
            content,
            createdAt: same,
          })),
          { authorId: alice.id, content: 'oldest', createdAt: f.at(60) },
        ],
      });
      const seen: string[] = [];
      const pageSizes: number[] = [];
      let before: string | undefined;
      for (let round = 0; round < 20; round++) {
        const query = before ? `?limit=5&before=${encodeURIComponent(before)}` : '?limit=5';
        const page = timelineResponseSchema.parse(
          (await getJson(t, `/api/swarm/timeline${query}`)).body,
        );
        if (page.posts.length === 0) break;
        pageSizes.push(page.posts.length);
        const times = page.posts.map((p) => Date.parse(p.createdAt));
        expect(times).toEqual([...times].sort((a, b) => b - a));
        seen.push(...page.posts.map((p) => p.content));
        before = page.posts.at(-1)!.createdAt;
      }
      expect(seen).toHaveLength(27);
      expect(new Set(seen).size).toBe(27);
      expect(seen.at(-1)).toBe('oldest');
      // 23 distinct minutes fill four full pages; the fifth would split the shared millisecond,
      // so it stops before it and the three come together (with the oldest) on the next page.
      expect(pageSizes).toEqual([5, 5, 5, 5, 3, 4]);
    });

    it('reports nodeIsNsfw when SWARM_NODE_NSFW=1', async () => {
      const nsfw = await createTestNode({ SWARM_DOMAIN: 'gamma.test', SWARM_NODE_NSFW: '1' });
      try {
        const alice = await fixtures(nsfw).user('alice');
        await fixtures(nsfw).post(alice.id, 1);
        const answer = timelineResponseSchema.parse(
          (await getJson(nsfw, '/api/swarm/timeline')).body,
        );
        expect(answer.nodeIsNsfw).toBe(true);
        expect(answer.nodeDomain).toBe('gamma.test');
        expect(answer.posts).toHaveLength(1);
        expect(answer.posts[0]).toMatchObject({ nodeIsNsfw: true, nodeDomain: 'gamma.test' });
      } finally {
        await nsfw.close();
      }
    });
  });

  describe('GET /api/swarm/posts/[id]', () => {
    it('answers one local post with its author and references', async () => {
      const alice = await f.user('alice', { displayName: 'Alice' });
      const bob = await f.user('bob', { isNsfw: true });
      const parent = await f.post(alice.id, 20, { content: 'parent', repliesCount: 1 });
      const reply = await f.post(bob.id, 10, {
        content: 'a reply',
        isNsfw: true,
        likesCount: 2,
        media: {
          create: [{ url: 'https://alpha.test/r.gif', mimeType: 'image/gif', altText: 'wave' }],
        },
        replyToId: parent.id,
      });

      const { status, body } = await getJson(t, `/api/swarm/posts/${reply.id}`);
      expect(status).toBe(200);
      expect(singlePostSchema.parse(body)).toEqual({
        id: reply.id,
        content: 'a reply',
        createdAt: f.at(10).toISOString(),
        author: { handle: 'bob', displayName: 'BOB', avatarUrl: '', isNsfw: true },
        nodeDomain: 'alpha.test',
        isNsfw: true,
        likesCount: 2,
        repostsCount: 0,
        repliesCount: 0,
        media: [{ url: 'https://alpha.test/r.gif', mimeType: 'image/gif', altText: 'wave' }],
        linkPreviewUrl: null,
        replyToId: parent.id,
        repostOfId: null,
      });
      // Bare (the spec's shape), plus `post` and `replies` for origin-profile readers
      // (docs/protocol.md "Reading origin peers").
      expect((body as { post: unknown }).post).toEqual(singlePostSchema.parse(body));
      expect(body).toMatchObject({ replies: [] });

      const answer = (await getJson(t, `/api/swarm/posts/${parent.id}`)).body;
      const top = singlePostSchema.parse(answer);
      expect(top).toMatchObject({
        content: 'parent',
        replyToId: null,
        repostOfId: null,
        repliesCount: 1,
      });
      expect(singlePostAnswerSchema.parse(answer).replies).toEqual([
        expect.objectContaining({
          id: reply.id,
          content: 'a reply',
          author: expect.objectContaining({ handle: 'bob' }),
        }),
      ]);
    });

    it('refers to copies of remote posts by their swarm id', async () => {
      const alice = await f.user('alice');
      const carol = await f.remoteActor('carol', 'beta.test');
      const remote = await f.prisma.post.create({
        data: {
          remoteAuthorId: carol.id,
          apId: 'swarm:beta.test:abc-1',
          content: 'remote',
          createdAt: f.at(30),
        },
      });
      const reply = await f.post(alice.id, 20, { replyToId: remote.id });
      const repost = await f.post(alice.id, 10, {
        content: '',
        repostOfId: remote.id,
        visibility: 'unlisted',
      });
      expect(
        singlePostSchema.parse((await getJson(t, `/api/swarm/posts/${reply.id}`)).body).replyToId,
      ).toBe('swarm:beta.test:abc-1');
      expect(
        singlePostSchema.parse((await getJson(t, `/api/swarm/posts/${repost.id}`)).body).repostOfId,
      ).toBe('swarm:beta.test:abc-1');
      // The copy itself is not ours to serve.
      await expectError(t, `/api/swarm/posts/${remote.id}`, 404, 'POST_NOT_FOUND');
    });

    it('answers 404 POST_NOT_FOUND for unknown, deleted, non-public and non-UUID ids', async () => {
      const alice = await f.user('alice');
      const deleted = await f.post(alice.id, 10, { deletedAt: f.at(1) });
      const hidden = await f.post(alice.id, 5, { visibility: 'followers' });
      for (const id of [
        '00000000-0000-4000-8000-000000000000',
        deleted.id,
        hidden.id,
        'not-a-uuid',
        'swarm:beta.test:1',
        "1' OR '1'='1",
      ]) {
        await expectError(t, `/api/swarm/posts/${encodeURIComponent(id)}`, 404, 'POST_NOT_FOUND');
      }
    });
  });

  describe('GET /api/swarm/replies', () => {
    it('lists replies oldest first, remote authors as handle@domain', async () => {
      const alice = await f.user('alice', {
        displayName: 'Alice',
        avatarUrl: 'https://alpha.test/a.png',
      });
      const bob = await f.user('bob');
      const parent = await f.post(alice.id, 60, { content: 'parent' });
      const carol = await f.remoteActor('carol', 'beta.test');
      const remoteReply = await f.prisma.post.create({
        data: {
          apId: 'swarm:beta.test:r-1',
          remoteAuthorId: carol.id,
          replyToId: parent.id,
          content: 'from beta',
          likesCount: 1,
          createdAt: f.at(40),
        },
      });
      const localReply = await f.post(alice.id, 30, {
        content: 'from alice',
        replyToId: parent.id,
      });
      await f.post(bob.id, 50, { content: 'from bob', replyToId: parent.id, repliesCount: 1 });
      await f.post(bob.id, 20, { content: 'deleted', replyToId: parent.id, deletedAt: f.at(1) });
      await f.post(bob.id, 15, {
        content: 'followers only',
        replyToId: parent.id,
        visibility: 'followers',
      });
      await f.post(bob.id, 10, { content: 'not a reply to it' });

      const { status, body } = await getJson(t, `/api/swarm/replies?postId=${parent.id}`);
      expect(status).toBe(200);
      const answer = repliesResponseSchema.parse(body);
      expect(answer.nodeDomain).toBe('alpha.test');
      expect(answer.replies.map((r) => r.content)).toEqual(['from bob', 'from beta', 'from alice']);
      expect(answer.replies[0]!.repliesCount).toBe(1);
      expect(answer.replies[1]).toEqual({
        id: remoteReply.id,
        content: 'from beta',
        createdAt: f.at(40).toISOString(),
        author: {
          handle: 'carol@beta.test',
          displayName: 'carol from beta.test',
          avatarUrl: 'https://beta.test/avatars/carol.png',
        },
        likesCount: 1,
        repostsCount: 0,
        repliesCount: 0,
      });
      expect(answer.replies[2]).toEqual({
        id: localReply.id,
        content: 'from alice',
        createdAt: f.at(30).toISOString(),
        author: { handle: 'alice', displayName: 'Alice', avatarUrl: 'https://alpha.test/a.png' },
        likesCount: 0,
        repostsCount: 0,
        repliesCount: 0,
      });
    });

    it(`pages back with \`before\`, ${REPLIES_PAGE_SIZE} replies at a time`, async () => {
      const alice = await f.user('alice');
      const parent = await f.post(alice.id, 1000, { content: 'parent' });
      const total = REPLIES_PAGE_SIZE + 5;
      await f.prisma.post.createMany({
        data: Array.from({ length: total }, (_, i) => ({
          authorId: alice.id,
          replyToId: parent.id,
          content: `r${i}`,
          createdAt: f.at(total - i), // r0 oldest
        })),
      });
      const newest = repliesResponseSchema.parse(
        (await getJson(t, `/api/swarm/replies?postId=${parent.id}`)).body,
      );
      expect(newest.replies).toHaveLength(REPLIES_PAGE_SIZE);
      expect(newest.replies[0]!.content).toBe('r5');
      expect(newest.replies.at(-1)!.content).toBe(`r${total - 1}`);
      const before = encodeURIComponent(newest.replies[0]!.createdAt);
      const older = repliesResponseSchema.parse(
        (await getJson(t, `/api/swarm/replies?postId=${parent.id}&before=${before}`)).body,
      );
      expect(older.replies.map((r) => r.content)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    });

    it('answers 404 POST_NOT_FOUND for unknown or deleted posts and 400 for a bad query', async () => {
      const alice = await f.user('alice');
      const deleted = await f.post(alice.id, 10, { deletedAt: f.at(1) });
      await expectError(
        t,
        '/api/swarm/replies?postId=00000000-0000-4000-8000-000000000000',
        404,
        'POST_NOT_FOUND',
      );
      await expectError(t, `/api/swarm/replies?postId=${deleted.id}`, 404, 'POST_NOT_FOUND');
      await expectError(t, '/api/swarm/replies', 400, 'INVALID_REQUEST');
      await expectError(t, '/api/swarm/replies?postId=abc', 400, 'INVALID_REQUEST');
      const live = await f.post(alice.id, 5);
      await expectError(
        t,
        `/api/swarm/replies?postId=${live.id}&before=soon`,
        400,
        'INVALID_REQUEST',
      );
    });
  });

  describe('demo content', () => {
    it('is seeded once, with exact counters, and served by every endpoint', async () => {
      const demo = createDemoContentService(t.node);
      const first = await demo.seed();
      expect(first).toMatchObject({
        created: true,
        users: [...DEMO_HANDLES],
        posts: 4,
        replies: 3,
      });
      const rows = async () => ({
        users: await f.prisma.user.count(),
        posts: await f.prisma.post.count(),
        media: await f.prisma.mediaItem.count(),
      });
      const before = await rows();
      expect(await demo.seed()).toMatchObject({ created: false });
      expect(await rows()).toEqual(before);

      for (const handle of DEMO_HANDLES) {
        const answer = swarmUserResponseSchema.parse(
          (await getJson(t, `/api/swarm/users/${handle}`)).body,
        );
        expect(answer.profile.isBot).toBe(true);
        expect(answer.profile.bio.startsWith('Demo account')).toBe(true);
        expect(answer.profile.did).toMatch(/^did:key:zDn/);
        const written = await f.prisma.post.count({ where: { author: { handle } } });
        expect(answer.profile.postsCount).toBe(written);
      }

      const timeline = timelineResponseSchema.parse((await getJson(t, '/api/swarm/timeline')).body);
      expect(timeline.posts).toHaveLength(4);
      expect(timeline.posts.find((p) => p.media.length > 0)?.media[0]).toMatchObject({
        url: expect.stringMatching(/^https:\/\//),
        altText: expect.stringContaining('demo'),
      });
      expect(timeline.posts.filter((p) => p.isNsfw)).toHaveLength(1);
      expect(timeline.posts.filter((p) => p.linkPreviewUrl !== null)).toHaveLength(1);

      // Every post's repliesCount matches the replies actually listed for it.
      for (const post of timeline.posts) {
        const replies = repliesResponseSchema.parse(
          (await getJson(t, `/api/swarm/replies?postId=${post.id}`)).body,
        );
        expect(replies.replies).toHaveLength(post.replyCount);
        const single = singlePostSchema.parse(
          (await getJson(t, `/api/swarm/posts/${post.id}`)).body,
        );
        expect(single.repliesCount).toBe(post.replyCount);
      }
      expect(timeline.posts.reduce((sum, p) => sum + p.replyCount, 0)).toBe(3);
    });

    it('is seeded by one of two starts racing each other', async () => {
      const reports = await Promise.all([
        createDemoContentService(t.node).seed(),
        createDemoContentService(t.node).seed(),
      ]);
      expect(reports.filter((r) => r.created)).toHaveLength(1);
      expect(await f.prisma.user.count()).toBe(DEMO_HANDLES.length);
      expect(await f.prisma.post.count()).toBe(7);
    });

    it('is left alone when a demo handle is already taken', async () => {
      await f.user('demo_chen');
      expect(await createDemoContentService(t.node).seed()).toMatchObject({ created: false });
      expect(await f.prisma.user.count()).toBe(1);
      expect(await f.prisma.post.count()).toBe(0);
    });
  });
});

// On an embedded database of its own whatever the database under test: CI's Postgres pass
// (TEST_DATABASE_URL set) would only repeat it.
const onItsOwnDatabase = describe.skipIf(Boolean(process.env.TEST_DATABASE_URL));

onItsOwnDatabase('SWARM_DEMO_CONTENT=1 on a real start', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'swarm-demo-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('seeds on the first start only and logs what it created', async () => {
    const parsed = parseConfig({
      SWARM_DOMAIN: 'demo.test',
      SWARM_DEMO_CONTENT: '1',
      DATABASE_URL: `pglite:${join(dir, 'db')}`,
      LOG_LEVEL: 'silent',
    });
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    const start = async () => {
      const logger = createLogger('silent');
      const info = vi.spyOn(logger, 'info');
      const node = await bootNode(parsed.value, { logger });
      const messages = info.mock.calls.map((call) => call.find((arg) => typeof arg === 'string'));
      return { node, messages };
    };

    const first = await start();
    try {
      expect(first.messages).toContain(
        'Demo content: created 3 demo users, 4 posts and 3 replies.',
      );
      const app = createGatewayApp(first.node);
      const timeline = timelineResponseSchema.parse(
        await (await app.request('/api/swarm/timeline')).json(),
      );
      expect(timeline.posts).toHaveLength(4);
    } finally {
      await first.node.close();
    }

    const second = await start();
    try {
      expect(second.messages).toContain('Demo content: already present, nothing added.');
      expect(await second.node.db.prisma.user.count()).toBe(3);
      expect(await second.node.db.prisma.post.count()).toBe(7);
    } finally {
      await second.node.close();
    }
  });
});
