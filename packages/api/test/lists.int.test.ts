import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthServices, SessionUser } from '@swarm/auth';
import { LIST_LIMITS, type PostView } from '@swarm/domain';
import {
  createNodeWithAuth,
  sessionUserOf,
  signedInCaller,
  trpcFailure,
  type TestNode,
} from './harness.ts';

// Lists (issue 25) through the tRPC procedures on a real node: titles and bounds, members only
// among people followed (local and remote, by address or account id), the list timeline from
// the database (members' posts and stored copies, replies by policy, paging, the visibility
// rule), an unfollow taking someone off, and exclusive lists leaving home.

let t: TestNode;
let auth: AuthServices;
const users: Record<string, SessionUser> = {};
const ids: Record<string, string> = {};
let erinId = '';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const as = (handle: string) => signedInCaller(t.node, users[handle]!, { auth });
const contents = (posts: PostView[]) => posts.map((p) => p.content);
const code = async (call: Promise<unknown>) => (await trpcFailure(call)).code;

async function follow(follower: string, followee: { user?: string; remote?: string }) {
  const key = followee.user
    ? `local:${users[followee.user]!.id}`
    : `swarm://beta.test/${followee.remote}`;
  await t.node.db.prisma.follow.create({
    data: {
      followerKey: `local:${users[follower]!.id}`,
      followerUserId: users[follower]!.id,
      followeeKey: key,
      ...(followee.user ? { followeeUserId: users[followee.user]!.id } : {}),
      ...(followee.remote ? { followeeRemoteActorId: erinId } : {}),
    },
  });
}

beforeAll(async () => {
  ({ t, auth } = await createNodeWithAuth({ SWARM_DOMAIN: 'alpha.test' }));
  const prisma = t.node.db.prisma;
  for (const handle of ['alice', 'bob', 'carol', 'dora', 'zed']) {
    const row = await prisma.user.create({
      data: { handle, displayName: handle, passwordHash: '!' },
    });
    users[handle] = sessionUserOf(row);
  }
  const erin = await prisma.remoteActor.create({
    data: { actorUrl: 'swarm://beta.test/erin', handle: 'erin', nodeDomain: 'beta.test' },
  });
  erinId = erin.id;
  const post = async (
    name: string,
    author: string,
    minute: number,
    extra: Record<string, unknown> = {},
  ) => {
    const row = await prisma.post.create({
      data:
        author === 'erin'
          ? {
              apId: `swarm:beta.test:${crypto.randomUUID()}`,
              remoteAuthorId: erinId,
              content: name,
              createdAt: at(minute),
              fetchedAt: at(minute),
              ...extra,
            }
          : { authorId: users[author]!.id, content: name, createdAt: at(minute), ...extra },
    });
    ids[name] = row.id;
  };
  await post('bob-1', 'bob', 1);
  await post('erin-1', 'erin', 2);
  await post('carol-1', 'carol', 3);
  await post('dora-1', 'dora', 4);
  await post('bob-followers', 'bob', 5, { visibility: 'followers' });
  await post('bob-to-erin', 'bob', 6, { replyToId: ids['erin-1'] });
  await post('bob-to-dora', 'bob', 7, { replyToId: ids['dora-1'] });
  await post('bob-to-zed', 'bob', 8, { replyToId: ids['dora-1'] });
  await post('bob-deleted', 'bob', 9, { deletedAt: at(10) });
  await post('erin-placeholder', 'erin', 10, { fetchedAt: null });
  await post('erin-2', 'erin', 11);
  await post('alice-own', 'alice', 12);
  // alice follows bob, carol, dora and erin (remote, pending); not zed.
  for (const user of ['bob', 'carol', 'dora']) await follow('alice', { user });
  await follow('alice', { remote: 'erin' });
  // bob-to-zed replies to someone alice does not follow.
  const zedPost = await prisma.post.create({
    data: { authorId: users.zed!.id, content: 'zed-1', createdAt: at(0) },
  });
  await prisma.post.update({ where: { id: ids['bob-to-zed']! }, data: { replyToId: zedPost.id } });
});

afterAll(async () => {
  await t.close();
});

describe('lists: making, renaming, deleting', () => {
  it('creates, renames, changes settings and deletes; titles are checked', async () => {
    const made = await as('alice').lists.create({ title: '  Close   friends ' });
    expect(made).toMatchObject({
      title: 'Close friends',
      repliesPolicy: 'list',
      exclusive: false,
      membersCount: 0,
    });
    const renamed = await as('alice').lists.update({
      listId: made.id,
      title: 'Friends',
      repliesPolicy: 'none',
    });
    expect(renamed).toMatchObject({ title: 'Friends', repliesPolicy: 'none', exclusive: false });
    expect(await as('alice').lists.all()).toEqual([renamed]);
    for (const title of ['', '   ', 'x'.repeat(LIST_LIMITS.title + 1)]) {
      const refused = await trpcFailure(as('alice').lists.create({ title }));
      expect(refused).toMatchObject({ code: 'BAD_REQUEST', field: 'title' });
    }
    // Exactly 100 characters (emoji count once) is fine.
    const long = await as('alice').lists.create({ title: '🐝'.repeat(LIST_LIMITS.title) });
    await as('alice').lists.delete({ listId: long.id });
    await as('alice').lists.delete({ listId: made.id });
    expect(await as('alice').lists.all()).toEqual([]);
    expect(await code(as('alice').lists.get({ listId: made.id }))).toBe('NOT_FOUND');
  });

  it('keeps lists private: another person’s list does not exist for them', async () => {
    const mine = await as('alice').lists.create({ title: 'Mine' });
    // One call at a time: a call started early would reject before anyone awaits it.
    for (const call of [
      () => as('bob').lists.get({ listId: mine.id }),
      () => as('bob').lists.update({ listId: mine.id, title: 'Stolen' }),
      () => as('bob').lists.delete({ listId: mine.id }),
      () => as('bob').lists.members({ listId: mine.id }),
      () => as('bob').lists.timeline({ listId: mine.id }),
      () => as('bob').lists.get({ listId: 'not-a-uuid' }),
    ]) {
      expect(await code(call())).toBe('NOT_FOUND');
    }
    expect((await as('alice').lists.get({ listId: mine.id })).title).toBe('Mine');
    await as('alice').lists.delete({ listId: mine.id });
  });

  it(`holds at most ${LIST_LIMITS.lists} lists a person`, async () => {
    for (let i = 0; i < LIST_LIMITS.lists; i += 1) {
      await as('zed').lists.create({ title: `list ${i}` });
    }
    const refused = await trpcFailure(as('zed').lists.create({ title: 'one more' }));
    expect(refused).toMatchObject({ code: 'BAD_REQUEST', message: /at most 50 lists/ });
    expect(await as('zed').lists.all()).toHaveLength(LIST_LIMITS.lists);
  });
});

describe('lists: members', () => {
  it('adds people followed, here and remote, by address or id; refuses others', async () => {
    const list = await as('alice').lists.create({ title: 'People' });
    const added = await as('alice').lists.addMembers({
      listId: list.id,
      members: [{ address: 'bob' }, { address: '@erin@beta.test' }],
    });
    expect(added.map((m) => m.actor.address).sort()).toEqual(['bob', 'erin@beta.test']);
    expect(added.find((m) => m.actor.handle === 'erin')!.accountId).toBe(erinId);
    // By account id, and a repeat changes nothing.
    await as('alice').lists.addMembers({
      listId: list.id,
      members: [{ accountId: users.dora!.id }, { address: 'bob' }],
    });
    expect((await as('alice').lists.members({ listId: list.id })).length).toBe(3);
    // Not followed, unknown, or malformed: refused, and nothing is added (all or none).
    const notFollowed = await trpcFailure(
      as('alice').lists.addMembers({
        listId: list.id,
        members: [{ address: 'carol' }, { address: 'zed' }],
      }),
    );
    expect(notFollowed).toMatchObject({ code: 'FORBIDDEN', message: /follow zed first/ });
    expect(
      await code(
        as('alice').lists.addMembers({ listId: list.id, members: [{ address: 'nobody' }] }),
      ),
    ).toBe('FORBIDDEN');
    expect(
      await code(
        as('alice').lists.addMembers({ listId: list.id, members: [{ address: 'a b@c' }] }),
      ),
    ).toBe('BAD_REQUEST');
    expect(await code(as('alice').lists.addMembers({ listId: list.id, members: [] }))).toBe(
      'BAD_REQUEST',
    );
    expect((await as('alice').lists.members({ listId: list.id })).length).toBe(3);
    expect((await as('alice').lists.get({ listId: list.id })).membersCount).toBe(3);
    expect(
      (await as('alice').lists.withMember({ member: { address: 'erin@beta.test' } })).map(
        (l) => l.title,
      ),
    ).toEqual(['People']);

    await as('alice').lists.removeMembers({ listId: list.id, members: [{ accountId: erinId }] });
    expect(
      (await as('alice').lists.members({ listId: list.id })).map((m) => m.actor.handle).sort(),
    ).toEqual(['bob', 'dora']);
    await as('alice').lists.delete({ listId: list.id });
  });

  it(`holds at most ${LIST_LIMITS.members} people a list`, async () => {
    const prisma = t.node.db.prisma;
    const list = await as('alice').lists.create({ title: 'Crowd' });
    // 500 remote people already on it (set up directly: following 500 people takes a while).
    await prisma.$executeRaw`
      INSERT INTO remote_actors (actor_url, handle, node_domain)
      SELECT 'swarm://crowd.test/p' || n, 'p' || n, 'crowd.test' FROM generate_series(1, ${LIST_LIMITS.members}) n`;
    await prisma.$executeRaw`
      INSERT INTO list_members (list_id, member_key, member_remote_actor_id)
      SELECT ${list.id}::uuid, actor_url, id FROM remote_actors WHERE node_domain = 'crowd.test'`;
    const refused = await trpcFailure(
      as('alice').lists.addMembers({ listId: list.id, members: [{ address: 'bob' }] }),
    );
    expect(refused).toMatchObject({ code: 'BAD_REQUEST', message: /at most 500 people/ });
    expect((await as('alice').lists.get({ listId: list.id })).membersCount).toBe(
      LIST_LIMITS.members,
    );
    await as('alice').lists.delete({ listId: list.id });
  });
});

describe('lists: the timeline', () => {
  it('shows members’ posts and stored copies, newest first, replies by policy', async () => {
    const list = await as('alice').lists.create({ title: 'Read' });
    await as('alice').lists.addMembers({
      listId: list.id,
      members: [{ address: 'bob' }, { address: 'erin@beta.test' }],
    });
    const read = async () =>
      contents((await as('alice').lists.timeline({ listId: list.id })).posts);
    // `list`: replies to members (bob-to-erin), not to others (bob-to-dora, bob-to-zed).
    expect(await read()).toEqual(['erin-2', 'bob-to-erin', 'bob-followers', 'erin-1', 'bob-1']);
    await as('alice').lists.update({ listId: list.id, repliesPolicy: 'followed' });
    expect(await read()).toEqual([
      'erin-2',
      'bob-to-dora',
      'bob-to-erin',
      'bob-followers',
      'erin-1',
      'bob-1',
    ]);
    await as('alice').lists.update({ listId: list.id, repliesPolicy: 'none' });
    expect(await read()).toEqual(['erin-2', 'bob-followers', 'erin-1', 'bob-1']);
    const first = await as('alice').lists.timeline({ listId: list.id, limit: 3 });
    expect(contents(first.posts)).toEqual(['erin-2', 'bob-followers', 'erin-1']);
    const second = await as('alice').lists.timeline({ listId: list.id, before: first.next! });
    expect(contents(second.posts)).toEqual(['bob-1']);
    expect(second.next).toBeNull();
    const newer = await as('alice').lists.timeline({
      listId: list.id,
      after: second.cursors[0]!,
      limit: 2,
    });
    expect(contents(newer.posts)).toEqual(['bob-followers', 'erin-1']);
    expect(await code(as('alice').lists.timeline({ listId: list.id, before: 'x' }))).toBe(
      'BAD_REQUEST',
    );

    // Mutes, suspensions and unfollows apply.
    await as('alice').moderation.safety.mute({ target: 'erin@beta.test' });
    expect(await read()).toEqual(['bob-followers', 'bob-1']);
    await as('alice').moderation.safety.unmute({ target: 'erin@beta.test' });
    const prisma = t.node.db.prisma;
    await prisma.user.update({ where: { id: users.bob!.id }, data: { suspendedAt: new Date() } });
    expect(await read()).toEqual(['erin-2', 'erin-1']);
    await prisma.user.update({ where: { id: users.bob!.id }, data: { suspendedAt: null } });
    await as('alice').interactions.unfollow({ address: 'bob' });
    expect(await read()).toEqual(['erin-2', 'erin-1']);
    expect(
      (await as('alice').lists.members({ listId: list.id })).map((m) => m.actor.handle),
    ).toEqual(['erin']);
    await as('alice').lists.delete({ listId: list.id });
  });

  it('an exclusive list takes its members out of home', async () => {
    const home = async () => contents((await as('alice').timeline.home()).posts);
    expect(await home()).toContain('dora-1');
    const list = await as('alice').lists.create({ title: 'Dora only', exclusive: true });
    await as('alice').lists.addMembers({ listId: list.id, members: [{ address: 'dora' }] });
    const without = await home();
    expect(without).not.toContain('dora-1');
    expect(without).toContain('carol-1');
    expect(without).toContain('alice-own');
    await as('alice').lists.update({ listId: list.id, exclusive: false });
    expect(await home()).toContain('dora-1');
  });
});
