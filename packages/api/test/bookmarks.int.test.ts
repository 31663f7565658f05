import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthServices, SessionUser } from '@swarm/auth';
import { BOOKMARKS_MAX, createRetentionSweep, type PostView } from '@swarm/domain';
import {
  createNodeWithAuth,
  sessionUserOf,
  signedInCaller,
  trpcFailure,
  type TestNode,
} from './harness.ts';

// Bookmarks (issue 25) through the tRPC procedures on a real node: which posts can be kept
// (local, stored copies, the audience rule), the bound, paging by cursor in both directions,
// the one visibility rule applied when the list is read, and retention keeping bookmarked
// copies. Content is set up in the database directly; everything asserted comes through the
// caller (or the retention sweep).

let t: TestNode;
let auth: AuthServices;
const users: Record<string, SessionUser> = {};
const ids: Record<string, string> = {};
const REMOTE = 'swarm:beta.test:11111111-1111-4111-8111-111111111111';
const PLACEHOLDER = 'swarm:beta.test:22222222-2222-4222-8222-222222222222';
const NOT_STORED = 'swarm:beta.test:33333333-3333-4333-8333-333333333333';

const as = (handle: string) => signedInCaller(t.node, users[handle]!, { auth });
const contents = (posts: PostView[]) => posts.map((p) => p.content);

beforeAll(async () => {
  ({ t, auth } = await createNodeWithAuth({ SWARM_DOMAIN: 'alpha.test' }));
  const prisma = t.node.db.prisma;
  for (const handle of ['alice', 'bob', 'carol', 'dora']) {
    const row = await prisma.user.create({
      data: { handle, displayName: handle, passwordHash: '!' },
    });
    users[handle] = sessionUserOf(row);
  }
  const post = async (name: string, author: string, extra: Record<string, unknown> = {}) => {
    const row = await prisma.post.create({
      data: { authorId: users[author]!.id, content: name, ...extra },
    });
    ids[name] = row.id;
  };
  await post('bob-public', 'bob');
  await post('bob-followers', 'bob', { visibility: 'followers' });
  await post('carol-public', 'carol');
  await post('carol-followers', 'carol', { visibility: 'followers' });
  await post('dora-public', 'dora');
  for (let i = 1; i <= 5; i += 1) await post(`page-${i}`, 'bob');
  // alice follows bob, not carol.
  await prisma.follow.create({
    data: {
      followerKey: `local:${users.alice!.id}`,
      followerUserId: users.alice!.id,
      followeeKey: `local:${users.bob!.id}`,
      followeeUserId: users.bob!.id,
    },
  });
  const erin = await prisma.remoteActor.create({
    data: { actorUrl: 'swarm://beta.test/erin', handle: 'erin', nodeDomain: 'beta.test' },
  });
  const old = new Date(t.clock.now().getTime() - 60 * 24 * 60 * 60_000);
  for (const [apId, content, fetchedAt] of [
    [REMOTE, 'erin-copy', old],
    [PLACEHOLDER, '', null],
  ] as const) {
    const row = await prisma.post.create({
      data: { apId, remoteAuthorId: erin.id, content, fetchedAt, createdAt: old },
    });
    ids[content || 'placeholder'] = row.id;
  }
});

afterAll(async () => {
  await t.close();
});

describe('bookmarks.add / remove', () => {
  it('keeps a post the viewer can read, local or a stored copy, and says so on the post', async () => {
    const added = await as('alice').bookmarks.add({ postId: ids['bob-public']! });
    expect(added).toMatchObject({ content: 'bob-public', viewer: { bookmarked: true } });
    t.clock.advance(1000);
    // Followers-only of someone she follows; a copy by its `swarm:` id.
    await as('alice').bookmarks.add({ postId: ids['bob-followers']! });
    t.clock.advance(1000);
    const copy = await as('alice').bookmarks.add({ postId: REMOTE });
    expect(copy).toMatchObject({ id: REMOTE, isRemote: true, viewer: { bookmarked: true } });
    // Our own post by its `swarm:` form works too; a repeat changes nothing.
    t.clock.advance(1000);
    await as('alice').bookmarks.add({ postId: `swarm:alpha.test:${ids['carol-public']!}` });
    await as('alice').bookmarks.add({ postId: ids['carol-public']! });
    const page = await as('alice').bookmarks.list();
    expect(contents(page.posts)).toEqual([
      'carol-public',
      'erin-copy',
      'bob-followers',
      'bob-public',
    ]);
    // Others see nothing of it.
    expect((await as('bob').bookmarks.list()).posts).toEqual([]);
    const home = await as('alice').timeline.home();
    const shown = home.posts.find((p) => p.content === 'bob-public')!;
    expect(shown.viewer?.bookmarked).toBe(true);
    expect(home.posts.find((p) => p.content === 'page-1')!.viewer?.bookmarked).toBe(false);
  });

  it('refuses posts the viewer cannot read, copies not stored here, and bad ids', async () => {
    const fails = async (postId: string) => trpcFailure(as('alice').bookmarks.add({ postId }));
    // Followers-only of someone she does not follow: as if it did not exist.
    expect((await fails(ids['carol-followers']!)).code).toBe('NOT_FOUND');
    expect(await fails(NOT_STORED)).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('keeps no copy'),
    });
    // A placeholder made by an action, not content its node sent.
    expect((await fails(PLACEHOLDER)).code).toBe('NOT_FOUND');
    expect((await fails('not-an-id')).code).toBe('NOT_FOUND');
    expect((await fails('swarm:nonsense')).code).toBe('BAD_REQUEST');
    // An author who blocked her: their posts do not exist for her here.
    await t.node.db.prisma.userBlock.create({
      data: { userId: users.dora!.id, blockedAddress: 'alice@alpha.test' },
    });
    expect((await fails(ids['dora-public']!)).code).toBe('NOT_FOUND');
    await t.node.db.prisma.userBlock.deleteMany({ where: { userId: users.dora!.id } });
    // Signed out: no bookmarks at all.
    const anonymous = signedInCaller(t.node, null, { auth });
    expect((await trpcFailure(anonymous.bookmarks.list())).code).toBe('UNAUTHORIZED');
  });

  it('removes a bookmark, idempotently', async () => {
    await as('alice').bookmarks.add({ postId: ids['dora-public']! });
    const removed = await as('alice').bookmarks.remove({ postId: ids['dora-public']! });
    expect(removed).toMatchObject({ content: 'dora-public', viewer: { bookmarked: false } });
    await as('alice').bookmarks.remove({ postId: ids['dora-public']! });
    const all = await as('alice').bookmarks.list();
    expect(contents(all.posts)).not.toContain('dora-public');
    expect((await trpcFailure(as('alice').bookmarks.remove({ postId: NOT_STORED }))).code).toBe(
      'NOT_FOUND',
    );
  });
});

describe('bookmarks.list', () => {
  it('pages newest bookmarked first, by cursor, both ways, without gaps or repeats', async () => {
    // carol bookmarks five posts in the same millisecond: the row id orders them.
    for (let i = 1; i <= 5; i += 1) {
      await as('carol').bookmarks.add({ postId: ids[`page-${i}`]! });
    }
    const all = await as('carol').bookmarks.list();
    expect(all.posts).toHaveLength(5);
    const seen: string[] = [];
    let before: string | undefined;
    for (let pages = 0; pages < 5; pages += 1) {
      const page = await as('carol').bookmarks.list({ limit: 2, before });
      seen.push(...contents(page.posts));
      expect(page.posts.length).toBeLessThanOrEqual(2);
      if (!page.next) break;
      before = page.next;
    }
    expect(seen).toEqual(contents(all.posts));
    // Newer than the oldest: the four above it, still newest first.
    const oldest = all.entries[4]!.cursor;
    const newer = await as('carol').bookmarks.list({ after: oldest, limit: 10 });
    expect(contents(newer.posts)).toEqual(contents(all.posts).slice(0, 4));
    const justAbove = await as('carol').bookmarks.list({ after: oldest, limit: 1 });
    expect(contents(justAbove.posts)).toEqual([contents(all.posts)[3]]);
    // Bad cursors are a clear 400.
    for (const input of [
      { before: 'garbage' },
      { after: '1_x' },
      { before: oldest, after: oldest },
    ]) {
      expect((await trpcFailure(as('carol').bookmarks.list(input))).code).toBe('BAD_REQUEST');
    }
  });

  it('drops deleted posts, hidden authors and muted people, and brings them back', async () => {
    const prisma = t.node.db.prisma;
    const shown = async () => contents((await as('alice').bookmarks.list()).posts);
    expect(await shown()).toContain('bob-public');
    await prisma.user.update({ where: { id: users.bob!.id }, data: { suspendedAt: new Date() } });
    expect(await shown()).toEqual(['carol-public', 'erin-copy']);
    await prisma.user.update({ where: { id: users.bob!.id }, data: { suspendedAt: null } });
    await as('alice').moderation.safety.mute({ target: 'erin@beta.test' });
    expect(await shown()).not.toContain('erin-copy');
    await as('alice').moderation.safety.unmute({ target: 'erin@beta.test' });
    // An unfollow hides bob's followers-only post (the audience rule), not his public one.
    await prisma.follow.deleteMany({ where: { followerUserId: users.alice!.id } });
    expect(await shown()).toEqual(['carol-public', 'erin-copy', 'bob-public']);
    await prisma.post.update({
      where: { id: ids['carol-public']! },
      data: { deletedAt: new Date() },
    });
    expect(await shown()).toEqual(['erin-copy', 'bob-public']);
  });

  it('holds at most BOOKMARKS_MAX a person, with a clear refusal', async () => {
    const prisma = t.node.db.prisma;
    const dora = users.dora!.id;
    await prisma.$executeRaw`
      INSERT INTO posts (author_id, content)
      SELECT ${dora}::uuid, 'filler' FROM generate_series(1, ${BOOKMARKS_MAX})`;
    await prisma.$executeRaw`
      INSERT INTO bookmarks (user_id, post_id)
      SELECT ${dora}::uuid, id FROM posts WHERE content = 'filler'`;
    const refused = await trpcFailure(as('dora').bookmarks.add({ postId: ids['bob-public']! }));
    expect(refused).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/at most 10,000 bookmarks/),
    });
    // One already kept is no new bookmark: answered, not refused.
    const kept = await prisma.bookmark.findFirst({
      where: { userId: dora },
      select: { postId: true },
    });
    await expect(as('dora').bookmarks.add({ postId: kept!.postId })).resolves.toMatchObject({
      viewer: { bookmarked: true },
    });
  });
});

describe('retention', () => {
  it('keeps a bookmarked copy whatever its age, and deletes it once nobody keeps it', async () => {
    const sweep = createRetentionSweep({ db: t.node.db, clock: t.clock, logger: t.node.logger });
    await sweep.sweep();
    const prisma = t.node.db.prisma;
    expect(await prisma.post.count({ where: { apId: REMOTE } })).toBe(1);
    await as('alice').bookmarks.remove({ postId: REMOTE });
    await sweep.sweep();
    expect(await prisma.post.count({ where: { apId: REMOTE } })).toBe(0);
  });
});
