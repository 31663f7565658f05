import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SWARM_PATHS } from '@swarm/contract';
import { GIVE_UP_AFTER_MS } from '@swarm/domain';
import {
  ALPHA as A,
  BETA as B,
  createTwoNodes,
  insertKeyedUser,
  sessionUserByHandle,
  signedInCaller,
  signedInteraction,
  type KeyedUser,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';

// Red team (issue 22): deliveries already queued for a person who is then suspended. alice of
// alpha likes and follows on beta while beta is down; an admin suspends her; beta comes back.
// Nothing of hers may leave alpha while she is suspended (the outbox holds her rows); an
// unsuspension lets them go, and rows still held after 48 h fail like any other.

let net: TestNetwork;
let alpha: NetworkNode;
let beta: NetworkNode;

beforeAll(async () => {
  ({ net, alpha, beta } = await createTwoNodes({ beta: { handles: ['bob'], seeds: [A] } }));
  expect(await net.roundsUntilConverged(5)).toBeLessThan(Infinity);
});
afterAll(() => net.close());
beforeEach(() => net.network.heal(B));

const arrived = (path: string) =>
  net.network.requests.filter(
    (r) => r.domain === B && r.method === 'POST' && r.path === path && r.fault === null,
  ).length;

/** A post of bob on beta, read once by `user` on alpha (so alpha holds a copy). */
async function bobPost(user: KeyedUser, content: string) {
  const bob = await sessionUserByHandle(beta.node, 'bob');
  const { post } = await signedInCaller(beta.node, bob).posts.create({ content });
  const remoteId = `swarm:${B}:${post.id}`;
  await signedInCaller(alpha.node, user.user).threads.get({ id: remoteId });
  return { id: post.id, remoteId };
}

/** alice likes bob's post while beta is down: the like waits in alpha's outbox. */
async function queuedLike(user: KeyedUser, content: string) {
  const post = await bobPost(user, content);
  const signed = await signedInteraction(
    signedInCaller(alpha.node, user.user),
    user.privateKey,
    'like',
    post.remoteId,
  );
  net.network.drop(B);
  const { delivery } = await signedInCaller(alpha.node, user.user).interactions.like({
    postId: post.remoteId,
    signed,
  });
  expect(delivery).toMatchObject({ kind: 'like', status: 'pending' });
  return { post, deliveryId: delivery!.id };
}

const suspend = (handle: string, on: boolean) =>
  alpha.node.moderation.reports.setSuspended({ handle: 'admin' }, handle, on, 'spam run');

const likesOnBeta = (id: string) =>
  beta.node.db.prisma.post
    .findUniqueOrThrow({ where: { id }, select: { likesCount: true } })
    .then((p) => p.likesCount);

describe('deliveries queued before a suspension', () => {
  it('do not go out while the account is suspended, and go once it is lifted', async () => {
    const alice = await insertKeyedUser(alpha.node, 'alice');
    const { post, deliveryId } = await queuedLike(alice, 'like me later');
    const sentBefore = arrived(SWARM_PATHS.interaction('like'));

    expect((await suspend('alice', true)).ok).toBe(true);
    net.network.heal(B);
    for (const step of [60_000, 60 * 60_000, 2 * 60 * 60_000]) {
      net.clock.advance(step);
      await net.processAll();
    }
    expect(arrived(SWARM_PATHS.interaction('like'))).toBe(sentBefore);
    expect(await likesOnBeta(post.id)).toBe(0);
    const held = await alpha.node.delivery.get(deliveryId);
    expect(held).toMatchObject({
      status: 'pending',
      lastError: 'held while the account is suspended',
    });

    expect((await suspend('alice', false)).ok).toBe(true);
    net.clock.advance(60 * 60_000);
    await net.processAll();
    expect((await alpha.node.delivery.get(deliveryId))?.status).toBe('delivered');
    expect(arrived(SWARM_PATHS.interaction('like'))).toBe(sentBefore + 1);
    expect(await likesOnBeta(post.id)).toBe(1);
  });

  it('an admin’s "retry now" does not send them either; after 48 h they fail', async () => {
    const mallory = await insertKeyedUser(alpha.node, 'mallory');
    const { post, deliveryId } = await queuedLike(mallory, 'spam target');
    const sentBefore = arrived(SWARM_PATHS.interaction('like'));
    expect((await suspend('mallory', true)).ok).toBe(true);
    net.network.heal(B);

    const retried = await alpha.node.delivery.retryNow(deliveryId);
    expect(retried.ok && retried.value.status).toBe('pending');
    expect(arrived(SWARM_PATHS.interaction('like'))).toBe(sentBefore);

    net.clock.advance(GIVE_UP_AFTER_MS);
    await net.processAll();
    expect(await alpha.node.delivery.get(deliveryId)).toMatchObject({
      status: 'failed',
      summary: 'failed: gave up after 48 h',
    });
    expect(arrived(SWARM_PATHS.interaction('like'))).toBe(sentBefore);
    expect(await likesOnBeta(post.id)).toBe(0);
  });
});
