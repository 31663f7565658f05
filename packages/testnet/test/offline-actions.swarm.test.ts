import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SWARM_PATHS } from '@swarm/contract';
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

// Issue #4 "nothing a user did is lost because a peer was down": alice's FIRST action on a post
// of beta (no copy of it on alpha yet) or follow of someone on beta never fetched here, while
// beta is down. The action is recorded from what alpha knows (the post as a read just showed
// it, an author hint from the page, the handle registry) and delivered once beta is back. Also:
// after an action on beta, alpha's reads show beta's new counts, not its cached answer.

let net: TestNetwork;
let alpha: NetworkNode;
let beta: NetworkNode;
let alice: KeyedUser;

const asAlice = () => signedInCaller(alpha.node, alice.user);

/** What the browser does: prepare, sign the exact payload with alice's key. */
const signed = (kind: 'like' | 'repost', postId: string) =>
  signedInteraction(asAlice(), alice.privateKey, kind, postId);

/** A new post by `handle` on beta, written through beta's front door; its id on alpha. */
async function postOnBeta(content: string, handle = 'bob') {
  const user = await sessionUserByHandle(beta.node, handle);
  const { post } = await signedInCaller(beta.node, user).posts.create({ content });
  return { id: post.id, remoteId: `swarm:${B}:${post.id}` };
}

const onBeta = (id: string) =>
  beta.node.db.prisma.post.findUniqueOrThrow({
    where: { id },
    select: { likesCount: true, repostsCount: true, repliesCount: true },
  });
const copyOnAlpha = (remoteId: string) =>
  alpha.node.db.prisma.post.findUniqueOrThrow({
    where: { apId: remoteId },
    select: { content: true, remoteAuthor: { select: { handle: true, nodeDomain: true } } },
  });
const arrived = (path: string) =>
  net.network.requests.filter(
    (r) => r.domain === B && r.method === 'POST' && r.path === path && r.fault === null,
  ).length;

const failure = trpcFailure;

async function alphaState() {
  const prisma = alpha.node.db.prisma;
  return {
    posts: await prisma.post.count(),
    likes: await prisma.like.count(),
    actors: await prisma.remoteActor.count(),
    outbox: await prisma.outboxDelivery.count(),
  };
}

/** beta is back: the queued delivery is due after a minute. */
async function healAndDrain() {
  net.network.heal(B);
  net.clock.advance(60_000);
  await net.processAll();
}

beforeAll(async () => {
  ({ net, alpha, beta } = await createTwoNodes({ beta: { handles: ['bob', 'zoe'], seeds: [A] } }));
  // Peers and handles known on both sides (zoe@beta is in alpha's handle registry).
  expect(await net.roundsUntilConverged(5)).toBeLessThan(Infinity);
  alice = await insertKeyedUser(alpha.node, 'alice');
});
afterAll(() => net.close());
beforeEach(() => net.network.heal(B));

describe('a first action while the post’s node is down', () => {
  it('likes a post alice saw in the swarm feed: queued, then delivered once', async () => {
    const post = await postOnBeta('seen in the swarm feed');
    // Kept here once read (a profile read; the crawler in production).
    await asAlice().profiles.get({ address: `bob@${B}` });
    const feed = await asAlice().timeline.swarm({});
    expect(feed.posts.map((p) => p.id)).toContain(post.remoteId);
    const body = await signed('like', post.remoteId);
    net.network.drop(B);

    const { delivery } = await asAlice().interactions.like({ postId: post.remoteId, signed: body });
    expect(delivery).toMatchObject({ kind: 'like', status: 'pending' });
    expect(delivery!.summary).toMatch(/^retrying, next in \d+ s$/);
    // The copy is the post as the feed showed it.
    expect(await copyOnAlpha(post.remoteId)).toEqual({
      content: 'seen in the swarm feed',
      remoteAuthor: { handle: 'bob', nodeDomain: B },
    });

    const before = arrived(SWARM_PATHS.interaction('like'));
    await healAndDrain();
    expect(await asAlice().deliveries.get({ id: delivery!.id })).toMatchObject({
      status: 'delivered',
      summary: 'delivered',
    });
    expect(arrived(SWARM_PATHS.interaction('like'))).toBe(before + 1);
    expect((await onBeta(post.id)).likesCount).toBe(1);
    net.clock.advance(3 * 60 * 60_000);
    await net.processAll();
    expect(arrived(SWARM_PATHS.interaction('like'))).toBe(before + 1);
  });

  it('likes a post never read here with the page’s author hint: a placeholder, then delivered', async () => {
    const post = await postOnBeta('only the hint knows');
    const body = await signed('like', post.remoteId);
    net.network.drop(B);

    const { delivery } = await asAlice().interactions.like({
      postId: post.remoteId,
      signed: body,
      authorAddress: `bob@${B}`,
    });
    expect(delivery?.status).toBe('pending');
    expect(delivery!.summary).toMatch(/^retrying, next in \d+ s$/);
    expect(await copyOnAlpha(post.remoteId)).toEqual({
      content: '',
      remoteAuthor: { handle: 'bob', nodeDomain: B },
    });

    await healAndDrain();
    expect((await asAlice().deliveries.get({ id: delivery!.id })).status).toBe('delivered');
    expect((await onBeta(post.id)).likesCount).toBe(1);
    // The next read of the post fills the placeholder in.
    const thread = await asAlice().threads.get({ id: post.remoteId });
    expect(thread.post).toMatchObject({ content: 'only the hint knows', likesCount: 1 });
    expect((await copyOnAlpha(post.remoteId)).content).toBe('only the hint knows');
  });

  it('a wrong hint makes only a placeholder, corrected by the next read', async () => {
    const post = await postOnBeta('who wrote this?');
    net.network.drop(B);
    const { deliveries } = await asAlice().posts.create({
      content: 'replying while beta is down',
      replyToId: post.remoteId,
      replyToAuthorAddress: `mallory@${B}`,
    });
    expect(deliveries[0]).toMatchObject({ kind: 'reply', status: 'pending' });
    expect((await copyOnAlpha(post.remoteId)).remoteAuthor?.handle).toBe('mallory');

    await healAndDrain();
    expect((await onBeta(post.id)).repliesCount).toBe(1);
    await asAlice().threads.get({ id: post.remoteId });
    expect(await copyOnAlpha(post.remoteId)).toEqual({
      content: 'who wrote this?',
      remoteAuthor: { handle: 'bob', nodeDomain: B },
    });
  });

  it('refuses a malformed hint, and one naming another node, changing nothing', async () => {
    const post = await postOnBeta('hints that do not help');
    const body = await signed('like', post.remoteId);
    net.network.drop(B);
    const before = await alphaState();
    const malformed = await failure(
      asAlice().interactions.like({ postId: post.remoteId, signed: body, authorAddress: 'bob' }),
    );
    expect(malformed.code).toBe('BAD_REQUEST');
    expect(malformed.message).toContain('not an author address');
    // A hint cannot point the copy at another node's person: treated as no hint.
    const elsewhere = await failure(
      asAlice().interactions.like({
        postId: post.remoteId,
        signed: body,
        authorAddress: 'bob@gamma.test',
      }),
    );
    expect(elsewhere.code).toBe('BAD_GATEWAY');
    expect(elsewhere.message).toContain(B);
    expect(await alphaState()).toEqual(before);
  });

  it('follows zoe@beta, known only from the handle registry: queued, then accepted', async () => {
    expect(
      await alpha.node.db.prisma.remoteActor.count({ where: { handle: 'zoe', nodeDomain: B } }),
    ).toBe(0);
    net.network.drop(B);
    const { delivery } = await asAlice().interactions.follow({ address: `zoe@${B}` });
    expect(delivery).toMatchObject({ kind: 'follow', status: 'pending' });
    const profile = await asAlice().profiles.get({ address: 'alice', limit: 0 });
    expect(profile.profile.followingCount).toBe(1);

    await healAndDrain();
    expect((await asAlice().deliveries.get({ id: delivery!.id })).status).toBe('delivered');
    const zoe = await beta.node.db.prisma.user.findUniqueOrThrow({ where: { handle: 'zoe' } });
    expect(zoe.followersCount).toBe(1);
    const page = await asAlice().profiles.get({ address: `zoe@${B}`, limit: 0 });
    expect(page.profile.viewer?.followState).toBe('accepted');
  });
});

describe('reads after an action on another node', () => {
  it('home and the swarm feed show the counts of alice’s own actions at once', async () => {
    await asAlice().interactions.follow({ address: `bob@${B}` });
    const post = await postOnBeta('count me');
    await alpha.node.remoteContent.poller.pollDue(); // alice follows bob: his posts are polled
    const shown = async () => {
      const home = await asAlice().timeline.home({});
      const swarm = await asAlice().timeline.swarm({});
      return [home, swarm].map((page) => {
        const p = page.posts.find((x) => x.id === post.remoteId);
        return p && { likes: p.likesCount, replies: p.repliesCount, liked: p.viewer?.liked };
      });
    };
    expect(await shown()).toEqual([
      { likes: 0, replies: 0, liked: false },
      { likes: 0, replies: 0, liked: false },
    ]);
    await asAlice().interactions.like({
      postId: post.remoteId,
      signed: await signed('like', post.remoteId),
    });
    expect(await shown()).toEqual([
      { likes: 1, replies: 0, liked: true },
      { likes: 1, replies: 0, liked: true },
    ]);
    await asAlice().posts.create({ content: 'a reply', replyToId: post.remoteId });
    expect(await shown()).toEqual([
      { likes: 1, replies: 1, liked: true },
      { likes: 1, replies: 1, liked: true },
    ]);
  });
});
