import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineNodeWithPeople, trpcFailure, type TestNode } from './harness.ts';

// interactions.* and deliveries.* through createCaller on a real node with its own database and
// real sessions: likes, reposts and follows between people of this node, and what happens to
// actions aimed at another node while every other node is down (connection refused). Delivered
// cross-node actions and user signatures: packages/testnet/test/delivery.swarm.test.ts.

const SELF = 'alpha.test';
let t: TestNode;
let as: Awaited<ReturnType<typeof offlineNodeWithPeople>>['as'];
const ids: Record<string, string> = {};

beforeAll(async () => {
  const made = await offlineNodeWithPeople(SELF, ['alice', 'bob', 'carol']);
  ({ t, as } = made);
  for (const [handle, u] of Object.entries(made.users)) ids[handle] = u.id;
});
afterAll(() => t.close());
const failure = trpcFailure;

const prisma = () => t.node.db.prisma;
const post = (id: string) => prisma().post.findUniqueOrThrow({ where: { id } });
const user = (handle: string) => prisma().user.findUniqueOrThrow({ where: { handle } });
const notes = (handle: string, type: 'like' | 'repost' | 'follow') =>
  prisma().notification.findMany({ where: { recipient: { handle }, type } });

describe('likes and reposts of this node’s posts', () => {
  it('prepare says a local post needs no signature', async () => {
    const { post: p } = await (await as('bob')).posts.create({ content: 'local' });
    for (const kind of ['like', 'unlike', 'repost', 'unrepost'] as const) {
      expect(await (await as('alice')).interactions.prepare({ kind, postId: p.id })).toEqual({
        local: true,
      });
    }
  });

  it('like counts once and notifies the author; unlike undoes exactly that', async () => {
    const { post: p } = await (await as('bob')).posts.create({ content: 'like me' });
    const alice = await as('alice');
    const likesBefore = (await notes('bob', 'like')).length;
    expect(await alice.interactions.like({ postId: p.id })).toEqual({ delivery: null });
    await alice.interactions.like({ postId: p.id });
    await (await as('carol')).interactions.like({ postId: p.id });
    expect((await post(p.id)).likesCount).toBe(2);
    expect((await notes('bob', 'like')).length).toBe(likesBefore + 2);
    // Both at once from one person still count once.
    const { post: q } = await (await as('bob')).posts.create({ content: 'race' });
    await Promise.all([
      alice.interactions.like({ postId: q.id }),
      alice.interactions.like({ postId: q.id }),
    ]);
    expect((await post(q.id)).likesCount).toBe(1);

    await alice.interactions.unlike({ postId: p.id });
    await alice.interactions.unlike({ postId: p.id });
    expect((await post(p.id)).likesCount).toBe(1);
    expect((await notes('bob', 'like')).filter((n) => n.actorHandle === 'alice')).toHaveLength(1);
    // The viewer state follows (threads.get is the post page).
    const page = await alice.threads.get({ id: p.id });
    expect(page.post.viewer).toMatchObject({ liked: false });
    expect((await (await as('carol')).threads.get({ id: p.id })).post.viewer).toMatchObject({
      liked: true,
    });
  });

  it('liking one’s own post counts without notifying oneself', async () => {
    const bob = await as('bob');
    const { post: p } = await bob.posts.create({ content: 'mine' });
    const before = (await notes('bob', 'like')).length;
    await bob.interactions.like({ postId: p.id });
    expect((await post(p.id)).likesCount).toBe(1);
    expect((await notes('bob', 'like')).length).toBe(before);
  });

  it('repost makes a repost post, counts once, notifies; deleting it takes it back', async () => {
    const { post: p } = await (await as('bob')).posts.create({ content: 'share me' });
    const alice = await as('alice');
    await alice.interactions.repost({ postId: p.id });
    await alice.interactions.repost({ postId: p.id });
    expect((await post(p.id)).repostsCount).toBe(1);
    const reposts = await prisma().post.findMany({ where: { repostOfId: p.id } });
    expect(reposts).toHaveLength(1);
    expect(reposts[0]!.authorId).toBe(ids.alice);
    expect((await notes('bob', 'repost')).some((n) => n.postId === p.id)).toBe(true);
    await alice.posts.delete({ id: reposts[0]!.id });
    expect((await post(p.id)).repostsCount).toBe(0);
    expect(await prisma().repost.count({ where: { postId: p.id } })).toBe(0);
  });

  it('unrepost takes a repost back: count, row, notification and its post; repeats change nothing', async () => {
    const { post: p } = await (await as('bob')).posts.create({ content: 'share, then not' });
    const alice = await as('alice');
    const carol = await as('carol');
    await alice.interactions.repost({ postId: p.id });
    await carol.interactions.repost({ postId: p.id });
    const aliceRepost = () =>
      prisma().post.findMany({ where: { repostOfId: p.id, authorId: ids.alice } });
    expect(await aliceRepost()).toHaveLength(1);
    const shown = async () =>
      (await alice.timeline.home()).posts.filter(
        (v) => v.id === p.id && v.repostedBy?.handle === 'alice',
      );
    expect(await shown()).toHaveLength(1);

    expect(await alice.interactions.unrepost({ postId: p.id })).toEqual({ delivery: null });
    expect((await post(p.id)).repostsCount).toBe(1);
    expect(await aliceRepost()).toEqual([]);
    expect(await prisma().repost.count({ where: { postId: p.id } })).toBe(1);
    const left = (await notes('bob', 'repost')).filter((n) => n.postId === p.id);
    expect(left.map((n) => n.actorHandle)).toEqual(['carol']);
    expect(await shown()).toEqual([]);
    expect((await alice.threads.get({ id: p.id })).post.viewer).toMatchObject({
      reposted: false,
    });

    // Again, at once, and of a post never reposted: answered alike, nothing moves.
    await Promise.all([
      alice.interactions.unrepost({ postId: p.id }),
      alice.interactions.unrepost({ postId: p.id }),
    ]);
    const { post: q } = await (await as('bob')).posts.create({ content: 'never reposted' });
    expect(await alice.interactions.unrepost({ postId: q.id })).toEqual({ delivery: null });
    expect((await post(p.id)).repostsCount).toBe(1);
    expect((await post(q.id)).repostsCount).toBe(0);
    // And it can be reposted again.
    await alice.interactions.repost({ postId: p.id });
    expect((await post(p.id)).repostsCount).toBe(2);
  });

  it('refuses unknown posts (NOT_FOUND) and malformed ids (BAD_REQUEST)', async () => {
    const alice = await as('alice');
    const unknown = '0d6c4c22-0000-4000-8000-000000000000';
    for (const call of [
      () => alice.interactions.like({ postId: unknown }),
      () => alice.interactions.repost({ postId: unknown }),
      () => alice.interactions.unrepost({ postId: unknown }),
      () => alice.interactions.prepare({ kind: 'like', postId: unknown }),
    ]) {
      expect((await failure(call())).code).toBe('NOT_FOUND');
    }
    expect((await failure(alice.interactions.like({ postId: 'swarm:::' }))).code).toBe(
      'BAD_REQUEST',
    );
  });

  it('a remote post needs a registered key and a signature', async () => {
    const alice = await as('alice');
    const postId = `swarm:beta.test:3a0c1d7e-0000-4000-8000-000000000000`;
    // alice signed up without a key: nothing to sign with.
    const prepared = await failure(alice.interactions.prepare({ kind: 'like', postId }));
    expect(prepared.code).toBe('BAD_REQUEST');
    expect(prepared.message).toMatch(/signing key/);
    const before = await prisma().outboxDelivery.count();
    expect((await failure(alice.interactions.like({ postId }))).code).toBe('BAD_REQUEST');
    expect(await prisma().outboxDelivery.count()).toBe(before);
  });
});

describe('follows', () => {
  it('follows a local user once: counters on both sides, a notification; unfollow undoes it', async () => {
    const carol = await as('carol');
    expect(await carol.interactions.follow({ address: 'bob' })).toEqual({ delivery: null });
    await carol.interactions.follow({ address: `@bob@${SELF}` });
    expect((await user('bob')).followersCount).toBe(1);
    expect((await user('carol')).followingCount).toBe(1);
    expect((await notes('bob', 'follow')).filter((n) => n.actorHandle === 'carol')).toHaveLength(1);
    const profile = await carol.profiles.get({ address: 'bob', limit: 0 });
    expect(profile.profile.viewer?.followState).toBe('accepted');

    await carol.interactions.unfollow({ address: 'bob' });
    await carol.interactions.unfollow({ address: 'bob' });
    expect((await user('bob')).followersCount).toBe(0);
    expect((await user('carol')).followingCount).toBe(0);
    expect((await notes('bob', 'follow')).filter((n) => n.actorHandle === 'carol')).toHaveLength(0);
  });

  it('refuses oneself, unknown people and bad addresses', async () => {
    const carol = await as('carol');
    expect((await failure(carol.interactions.follow({ address: 'carol' }))).code).toBe(
      'BAD_REQUEST',
    );
    expect((await failure(carol.interactions.follow({ address: 'nobody' }))).code).toBe(
      'NOT_FOUND',
    );
    expect((await failure(carol.interactions.follow({ address: 'a b@c' }))).code).toBe(
      'BAD_REQUEST',
    );
    expect((await user('carol')).followingCount).toBe(0);
  });

  it('a remote follow of a stranger whose node is down is refused and changes nothing', async () => {
    const alice = await as('alice');
    const before = {
      follows: await prisma().follow.count(),
      actors: await prisma().remoteActor.count(),
      outbox: await prisma().outboxDelivery.count(),
    };
    const refused = await failure(alice.interactions.follow({ address: 'eve@gamma.test' }));
    expect(refused.code).toBe('BAD_GATEWAY');
    expect(refused.message).toMatch(/gamma\.test could not be reached/);
    expect({
      follows: await prisma().follow.count(),
      actors: await prisma().remoteActor.count(),
      outbox: await prisma().outboxDelivery.count(),
    }).toEqual(before);
  });

  it('a remote follow of someone only the handle registry knows is queued while their node is down', async () => {
    // gus@gamma.test came in by gossip: never fetched, so no profile and no pinned did here.
    await prisma().handleRegistryEntry.create({
      data: {
        handle: 'Gus',
        nodeDomain: 'gamma.test',
        did: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
        updatedAt: t.clock.now(),
        source: 'gossip:beta.test',
      },
    });
    const carol = await as('carol');
    const { delivery } = await carol.interactions.follow({ address: 'gus@gamma.test' });
    expect(delivery).toMatchObject({
      kind: 'follow',
      targetDomain: 'gamma.test',
      status: 'pending',
    });
    const actor = await prisma().remoteActor.findUniqueOrThrow({
      where: { actorUrl: 'swarm://gamma.test/Gus' },
    });
    expect(actor).toMatchObject({ handle: 'Gus', did: null, fetchedAt: null });
    expect(
      await prisma().follow.findFirstOrThrow({
        where: { followerUserId: ids.carol, followeeKey: actor.actorUrl },
      }),
    ).toMatchObject({ state: 'pending' });
    await carol.interactions.unfollow({ address: 'gus@gamma.test' });
    expect((await user('carol')).followingCount).toBe(0);
  });

  it('a remote follow of someone known here while their node is down is queued; unfollow cancels it', async () => {
    // dora@gamma.test was seen here before (as a profile read stores her).
    await prisma().remoteActor.create({
      data: {
        actorUrl: 'swarm://gamma.test/dora',
        handle: 'dora',
        nodeDomain: 'gamma.test',
        displayName: 'Dora',
      },
    });
    const alice = await as('alice');
    const { delivery } = await alice.interactions.follow({ address: 'dora@gamma.test' });
    expect(delivery).toMatchObject({
      kind: 'follow',
      targetDomain: 'gamma.test',
      status: 'pending',
    });
    expect(delivery!.summary).toMatch(/^retrying, next in \d+ s$/);
    const follow = await prisma().follow.findFirstOrThrow({
      where: { followerUserId: ids.alice, followeeKey: 'swarm://gamma.test/dora' },
    });
    expect(follow.state).toBe('pending');
    expect((await alice.profiles.get({ address: 'alice', limit: 0 })).profile.followingCount).toBe(
      1,
    );
    // Following again answers the same queued delivery.
    expect((await alice.interactions.follow({ address: 'dora@gamma.test' })).delivery?.id).toBe(
      delivery!.id,
    );

    const undone = await alice.interactions.unfollow({ address: 'dora@gamma.test' });
    // The follow may have arrived (an attempt was made), so an unfollow is queued too.
    expect(undone.delivery).toMatchObject({ kind: 'unfollow', status: 'pending' });
    expect((await alice.deliveries.get({ id: delivery!.id })).status).toBe('cancelled');
    expect(await prisma().follow.count({ where: { followerUserId: ids.alice } })).toBe(0);
    expect((await user('alice')).followingCount).toBe(0);
  });
});

describe('deliveries', () => {
  it('each user sees only their own deliveries, newest first', async () => {
    const bob = await as('bob');
    const first = (await bob.posts.create({ content: 'hi @x@one.test' })).deliveries[0]!;
    t.clock.advance(1000);
    const second = (await bob.posts.create({ content: 'hi @y@two.test' })).deliveries[0]!;
    const mine = await bob.deliveries.mine({ limit: 2 });
    expect(mine.map((d) => d.id)).toEqual([second.id, first.id]);
    expect(await bob.deliveries.get({ id: first.id })).toMatchObject({
      id: first.id,
      targetDomain: 'one.test',
      kind: 'mention',
    });
    const carol = await as('carol');
    expect((await carol.deliveries.mine()).map((d) => d.id)).not.toContain(first.id);
    expect((await failure(carol.deliveries.get({ id: first.id }))).code).toBe('NOT_FOUND');
    expect((await failure(carol.deliveries.get({ id: 'nope' }))).code).toBe('NOT_FOUND');
  });

  it('retry sends one of the user’s own pending deliveries now; others’ are NOT_FOUND', async () => {
    const bob = await as('bob');
    const queued = (await bob.posts.create({ content: 'ping @z@three.test' })).deliveries[0]!;
    expect(queued).toMatchObject({ status: 'pending', attempts: 1 });
    // Long before the next scheduled attempt: "Retry now" tries at once.
    const retried = await bob.deliveries.retry({ id: queued.id });
    expect(retried).toMatchObject({ id: queued.id, status: 'pending', attempts: 2 });
    expect(retried.lastError).toMatch(/three\.test could not be reached/);

    const carol = await as('carol');
    const foreign = await failure(carol.deliveries.retry({ id: queued.id }));
    expect(foreign).toEqual({ code: 'NOT_FOUND', message: `You have no delivery ${queued.id}.` });
    expect((await failure(carol.deliveries.retry({ id: 'nope' }))).code).toBe('NOT_FOUND');
    expect((await failure(bob.deliveries.retry({ id: '' }))).code).toBe('BAD_REQUEST');
    // Nothing was attempted for carol.
    expect((await bob.deliveries.get({ id: queued.id })).attempts).toBe(2);

    // A cancelled one (follow undone before it arrived) has nothing to retry.
    await prisma().remoteActor.create({
      data: { actorUrl: 'swarm://three.test/hal', handle: 'hal', nodeDomain: 'three.test' },
    });
    const followed = (await bob.interactions.follow({ address: 'hal@three.test' })).delivery!;
    await bob.interactions.unfollow({ address: 'hal@three.test' });
    const cancelled = await failure(bob.deliveries.retry({ id: followed.id }));
    expect(cancelled.code).toBe('CONFLICT');
    expect(cancelled.message).toContain('cancelled');
  });

  it('every procedure needs a session', async () => {
    const anonymous = await as(null);
    const calls = [
      () => anonymous.interactions.prepare({ kind: 'like', postId: 'x' }),
      () => anonymous.interactions.like({ postId: 'x' }),
      () => anonymous.interactions.unlike({ postId: 'x' }),
      () => anonymous.interactions.repost({ postId: 'x' }),
      () => anonymous.interactions.unrepost({ postId: 'x' }),
      () => anonymous.interactions.follow({ address: 'bob' }),
      () => anonymous.interactions.unfollow({ address: 'bob' }),
      () => anonymous.posts.delete({ id: 'x' }),
      () => anonymous.deliveries.mine(),
      () => anonymous.deliveries.get({ id: 'x' }),
      () => anonymous.deliveries.retry({ id: 'x' }),
    ];
    for (const call of calls) expect((await failure(call())).code).toBe('UNAUTHORIZED');
  });
});
