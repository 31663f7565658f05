import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@swarm/db';
import { createTestDb } from '@swarm/db/testing';
import { createLogger } from '../src/logger.ts';
import { createRemotePostStore, STORE_BATCH_MAX } from '../src/remote-posts/index.ts';
import type { PostView } from '../src/views/index.ts';

// The store's rules on a real database: newer data from a post's node wins, a copy deleted here
// stays deleted, another author cannot take an id over, local posts are never written; a repost
// entry points at a post held here and never makes one.

let db: Db;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db.close();
});

let at = new Date('2026-11-27T12:00:00.000Z');
const clock = {
  now: () => at,
  advance: (ms: number) => void (at = new Date(at.getTime() + ms)),
};
/** What the store told the invalidation bus (live pages and apps' streams listen there). */
const published: string[] = [];
const store = () =>
  createRemotePostStore({
    db,
    clock,
    logger: createLogger('silent'),
    invalidations: { publish: async (topic) => void published.push(topic) },
  });

function view(id: string, overrides: Partial<PostView> = {}): PostView {
  const apId = `swarm:beta.example:${id}`;
  return {
    id: apId,
    path: `/posts/${apId}`,
    author: {
      handle: 'bob',
      domain: 'beta.example',
      displayName: 'Bob',
      avatarUrl: null,
      address: 'bob@beta.example',
      isRemote: true,
    },
    content: 'hello from beta',
    createdAt: '2026-11-27T11:00:00.000Z',
    isNsfw: false,
    media: [],
    linkPreview: null,
    likesCount: 1,
    repostsCount: 0,
    repliesCount: 0,
    replyToId: null,
    repostedBy: null,
    nodeDomain: 'beta.example',
    isRemote: true,
    viewer: null,
    ...overrides,
  };
}

describe('the remote post store', () => {
  it('stores a copy once and refreshes it with what its node sends later', async () => {
    const id = '7f9c1e7a-0b2d-4c11-9a5e-5b4f1d1e0a01';
    const first = await store().store([{ view: view(id) }], 'push');
    expect(first.created).toEqual([`swarm:beta.example:${id}`]);
    const editedAt = async () =>
      (
        await db.prisma.post.findUniqueOrThrow({
          where: { apId: `swarm:beta.example:${id}` },
          select: { editedAt: true },
        })
      ).editedAt?.toISOString() ?? null;
    expect(await editedAt()).toBeNull();
    clock.advance(60_000);
    const media = [{ url: 'https://beta.example/m/1.png', mimeType: 'image/png', altText: 'a' }];
    const again = await store().store(
      [{ view: view(id, { content: 'edited', likesCount: 5, media }) }],
      'poll',
    );
    expect(again).toEqual({
      created: [],
      updated: 1,
      changed: 1,
      skipped: 0,
      missingOriginals: [],
    });
    const row = await db.prisma.post.findUniqueOrThrow({
      where: { apId: `swarm:beta.example:${id}` },
      include: { media: true, remoteAuthor: true },
    });
    expect(row.content).toBe('edited');
    expect(row.likesCount).toBe(5);
    expect(row.media.map((m) => m.url)).toEqual([media[0]!.url]);
    expect(row.remoteAuthor?.handle).toBe('bob');
    expect(row.fetchedAt?.toISOString()).toBe(clock.now().toISOString());
    expect(row.visibility).toBe('public');
    // The wire has no edit time: the copy is edited when this node saw the change.
    const seen = clock.now().toISOString();
    expect(row.editedAt?.toISOString()).toBe(seen);
    // New counts alone are not an edit: nothing for live pages and streams.
    published.length = 0;
    clock.advance(60_000);
    const counts = await store().store(
      [{ view: view(id, { content: 'edited', likesCount: 7, media }) }],
      'poll',
    );
    expect(counts).toMatchObject({ updated: 1, changed: 0 });
    expect(published).toEqual([]);
    expect(await editedAt()).toBe(seen);
    const alt = await store().store(
      [{ view: view(id, { content: 'edited', media: [{ ...media[0]!, altText: 'b' }] }) }],
      'poll',
    );
    expect(alt).toMatchObject({ updated: 1, changed: 1 });
    expect(published).toHaveLength(1);
  });

  it('keeps a copy deleted here deleted, and another author cannot take the id over', async () => {
    const id = '7f9c1e7a-0b2d-4c11-9a5e-5b4f1d1e0a02';
    await store().store([{ view: view(id) }], 'push');
    await db.prisma.post.update({
      where: { apId: `swarm:beta.example:${id}` },
      data: { deletedAt: clock.now() },
    });
    const back = await store().store([{ view: view(id, { content: 'I am back' }) }], 'crawl');
    expect(back.skipped).toBe(1);

    const other = '7f9c1e7a-0b2d-4c11-9a5e-5b4f1d1e0a03';
    await store().store([{ view: view(other) }], 'push');
    const mallory = { ...view(other).author, handle: 'mallory' };
    const taken = await store().store(
      [{ view: view(other, { author: mallory, content: 'mine now' }) }],
      'push',
    );
    expect(taken.skipped).toBe(1);
    const rows = await db.prisma.post.findMany({
      where: { apId: { in: [`swarm:beta.example:${id}`, `swarm:beta.example:${other}`] } },
      select: { content: true },
      orderBy: { apId: 'asc' },
    });
    expect(rows.map((r) => r.content)).toEqual(['hello from beta', 'hello from beta']);
  });

  it('skips local posts and authors of another node than the id, and bounds a call', async () => {
    const id = '7f9c1e7a-0b2d-4c11-9a5e-5b4f1d1e0a04';
    const local = view(id, { id, isRemote: false });
    const foreign = view(id, {
      author: { ...view(id).author, domain: 'gamma.example' },
    });
    const outcome = await store().store([{ view: local }, { view: foreign }], 'read');
    expect(outcome).toEqual({
      created: [],
      updated: 0,
      changed: 0,
      skipped: 2,
      missingOriginals: [],
    });
    expect(await db.prisma.post.count({ where: { id } })).toBe(0);
    const many = Array.from({ length: STORE_BATCH_MAX + 1 }, () => ({ view: view(id) }));
    await expect(store().store(many, 'crawl')).rejects.toThrow(/at most/);
  });

  it('dates a post from the future now (it would sit on top of every list)', async () => {
    const id = '7f9c1e7a-0b2d-4c11-9a5e-5b4f1d1e0a07';
    await store().store([{ view: view(id, { createdAt: '2027-01-01T00:00:00.000Z' }) }], 'push');
    const row = await db.prisma.post.findUniqueOrThrow({
      where: { apId: `swarm:beta.example:${id}` },
      select: { createdAt: true },
    });
    expect(row.createdAt).toEqual(at);
  });

  it('links a reply to the copy of its parent and keeps followers-only posts so', async () => {
    const parent = '7f9c1e7a-0b2d-4c11-9a5e-5b4f1d1e0a05';
    const reply = '7f9c1e7a-0b2d-4c11-9a5e-5b4f1d1e0a06';
    await store().store(
      [
        { view: view(parent) },
        {
          view: view(reply, { replyToId: `swarm:beta.example:${parent}` }),
          visibility: 'followers',
        },
      ],
      'push',
    );
    const row = await db.prisma.post.findUniqueOrThrow({
      where: { apId: `swarm:beta.example:${reply}` },
      select: { visibility: true, replyTo: { select: { apId: true } } },
    });
    expect(row).toEqual({
      visibility: 'followers',
      replyTo: { apId: `swarm:beta.example:${parent}` },
    });
  });

  it('keeps a repost entry pointing at a held public post only; the entry stays a repost', async () => {
    const held = '7f9c1e7a-0b2d-4c11-9a5e-5b4f1d1e0a07';
    const secret = '7f9c1e7a-0b2d-4c11-9a5e-5b4f1d1e0a08';
    const [repost, missing, ofSecret] = [
      '7f9c1e7a-0b2d-4c11-9a5e-5b4f1d1e0a09',
      '7f9c1e7a-0b2d-4c11-9a5e-5b4f1d1e0a0a',
      '7f9c1e7a-0b2d-4c11-9a5e-5b4f1d1e0a0b',
    ];
    const elsewhere = 'swarm:gamma.example:7f9c1e7a-0b2d-4c11-9a5e-5b4f1d1e0a0c';
    await store().store(
      [{ view: view(held) }, { view: view(secret), visibility: 'followers' }],
      'push',
    );
    const outcome = await store().store(
      [
        { view: view(repost), repostOf: `swarm:beta.example:${held}` },
        { view: view(missing), repostOf: elsewhere },
        { view: view(ofSecret), repostOf: `swarm:beta.example:${secret}` },
      ],
      'poll',
    );
    expect(outcome).toEqual({
      created: [`swarm:beta.example:${repost}`],
      updated: 0,
      changed: 0,
      skipped: 2,
      missingOriginals: [elsewhere],
    });
    const rows = await db.prisma.post.findMany({
      where: { apId: { in: [repost, missing, ofSecret].map((id) => `swarm:beta.example:${id}`) } },
      select: { content: true, repostOf: { select: { apId: true } } },
    });
    expect(rows).toEqual([{ content: '', repostOf: { apId: `swarm:beta.example:${held}` } }]);
    expect(await db.prisma.post.count({ where: { apId: elsewhere } })).toBe(0);
    // The same id sent as a post later does not turn the repost into one.
    const asPost = await store().store([{ view: view(repost, { content: 'now a post' }) }], 'push');
    expect(asPost).toMatchObject({ updated: 0, skipped: 1 });
    expect(
      await db.prisma.post.findUniqueOrThrow({
        where: { apId: `swarm:beta.example:${repost}` },
        select: { content: true },
      }),
    ).toEqual({ content: '' });
  });
});
