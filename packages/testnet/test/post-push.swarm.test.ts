import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionUser } from '@swarm/auth';
import {
  didKeyToPublicKey,
  postPushSchema,
  SWARM_PATHS,
  signUserAction,
  verifyUserAction,
} from '@swarm/contract';
import {
  POLL_POLICY,
  POST_PUSH_MAX_NODES,
  REPUSH_INTERVAL_MS,
  createRemoteContentWorker,
} from '@swarm/domain';
import {
  ALPHA as A,
  BETA as B,
  createTestNetwork,
  insertKeyedUser,
  sessionUserByHandle,
  signedInCaller,
  trpcFailure,
  type KeyedUser,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';

// Sending new posts to the nodes of the author's followers (docs/protocol.md "Post delivery",
// "Sending"): alice on alpha is followed by two people on beta, by nobody on gamma, and by one
// person on a node of the origin profile. Each post of hers is one outbox row for beta, none for
// gamma nor the origin node; the body is the contract's shape and carries her own signature,
// made in her "browser" over what `posts.prepare` answered.

const C = 'gamma.test';
const ORIGIN = 'origin.test';
const UNKNOWN = 'unknown.test';

let net: TestNetwork;
let alpha: NetworkNode;
let beta: NetworkNode;
let alice: KeyedUser;
let dave: SessionUser;

const asAlice = () => signedInCaller(alpha.node, alice.user);
const prisma = () => alpha.node.db.prisma;

/** What the composer does for a user with a key: prepare, sign, create with the signature. */
async function signedPost(input: { content: string; visibility?: 'public' | 'followers' }) {
  const prepared = await asAlice().posts.prepare(input);
  if (!prepared) throw new Error('expected something to sign');
  const signature = await signUserAction({ privateKey: alice.privateKey, ...prepared });
  const signed = {
    id: prepared.body.id as string,
    createdAt: prepared.body.createdAt as string,
    signature,
  };
  return { prepared, created: await asAlice().posts.create({ ...input, signed }) };
}

const pushesOf = (postId: string) =>
  prisma().outboxDelivery.findMany({
    where: { interactionId: postId, kind: 'post' },
    orderBy: { targetDomain: 'asc' },
  });

/** A follower on a node alpha's registry knows, with these capabilities and profile. */
async function remoteFollower(domain: string, profile: 'swarm' | 'origin' | null) {
  if (profile) {
    await prisma().swarmNode.upsert({
      where: { domain },
      create: {
        domain,
        discoveredVia: 'manual',
        protocolProfile: profile,
        // The origin node is listed as taking posts on purpose: its profile alone rules it out.
        capabilities: JSON.stringify(['handles', 'interactions', 'posts']),
      },
      update: {},
    });
  }
  const actor = await prisma().remoteActor.create({
    data: { actorUrl: `swarm://${domain}/olga`, handle: 'olga', nodeDomain: domain },
  });
  await prisma().follow.create({
    data: {
      followerKey: actor.actorUrl,
      followerRemoteActorId: actor.id,
      followeeKey: `local:${alice.user.id}`,
      followeeUserId: alice.user.id,
      state: 'accepted',
    },
  });
}

beforeAll(async () => {
  net = await createTestNetwork({
    nodes: [
      { domain: A, handles: ['dave'] },
      { domain: B, handles: ['bob', 'bea'], seeds: [A] },
      { domain: C, handles: ['carl'], seeds: [A] },
    ],
  });
  alpha = net.node(A);
  beta = net.node(B);
  await net.announceAll();
  await net.roundsUntilConverged(5);
  alice = await insertKeyedUser(alpha.node, 'alice');
  dave = await sessionUserByHandle(alpha.node, 'dave');
  await prisma().user.update({ where: { id: dave.id }, data: { did: null, publicKey: null } });
  for (const handle of ['bob', 'bea']) {
    const who = await sessionUserByHandle(beta.node, handle);
    const follow = await signedInCaller(beta.node, who).interactions.follow({
      address: `alice@${A}`,
    });
    expect(follow.delivery).toMatchObject({ status: 'delivered' });
  }
  await remoteFollower(ORIGIN, 'origin');
  await remoteFollower(UNKNOWN, null);
});
afterAll(() => net.close());

describe('a new post of alice', () => {
  it('beta is known to take pushes (capability `posts`) and knows her did from the follows', async () => {
    const row = await prisma().swarmNode.findUniqueOrThrow({ where: { domain: B } });
    expect(JSON.parse(row.capabilities)).toContain('posts');
    const known = await beta.node.db.prisma.remoteActor.findUniqueOrThrow({
      where: { actorUrl: `swarm://${A}/alice` },
      select: { did: true },
    });
    expect(known.did).toBe(alice.user.did);
  });

  it('goes to beta once, to nobody else, signed by her, the same body as prepared', async () => {
    const { prepared, created } = await signedPost({ content: 'hello followers' });
    expect(prepared).toMatchObject({ action: 'post', targetDomain: A });
    const id = created.post.id;
    expect(id).toBe(prepared.body.id);
    const rows = await pushesOf(id);
    expect(rows.map((r) => [r.targetDomain, r.path])).toEqual([[B, SWARM_PATHS.inbox]]);
    expect(created.pushedTo).toEqual([B]);

    const body = JSON.parse(rows[0]!.body) as Record<string, unknown>;
    const parsed = postPushSchema.parse(body);
    expect(parsed).toMatchObject({
      nodeDomain: A,
      author: { handle: 'alice', did: alice.user.did },
      post: { id, content: 'hello followers', visibility: 'public', isNsfw: false },
    });
    expect(body.post).toEqual(prepared.body);
    const key = await didKeyToPublicKey(alice.user.did!);
    if (!key.ok) throw new Error(key.reason);
    const verifies = (post: unknown, signature: unknown) =>
      verifyUserAction({
        publicKey: key.value,
        action: 'post',
        targetDomain: A,
        body: { ...(post as object), signature },
      });
    expect(await verifies(body.post, body.postSignature)).toBe(true);
    expect(
      await verifies({ ...(body.post as object), content: 'edited' }, body.postSignature),
    ).toBe(false);
    const stored = await prisma().post.findUniqueOrThrow({ where: { id } });
    expect(stored.postSignature).toBe(body.postSignature);

    // Nothing was ever addressed to the others' inboxes.
    const inboxes = net.network.requests.filter((r) => r.path === SWARM_PATHS.inbox);
    expect(inboxes.every((r) => r.domain === B)).toBe(true);
  });

  it('beta stores it once, checked against her did; her signed deletion reaches beta', async () => {
    const { created } = await signedPost({ content: 'to beta and back' });
    await net.processAll();
    const [row] = await pushesOf(created.post.id);
    expect(row).toMatchObject({ status: 'delivered', attempts: 1 });
    const apId = `swarm:${A}:${created.post.id}`;
    const copy = () =>
      beta.node.db.prisma.post.findUniqueOrThrow({
        where: { apId },
        select: { content: true, deletedAt: true, remoteAuthor: { select: { did: true } } },
      });
    expect(await copy()).toMatchObject({ content: 'to beta and back', deletedAt: null });
    expect((await copy()).remoteAuthor?.did).toBe(alice.user.did);
    expect(await beta.node.db.prisma.post.count({ where: { apId } })).toBe(1);

    const statement = await asAlice().account.prepareDeletion({
      kind: 'post',
      postId: created.post.id,
    });
    const signature = await signUserAction({ privateKey: alice.privateKey, ...statement });
    const deleted = await asAlice().account.deletePost({
      id: created.post.id,
      signed: { body: statement.body, signature },
    });
    expect(deleted.told).toContain(B);
    await net.processAll();
    expect((await copy()).deletedAt).not.toBeNull();
  });

  it('followers-only: beta only, visibility in the signed post', async () => {
    const { created } = await signedPost({ content: 'for my followers', visibility: 'followers' });
    const rows = await pushesOf(created.post.id);
    expect(rows.map((r) => r.targetDomain)).toEqual([B]);
    const body = postPushSchema.parse(JSON.parse(rows[0]!.body));
    expect(body.post.visibility).toBe('followers');
    expect(body.postSignature).toBeTruthy();
    await net.processAll();
    const copy = await beta.node.db.prisma.post.findUniqueOrThrow({
      where: { apId: `swarm:${A}:${created.post.id}` },
      select: { visibility: true },
    });
    expect(copy.visibility).toBe('followers');

    // Alpha's public reads never serve it: not by id, not in the timeline nor on her profile.
    const id = created.post.id;
    expect((await alpha.request(SWARM_PATHS.post(id))).status).toBe(404);
    const listed = async (path: string) => {
      const answer = await alpha.request(path);
      expect(answer.status).toBe(200);
      return JSON.stringify(await answer.json());
    };
    expect(await listed(SWARM_PATHS.timeline)).not.toContain(id);
    expect(await listed(SWARM_PATHS.user('alice'))).not.toContain(id);
    // The control: a public post of hers is served by all three.
    const open = (await asAlice().posts.create({ content: 'for everyone' })).post.id;
    expect((await alpha.request(SWARM_PATHS.post(open))).status).toBe(200);
    expect(await listed(SWARM_PATHS.timeline)).toContain(open);
    expect(await listed(SWARM_PATHS.user('alice'))).toContain(open);
  });

  it('the same signed post sent twice at once: one post, the other refused', async () => {
    const input = { content: 'double click' };
    const prepared = (await asAlice().posts.prepare(input))!;
    const signature = await signUserAction({ privateKey: alice.privateKey, ...prepared });
    const signed = {
      id: prepared.body.id as string,
      createdAt: prepared.body.createdAt as string,
      signature,
    };
    const outcomes = await Promise.allSettled([
      asAlice().posts.create({ ...input, signed }),
      asAlice().posts.create({ ...input, signed }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected');
    expect(await trpcFailure(Promise.reject(refused?.reason))).toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect(await prisma().post.count({ where: { id: signed.id } })).toBe(1);
    expect(await pushesOf(signed.id)).toHaveLength(1);
  });

  it('posted unsigned from a browser without her key: beta, which knows her did, refuses it', async () => {
    const created = await asAlice().posts.create({ content: 'from a browser without my key' });
    await net.processAll();
    const [row] = await pushesOf(created.post.id);
    expect(row).toMatchObject({ targetDomain: B, status: 'failed', lastStatus: 401 });
    expect(
      await beta.node.db.prisma.post.count({ where: { apId: `swarm:${A}:${created.post.id}` } }),
    ).toBe(0);
  });

  it('unlisted: not pushed, and nothing to sign', async () => {
    expect(await asAlice().posts.prepare({ content: 'x', visibility: 'unlisted' })).toBeNull();
    const created = await asAlice().posts.create({ content: 'quiet', visibility: 'unlisted' });
    expect(await pushesOf(created.post.id)).toEqual([]);
  });

  it('a reply is pushed with its parent', async () => {
    const parent = await asAlice().posts.create({ content: 'the start' });
    const reply = await asAlice().posts.create({ content: 'and more', replyToId: parent.post.id });
    const [row] = await pushesOf(reply.post.id);
    expect(postPushSchema.parse(JSON.parse(row!.body)).post.replyToId).toBe(parent.post.id);
  });

  it('a wrong signature, a reused id or an old time is refused and nothing is written', async () => {
    const input = { content: 'tampered' };
    const prepared = (await asAlice().posts.prepare(input))!;
    const signature = await signUserAction({
      privateKey: alice.privateKey,
      ...prepared,
      body: { ...prepared.body, content: 'something else' },
    });
    const signed = {
      id: prepared.body.id as string,
      createdAt: prepared.body.createdAt as string,
      signature,
    };
    const before = await prisma().outboxDelivery.count();
    expect(await trpcFailure(asAlice().posts.create({ ...input, signed }))).toMatchObject({
      code: 'UNAUTHORIZED',
    });
    expect(await prisma().post.count({ where: { id: signed.id } })).toBe(0);
    expect(await prisma().outboxDelivery.count()).toBe(before);

    const used = (await asAlice().posts.create({ content: 'first' })).post.id;
    expect(
      await trpcFailure(asAlice().posts.create({ ...input, signed: { ...signed, id: used } })),
    ).toMatchObject({ code: 'BAD_REQUEST' });
    const old = new Date(net.clock.now().getTime() - 10 * 60_000).toISOString();
    expect(
      await trpcFailure(
        asAlice().posts.create({ ...input, signed: { ...signed, createdAt: old } }),
      ),
    ).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('a user without a key posts unsigned: pushed without postSignature', async () => {
    const asDave = signedInCaller(alpha.node, dave);
    await signedInCaller(
      beta.node,
      await sessionUserByHandle(beta.node, 'bob'),
    ).interactions.follow({ address: `dave@${A}` });
    expect(await trpcFailure(asDave.posts.prepare({ content: 'x' }))).toMatchObject({
      code: 'BAD_REQUEST',
    });
    const created = await asDave.posts.create({ content: 'no key here' });
    const rows = await pushesOf(created.post.id);
    expect(rows.map((r) => r.targetDomain)).toEqual([B]);
    const body = postPushSchema.parse(JSON.parse(rows[0]!.body));
    expect(body.postSignature).toBeUndefined();
    expect(body.author.did).toBeUndefined();
  });

  it('deleting a post not yet sent cancels its push', async () => {
    net.network.drop(B);
    try {
      const created = await asAlice().posts.create({ content: 'gone soon' });
      await alpha.delivery.runOnce();
      const [row] = await pushesOf(created.post.id);
      expect(row).toMatchObject({ status: 'pending', attempts: 1 });
      await asAlice().posts.delete({ id: created.post.id });
      // Tried once (refused), retried no more: what reached nobody goes nowhere.
      expect((await pushesOf(created.post.id))[0]!.status).toBe('cancelled');
    } finally {
      net.network.heal(B);
    }
  });

  it('is pushed again with its counts when they reach a threshold, signed the same', async () => {
    const { created } = await signedPost({ content: 'like it or not' });
    const id = created.post.id;
    await net.processAll();
    const like = async (who: SessionUser) => {
      await signedInCaller(alpha.node, who).interactions.like({ postId: id });
      net.clock.advance(REPUSH_INTERVAL_MS);
      await net.processAll();
    };
    await like(dave);
    const rows = await pushesOf(id);
    expect(rows.map((r) => [r.targetDomain, r.status])).toEqual([
      [B, 'delivered'],
      [B, 'delivered'],
    ]);
    const [first, again] = rows
      .sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime())
      .map((r) => postPushSchema.parse(JSON.parse(r.body)));
    expect(first!.counts).toBeUndefined();
    expect(again!.counts).toEqual({ likesCount: 1, repostsCount: 0, repliesCount: 0 });
    expect(again!.post).toEqual(first!.post);
    expect(again!.postSignature).toBe(first!.postSignature);
    const copy = () =>
      beta.node.db.prisma.post.findUniqueOrThrow({
        where: { apId: `swarm:${A}:${id}` },
        select: { likesCount: true },
      });
    expect((await copy()).likesCount).toBe(1);

    // A second like reaches no new threshold (1, 5, 10…): nothing more is sent.
    await like((await insertKeyedUser(alpha.node, 'erin')).user);
    expect(await pushesOf(id)).toHaveLength(2);
  });

  it('goes to at most POST_PUSH_MAX_NODES nodes, those with the most followers first', async () => {
    // Followers on more nodes than the bound, beta having the most (bob and bea).
    const extra = Array.from({ length: POST_PUSH_MAX_NODES }, (_, i) => `n${i}.test`);
    await prisma().swarmNode.createMany({
      data: extra.map((domain) => ({
        domain,
        discoveredVia: 'manual',
        protocolProfile: 'swarm',
        capabilities: JSON.stringify(['posts']),
      })),
    });
    for (const domain of extra) await remoteFollower(domain, null);
    const created = await asAlice().posts.create({ content: 'to many nodes' });
    const targets = (await pushesOf(created.post.id)).map((r) => r.targetDomain);
    expect(targets).toHaveLength(POST_PUSH_MAX_NODES);
    expect(targets).toContain(B);
    expect(new Set(targets).size).toBe(POST_PUSH_MAX_NODES);
  });

  it('beta polls her only to fill gaps: alpha pushes, so a poll that finds nothing new waits POLL_POLICY.pushedMs', async () => {
    const worker = createRemoteContentWorker({ node: beta.node });
    const row = () =>
      beta.node.db.prisma.remoteAuthorPoll.findFirstOrThrow({
        where: { remoteActor: { handle: 'alice', nodeDomain: A } },
      });
    try {
      await worker.pollAll(); // the backfill: says nothing of lost pushes
      expect((await row()).intervalMs).toBeLessThanOrEqual(POLL_POLICY.maxMs);
      net.clock.set((await row()).nextPollAt);
      await worker.pollAll();
      const after = await row();
      expect(after.intervalMs).toBe(POLL_POLICY.pushedMs);
      expect(after.nextPollAt.getTime() - net.clock.now().getTime()).toBe(POLL_POLICY.pushedMs);

      // A post the pushes did not bring (its push was lost): polled as often as anyone again.
      const lost = await asAlice().posts.create({ content: 'a push that never arrived' });
      await prisma().outboxDelivery.updateMany({
        where: { interactionId: lost.post.id, kind: 'post' },
        data: { status: 'cancelled' },
      });
      net.clock.set(after.nextPollAt);
      await worker.pollAll();
      expect((await row()).intervalMs).toBeLessThanOrEqual(POLL_POLICY.maxMs);
      expect(
        await beta.node.db.prisma.post.count({ where: { apId: `swarm:${A}:${lost.post.id}` } }),
      ).toBe(1);
    } finally {
      await worker.stop();
    }
  });
});
