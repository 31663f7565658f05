import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionUser } from '@swarm/auth';
import { SWARM_PATHS, generateSigningKeyPair, signUserAction } from '@swarm/contract';
import { createPostgresDb } from '@swarm/db';
import { createDeliveryService, createDeliveryWorker, type DeliveryView } from '@swarm/domain';
import {
  ALPHA as A,
  BETA as B,
  createTwoNodes,
  insertKeyedUser,
  sessionUserByHandle,
  signedInCaller,
  signedInteraction,
  trpcFailure,
  type KeyedUser,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';

// What alice on alpha.test does to bob on beta.test, through alice's front door (tRPC
// createCaller), delivered over the test network's HTTP-shaped links (real gateways, real node
// and user signatures) and checked on bob's node. Faults are the network's: a dead or failing
// beta, and the manual clock moves retries along (no sleeps).

let net: TestNetwork;
let alpha: NetworkNode;
let beta: NetworkNode;

type Person = KeyedUser;
let alice: Person;
let carol: Person;
let bob: SessionUser;

/** A signed-in caller on a node (a session as the web hook would hand it over). */
const callerOn = (member: NetworkNode, user: SessionUser) => signedInCaller(member.node, user);
const asAlice = () => callerOn(alpha, alice.user);
const asBob = () => callerOn(beta, bob);

/** A user on alpha with a browser key: the did is on their row, the private key stays here. */
const personOnAlpha = (handle: string): Promise<Person> => insertKeyedUser(alpha.node, handle);

/** What the browser does: prepare, sign the exact payload with the user's key. */
const signed = (kind: 'like' | 'unlike' | 'repost', postId: string, who: Person = alice) =>
  signedInteraction(callerOn(alpha, who.user), who.privateKey, kind, postId);

/** A new post by bob on beta; its id as alice's node names it. */
async function bobPosts(content = 'a post by bob') {
  const { post } = await asBob().posts.create({ content });
  return { id: post.id, remoteId: `swarm:${B}:${post.id}` };
}

const bobPost = (id: string) =>
  beta.node.db.prisma.post.findUniqueOrThrow({
    where: { id },
    select: { likesCount: true, repostsCount: true, repliesCount: true },
  });
const bobNotifications = (type: string) =>
  beta.node.db.prisma.notification.findMany({
    where: { recipientId: bob.id, type: type as 'like' },
    orderBy: { createdAt: 'asc' },
  });
/** POSTs that reached beta (not refused by a fault) on `path`. */
const arrived = (path: string) =>
  net.network.requests.filter(
    (r) => r.domain === B && r.method === 'POST' && r.path === path && r.fault === null,
  ).length;

const failure = trpcFailure;

/** What a refused action must not have changed on alice's node. */
async function alphaState() {
  const prisma = alpha.node.db.prisma;
  return {
    posts: await prisma.post.count(),
    likes: await prisma.like.count(),
    reposts: await prisma.repost.count(),
    follows: await prisma.follow.count(),
    outbox: await prisma.outboxDelivery.count(),
  };
}

beforeAll(async () => {
  ({ net, alpha, beta } = await createTwoNodes({ beta: { handles: ['bob'] } }));
  alice = await personOnAlpha('alice');
  carol = await personOnAlpha('carol');
  bob = await sessionUserByHandle(beta.node, 'bob');
});
afterAll(() => net.close());

describe('alice on alpha acts on bob on beta', () => {
  it('likes a post with her own signature: delivered, counted once on beta, bob notified', async () => {
    const post = await bobPosts();
    const result = await asAlice().interactions.like({
      postId: post.remoteId,
      signed: await signed('like', post.remoteId),
    });
    expect(result.delivery).toMatchObject({
      kind: 'like',
      targetDomain: B,
      status: 'delivered',
      summary: 'delivered',
      attempts: 1,
    });
    expect((await bobPost(post.id)).likesCount).toBe(1);
    const likes = await bobNotifications('like');
    expect(likes.at(-1)).toMatchObject({ actorHandle: 'alice', actorNodeDomain: A });
    // alpha knows alice liked it: her like row on the post's copy; viewers see `liked`.
    const copy = await alpha.node.db.prisma.post.findUniqueOrThrow({
      where: { apId: `swarm:${B}:${post.id}` },
      include: { likes: true, remoteAuthor: true },
    });
    expect(copy.likes.map((l) => l.actorKey)).toEqual([`local:${alice.user.id}`]);
    expect(copy.remoteAuthor).toMatchObject({ handle: 'bob', nodeDomain: B });
    // A second like changes nothing anywhere and answers the first delivery.
    const again = await asAlice().interactions.like({
      postId: post.remoteId,
      signed: await signed('like', post.remoteId),
    });
    expect(again.delivery?.id).toBe(result.delivery?.id);
    await net.processAll();
    expect((await bobPost(post.id)).likesCount).toBe(1);
    // The delivery is alice's to look at.
    expect((await asAlice().deliveries.get({ id: result.delivery!.id })).status).toBe('delivered');
  });

  it('reposts: the repost post on alpha has the signed repostId, beta counts it', async () => {
    const post = await bobPosts();
    const body = await signed('repost', post.remoteId);
    const result = await asAlice().interactions.repost({ postId: post.remoteId, signed: body });
    expect(result.delivery?.status).toBe('delivered');
    expect((await bobPost(post.id)).repostsCount).toBe(1);
    const repostId = (body.body.repost as { repostId: string }).repostId;
    const repostPost = await alpha.node.db.prisma.post.findUniqueOrThrow({
      where: { id: repostId },
      include: { repostOf: true },
    });
    expect(repostPost).toMatchObject({ authorId: alice.user.id });
    expect(repostPost.repostOf?.apId).toBe(`swarm:${B}:${post.id}`);
    const onBeta = await beta.node.db.prisma.repost.findFirstOrThrow({
      where: { postId: post.id },
    });
    expect(onBeta).toMatchObject({ actorKey: `swarm://${A}/alice`, remoteRepostId: repostId });
  });

  it('follows bob@beta: pending until beta accepts, then accepted; beta has the follower', async () => {
    const result = await asAlice().interactions.follow({ address: `bob@${B}` });
    expect(result.delivery).toMatchObject({ kind: 'follow', status: 'delivered' });
    const follow = await alpha.node.db.prisma.follow.findFirstOrThrow({
      where: { followerUserId: alice.user.id, followeeKey: `swarm://${B}/bob` },
    });
    expect(follow.state).toBe('accepted');
    const onBeta = await beta.node.db.prisma.follow.findFirstOrThrow({
      where: { followeeUserId: bob.id },
    });
    expect(onBeta).toMatchObject({ followerKey: `swarm://${A}/alice`, state: 'accepted' });
    const bobRow = await beta.node.db.prisma.user.findUniqueOrThrow({ where: { id: bob.id } });
    expect(bobRow.followersCount).toBe(1);
    expect((await bobNotifications('follow')).at(-1)?.actorHandle).toBe('alice');
    const aliceRow = await alpha.node.db.prisma.user.findUniqueOrThrow({
      where: { id: alice.user.id },
    });
    expect(aliceRow.followingCount).toBe(1);
    // The profile from alpha's side shows the state.
    const profile = await asAlice().profiles.get({ address: `bob@${B}`, limit: 0 });
    expect(profile.profile.viewer?.followState).toBe('accepted');

    // Unfollow undoes it on both nodes.
    const undone = await asAlice().interactions.unfollow({ address: `bob@${B}` });
    expect(undone.delivery).toMatchObject({ kind: 'unfollow', status: 'delivered' });
    expect(await beta.node.db.prisma.follow.count({ where: { followeeUserId: bob.id } })).toBe(0);
    expect(
      (await beta.node.db.prisma.user.findUniqueOrThrow({ where: { id: bob.id } })).followersCount,
    ).toBe(0);
  });

  it('replies to bob’s post: beta lists the reply under it and tells bob', async () => {
    const post = await bobPosts('what do you think?');
    const { post: reply, deliveries } = await asAlice().posts.create({
      content: 'I agree!',
      replyToId: post.remoteId,
    });
    expect(reply.replyToId).toBe(post.remoteId);
    expect(deliveries).toEqual([
      expect.objectContaining({ kind: 'reply', targetDomain: B, status: 'delivered' }),
    ]);
    const listed = (await (
      await beta.request(`${SWARM_PATHS.replies}?postId=${post.id}`)
    ).json()) as { replies: { content: string; author: { handle: string } }[] };
    expect(listed.replies).toEqual([
      expect.objectContaining({
        content: 'I agree!',
        author: expect.objectContaining({ handle: `alice@${A}` }),
      }),
    ]);
    expect((await bobPost(post.id)).repliesCount).toBe(1);
    expect((await bobNotifications('reply')).at(-1)).toMatchObject({
      actorHandle: 'alice',
      content: 'I agree!',
    });
  });

  it('mentions @bob@beta: bob gets a mention notification on beta', async () => {
    const { post, deliveries } = await asAlice().posts.create({
      content: `Have you seen this, @bob@${B}?`,
    });
    expect(deliveries).toEqual([
      expect.objectContaining({ kind: 'mention', targetDomain: B, status: 'delivered' }),
    ]);
    expect((await bobNotifications('mention')).at(-1)).toMatchObject({
      actorHandle: 'alice',
      actorNodeDomain: A,
      postApId: `swarm:${A}:${post.id}`,
      content: `Have you seen this, @bob@${B}?`,
    });
  });
});

describe('the outbox when beta is down or refuses', () => {
  it('keeps a like while beta is down, then delivers it exactly once after it is back', async () => {
    const post = await bobPosts('liked while beta is down');
    // alice answered it earlier, so alpha has its copy (author, content).
    await asAlice().posts.create({ content: 'nice', replyToId: post.remoteId });
    net.network.drop(B);
    const result = await asAlice().interactions.like({
      postId: post.remoteId,
      signed: await signed('like', post.remoteId),
    });
    const delivery = result.delivery!;
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, lastStatus: null });
    expect(delivery.summary).toMatch(/^retrying, next in \d+ s$/);
    expect(delivery.lastError).toContain('could not be reached');
    // Not due yet: draining sends nothing.
    await net.processAll();
    expect((await asAlice().deliveries.get({ id: delivery.id })).attempts).toBe(1);

    net.network.heal(B);
    const before = arrived(SWARM_PATHS.interaction('like'));
    net.clock.advance(60_000);
    await net.processAll();
    const after = await asAlice().deliveries.get({ id: delivery.id });
    expect(after).toMatchObject({ status: 'delivered', summary: 'delivered', attempts: 2 });
    expect(arrived(SWARM_PATHS.interaction('like'))).toBe(before + 1);
    expect((await bobPost(post.id)).likesCount).toBe(1);
    // Nothing is sent again later.
    net.clock.advance(3 * 60 * 60_000);
    await net.processAll();
    expect(arrived(SWARM_PATHS.interaction('like'))).toBe(before + 1);
    expect((await bobPost(post.id)).likesCount).toBe(1);
  });

  it('retries after 5xx, garbage and a hung peer, with a growing delay', async () => {
    const post = await bobPosts('retried');
    // Made while beta answers, so the copy exists; the faults hit the deliveries only.
    await asAlice().interactions.like({
      postId: post.remoteId,
      signed: await signed('like', post.remoteId),
    });
    const unlikeBody = await signed('unlike', post.remoteId);
    net.network.fail5xx(B, 503);
    const first = (
      await asAlice().interactions.unlike({ postId: post.remoteId, signed: unlikeBody })
    ).delivery!;
    expect(first).toMatchObject({ status: 'pending', lastStatus: 503 });
    const waits: number[] = [Date.parse(first.nextAttemptAt!) - net.clock.now().getTime()];
    for (const fault of ['garbage', 'hang'] as const) {
      if (fault === 'garbage') net.network.garbage(B);
      else net.network.hang(B);
      net.clock.advance(waits.at(-1)!);
      // A dead link keeps beta out of `live()`, but alpha's worker still runs: drain it directly.
      await alpha.delivery.processAll();
      const view = await asAlice().deliveries.get({ id: first.id });
      expect(view.status).toBe('pending');
      expect(view.summary).toMatch(/^retrying, next in /);
      waits.push(Date.parse(view.nextAttemptAt!) - net.clock.now().getTime());
    }
    expect(waits[1]!).toBeGreaterThan(waits[0]!);
    expect(waits[2]!).toBeGreaterThan(waits[1]!);
    net.network.heal(B);
    net.clock.advance(waits.at(-1)!);
    await net.processAll();
    expect((await asAlice().deliveries.get({ id: first.id })).status).toBe('delivered');
    expect((await bobPost(post.id)).likesCount).toBe(0);
  });

  it('a first action on a post whose node is down is refused and records nothing', async () => {
    const post = await bobPosts('never seen on alpha');
    const body = await signed('like', post.remoteId);
    net.network.drop(B);
    const before = await alphaState();
    const refused = await failure(
      asAlice().interactions.like({ postId: post.remoteId, signed: body }),
    );
    expect(refused.code).toBe('BAD_GATEWAY');
    expect(refused.message).toContain(B);
    expect(
      (await failure(asAlice().posts.create({ content: 're', replyToId: post.remoteId }))).code,
    ).toBe('BAD_GATEWAY');
    expect(await alphaState()).toEqual(before);
    net.network.heal(B);
  });

  it('a 404 from beta is final: "failed: post not found"', async () => {
    const post = await bobPosts('soon gone');
    await asAlice().interactions.like({
      postId: post.remoteId,
      signed: await signed('like', post.remoteId),
    });
    await asBob().posts.delete({ id: post.id });
    const result = await asAlice().interactions.unlike({
      postId: post.remoteId,
      signed: await signed('unlike', post.remoteId),
    });
    expect(result.delivery).toMatchObject({
      status: 'failed',
      lastStatus: 404,
      summary: 'failed: post not found',
    });
    // Final: never retried.
    const sent = arrived(SWARM_PATHS.interaction('unlike'));
    net.clock.advance(2 * 60 * 60_000);
    await net.processAll();
    expect(arrived(SWARM_PATHS.interaction('unlike'))).toBe(sent);
  });

  it('a follow beta refuses (the user is gone) fails and is undone on alpha', async () => {
    // alice saw eve's profile; eve's node goes down, alice follows, then eve's account is gone.
    await beta.node.db.prisma.user.create({ data: { handle: 'eve', passwordHash: 'x' } });
    await asAlice().profiles.get({ address: `eve@${B}`, limit: 0 });
    net.network.drop(B);
    const before = await alphaState();
    const result = await asAlice().interactions.follow({ address: `eve@${B}` });
    expect(result.delivery?.status).toBe('pending');
    expect((await alphaState()).follows).toBe(before.follows + 1);
    const profile = await asAlice().profiles.get({ address: 'alice', limit: 0 });
    await beta.node.db.prisma.user.delete({ where: { handle: 'eve' } });
    net.network.heal(B);
    net.clock.advance(60_000);
    await net.processAll();
    const view = await asAlice().deliveries.get({ id: result.delivery!.id });
    expect(view).toMatchObject({ status: 'failed', summary: 'failed: user not found' });
    expect((await alphaState()).follows).toBe(before.follows);
    const after = await asAlice().profiles.get({ address: 'alice', limit: 0 });
    expect(after.profile.followingCount).toBe(profile.profile.followingCount - 1);
    // An admin's "retry now" would follow there without a follow here: refused.
    const retried = await alpha.node.delivery.retryNow(result.delivery!.id);
    expect(!retried.ok && retried.reason.code).toBe('DELIVERY_CONFLICT');
  });

  it('following a stranger whose node is down is refused', async () => {
    net.network.drop(B);
    const before = await alphaState();
    expect((await failure(asAlice().interactions.follow({ address: `zed@${B}` }))).code).toBe(
      'BAD_GATEWAY',
    );
    expect(await alphaState()).toEqual(before);
    net.network.heal(B);
  });

  it('gives up after 48 h of failures', async () => {
    net.network.fail5xx(B, 502);
    const { deliveries } = await asAlice().posts.create({ content: `ping @bob@${B}` });
    const id = deliveries[0]!.id;
    for (let hour = 0; hour < 50; hour++) {
      net.clock.advance(60 * 60_000);
      await alpha.delivery.processAll();
    }
    const view = await asAlice().deliveries.get({ id });
    expect(view).toMatchObject({ status: 'failed', summary: 'failed: gave up after 48 h' });
    expect(view.attempts).toBeGreaterThan(40);
    net.network.heal(B);
  });
});

describe('signed actions the node must refuse', () => {
  it('forged, tampered, foreign, stale, replayed or missing signatures change nothing', async () => {
    const post = await bobPosts('guarded');
    const before = await alphaState();
    const sentLikes = arrived(SWARM_PATHS.interaction('like'));
    const like = (s: { body: Record<string, unknown>; signature: string } | undefined) =>
      asAlice().interactions.like({ postId: post.remoteId, signed: s });

    // Signed with a key that is not alice's.
    const stranger = await generateSigningKeyPair();
    const good = await signed('like', post.remoteId);
    const forged = await signUserAction({
      privateKey: stranger.privateKey,
      action: 'like',
      targetDomain: B,
      body: good.body,
    });
    expect(await failure(like({ body: good.body, signature: forged }))).toMatchObject({
      code: 'UNAUTHORIZED',
    });
    // Changed after signing.
    const tampered = {
      ...good.body,
      like: { ...(good.body.like as object), interactionId: 'another-id' },
    };
    expect((await failure(like({ body: tampered, signature: good.signature }))).code).toBe(
      'UNAUTHORIZED',
    );
    // Carol's own signed body, sent by alice; and alice's body rewritten to name carol.
    const carols = await signed('like', post.remoteId, carol);
    expect((await failure(like(carols))).code).toBe('UNAUTHORIZED');
    const asCarol = {
      ...good.body,
      like: { ...(good.body.like as object), actorHandle: 'carol' },
    };
    const selfSigned = await signUserAction({
      privateKey: alice.privateKey,
      action: 'like',
      targetDomain: B,
      body: asCarol,
    });
    expect((await failure(like({ body: asCarol, signature: selfSigned }))).code).toBe(
      'UNAUTHORIZED',
    );
    // For another post.
    const other = await bobPosts('another');
    const forOther = await signed('like', other.remoteId);
    expect((await failure(like(forOther))).code).toBe('BAD_REQUEST');
    // Stale: prepared more than 5 minutes ago.
    const old = await signed('like', post.remoteId);
    net.clock.advance(6 * 60_000);
    expect((await failure(like(old))).code).toBe('BAD_REQUEST');
    // No signature for a remote post.
    expect((await failure(like(undefined))).code).toBe('BAD_REQUEST');

    expect(await alphaState()).toEqual(before);
    expect(arrived(SWARM_PATHS.interaction('like'))).toBe(sentLikes);
    expect((await bobPost(post.id)).likesCount).toBe(0);

    // A valid one goes through once; replaying it is refused.
    const valid = await signed('like', post.remoteId);
    expect((await like(valid)).delivery?.status).toBe('delivered');
    await asAlice().interactions.unlike({
      postId: post.remoteId,
      signed: await signed('unlike', post.remoteId),
    });
    expect((await failure(like(valid))).code).toBe('BAD_REQUEST');
    expect((await bobPost(post.id)).likesCount).toBe(0);
  });
});

describe('several workers on one outbox', () => {
  /** Deliveries queued while beta is down, then due at once after it is back. */
  async function queueWhileDown(n: number): Promise<string[]> {
    net.network.drop(B);
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const { deliveries } = await asAlice().posts.create({ content: `hello @bob@${B} #${i}` });
      ids.push(deliveries[0]!.id);
    }
    net.network.heal(B);
    net.clock.advance(60_000);
    return ids;
  }

  const views = (ids: string[]) =>
    Promise.all(ids.map((id) => asAlice().deliveries.get({ id }))) as Promise<DeliveryView[]>;

  it('two workers draining at once send every row exactly once (PGlite: one process)', async () => {
    const ids = await queueWhileDown(6);
    const before = arrived(SWARM_PATHS.interaction('mention'));
    const one = createDeliveryWorker({ node: alpha.node, name: 'one' });
    const two = createDeliveryWorker({ node: alpha.node, name: 'two' });
    await Promise.all([one.processAll(), two.processAll(), net.processAll()]);
    expect((await views(ids)).map((v) => v.status)).toEqual(ids.map(() => 'delivered'));
    expect(arrived(SWARM_PATHS.interaction('mention'))).toBe(before + ids.length);
  });

  it('rows of a claimer that died come back when its lease runs out', async () => {
    const ids = await queueWhileDown(2);
    // A worker claimed them and crashed before sending (its lease is 2 minutes).
    const now = net.clock.now();
    await alpha.node.db.prisma.outboxDelivery.updateMany({
      where: { id: { in: ids } },
      data: { lockedBy: 'crashed', lockedUntil: new Date(now.getTime() + 2 * 60_000) },
    });
    const before = arrived(SWARM_PATHS.interaction('mention'));
    await net.processAll();
    expect(arrived(SWARM_PATHS.interaction('mention'))).toBe(before);
    net.clock.advance(3 * 60_000);
    await net.processAll();
    expect((await views(ids)).map((v) => v.status)).toEqual(['delivered', 'delivered']);
    expect(arrived(SWARM_PATHS.interaction('mention'))).toBe(before + 2);
  });

  it.runIf(process.env.TEST_DATABASE_URL)(
    'two gateway replicas on separate Postgres connections send every row exactly once',
    async () => {
      const db = alpha.node.db;
      if (db.kind !== 'postgres') throw new Error('expected Postgres');
      const url = (db.pool.options as { connectionString?: string }).connectionString;
      if (!url) throw new Error('no connection string');
      const replicaDb = await createPostgresDb(url, 4);
      try {
        const replica = createDeliveryService({
          db: replicaDb,
          peers: alpha.node.peers,
          clock: alpha.node.clock,
          logger: alpha.node.logger,
        });
        const ids = await queueWhileDown(8);
        const before = arrived(SWARM_PATHS.interaction('mention'));
        const mine = createDeliveryWorker({ node: alpha.node, name: 'replica-1' });
        const theirs = createDeliveryWorker({
          node: { delivery: replica, logger: alpha.node.logger },
          name: 'replica-2',
        });
        await Promise.all([mine.processAll(), theirs.processAll()]);
        expect((await views(ids)).map((v) => v.status)).toEqual(ids.map(() => 'delivered'));
        expect(arrived(SWARM_PATHS.interaction('mention'))).toBe(before + ids.length);
      } finally {
        await replicaDb.close();
      }
    },
  );
});
