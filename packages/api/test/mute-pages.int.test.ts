import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthServices, SessionUser } from '@swarm/auth';
import { FEED_SCAN_MAX_ROWS, type PostView } from '@swarm/domain';
import { createNodeWithAuth, sessionUserOf, signedInCaller, type TestNode } from './harness.ts';

// Mutes are applied after the database query (issue #15): a timeline page must still be full
// when the newest posts are by people the viewer muted (before, a page of 20 came back empty
// and without a cursor), and a viewer who muted nearly everything still pages on, at a bounded
// cost. Through the timeline procedures as the web app calls them.

let t: TestNode;
let auth: AuthServices;
let vera: SessionUser;
const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);

const as = (user: SessionUser | null) => signedInCaller(t.node, user, { auth });
const authors = (posts: PostView[]) => [...new Set(posts.map((p) => p.author.handle))];

async function user(handle: string) {
  const row = await t.node.db.prisma.user.create({
    data: { handle, displayName: handle, passwordHash: '!' },
  });
  return sessionUserOf(row);
}

/** All pages of a timeline, following `nextBefore`. */
async function allPages(
  read: (before?: string) => Promise<{ posts: PostView[]; nextBefore: string | null }>,
) {
  const pages: PostView[][] = [];
  let before: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await read(before);
    pages.push(page.posts);
    if (!page.nextBefore) break;
    before = page.nextBefore;
  }
  return pages;
}

beforeAll(async () => {
  ({ t, auth } = await createNodeWithAuth({ SWARM_DOMAIN: 'alpha.test' }));
  const prisma = t.node.db.prisma;
  vera = await user('vera');
  const okay = await user('okay');
  const rick = await user('rick');
  // 30 posts by okay (seconds 0–29), then 30 muted people with 2 posts each, all newer.
  await prisma.post.createMany({
    data: Array.from({ length: 30 }, (_, i) => ({
      authorId: okay.id,
      content: `okay ${i}`,
      createdAt: at(i),
    })),
  });
  for (let m = 0; m < 30; m++) {
    const muted = await user(`muted${m}`);
    await prisma.post.createMany({
      data: [0, 1].map((k) => ({
        authorId: muted.id,
        content: `muted ${m}.${k}`,
        createdAt: at(100 + m * 2 + k),
      })),
    });
    await as(vera).moderation.safety.mute({ target: `muted${m}` });
  }
  // vera follows okay and rick; rick reposts ten posts of muted people (the newest of all).
  for (const followee of [okay, rick]) {
    await prisma.follow.create({
      data: {
        followerKey: `local:${vera.id}`,
        followerUserId: vera.id,
        followeeKey: `local:${followee.id}`,
        followeeUserId: followee.id,
        state: 'accepted',
      },
    });
  }
  const mutedPosts = await prisma.post.findMany({
    where: { content: { startsWith: 'muted ' } },
    take: 10,
  });
  await prisma.post.createMany({
    data: mutedPosts.map((p, i) => ({
      authorId: rick.id,
      content: '',
      repostOfId: p.id,
      createdAt: at(500 + i),
    })),
  });
}, 120_000);
afterAll(() => t?.close());

describe('pages stay full when the newest authors are muted', () => {
  it('the local timeline: 20 of okay’s posts, then the other 10, then the end', async () => {
    const first = await as(vera).timeline.local({ limit: 20 });
    expect(first.posts).toHaveLength(20);
    expect(authors(first.posts)).toEqual(['okay']);
    expect(first.posts[0]!.content).toBe('okay 29');
    const second = await as(vera).timeline.local({ limit: 20, before: first.nextBefore! });
    expect(second.posts.map((p) => p.content)).toEqual(
      Array.from({ length: 10 }, (_, i) => `okay ${9 - i}`),
    );
    expect(second.nextBefore).toBeNull();
    // Someone who muted nobody sees the muted people's posts first, as before.
    const anon = await as(null).timeline.local({ limit: 20 });
    expect(anon.posts[0]!.content).toBe('muted 29.1');
  });

  it('home: reposts of muted people and their own posts are left out, the page is still full', async () => {
    const first = await as(vera).timeline.home({ limit: 20 });
    expect(first.posts).toHaveLength(20);
    expect(authors(first.posts)).toEqual(['okay']);
    const pages = await allPages((before) => as(vera).timeline.home({ limit: 20, before }));
    expect(pages.flat().map((p) => p.content)).toEqual(
      Array.from({ length: 30 }, (_, i) => `okay ${29 - i}`),
    );
  });

  it('a viewer who muted nearly everything pages on at a bounded cost and misses nothing', async () => {
    const prisma = t.node.db.prisma;
    const flood = await user('flood');
    await prisma.post.createMany({
      data: Array.from({ length: FEED_SCAN_MAX_ROWS + 100 }, (_, i) => ({
        authorId: flood.id,
        content: `flood ${i}`,
        createdAt: at(1000 + i),
      })),
    });
    await as(vera).moderation.safety.mute({ target: 'flood' });
    const first = await as(vera).timeline.local({ limit: 20 });
    // The reading stopped at the bound: no post shown yet, but a cursor to go on with.
    expect(first.posts).toEqual([]);
    expect(first.nextBefore).not.toBeNull();
    const pages = await allPages((before) => as(vera).timeline.local({ limit: 20, before }));
    expect(pages.flat().map((p) => p.content)).toEqual(
      Array.from({ length: 30 }, (_, i) => `okay ${29 - i}`),
    );
  });
});
