import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWARM_PATHS, formatTimestamp } from '@swarm/contract';
import {
  createTwoNodes,
  insertKeyedUser,
  signedInCaller,
  trpcFailure,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';
import {
  ALPHA,
  BETA,
  pairWithFreshScenes,
  paths,
  snapshot,
  type InteractionPair,
  type RemoteUser,
  type Scene,
} from './interactions-harness.ts';

// Issue #15 across nodes. Blocks: a user of alpha blocks bob of beta; bob's follow, reply, like,
// repost and mention, node-signed by beta and user-signed by bob, reach alpha's front door and
// are refused with 403, writing nothing; his earlier follow is gone. Reports: alice on alpha
// reports a post of beta; alpha forwards it node-signed to beta, whose moderators see it in
// their queue without knowing who filed it; forged and bad forwards are refused.

describe('blocks refuse remote interactions with 403', () => {
  let t: InteractionPair;
  let s: Scene;
  let seq = 0;
  const now = () => formatTimestamp(t.clock.now());
  const nextId = (prefix: string) => `${prefix}-${++seq}`;

  pairWithFreshScenes({ pair: (made) => (t = made), scene: (made) => (s = made) });

  const actor = (user: RemoteUser, interactionId: string) => ({
    actorHandle: user.handle,
    actorDisplayName: user.handle,
    actorAvatarUrl: '',
    actorNodeDomain: BETA,
    interactionId,
    timestamp: now(),
  });
  const follow = (user: RemoteUser, targetHandle: string) =>
    t.signed(user, 'follow', {
      targetHandle,
      follow: {
        followerHandle: user.handle,
        followerDisplayName: user.handle,
        followerAvatarUrl: '',
        followerBio: '',
        followerNodeDomain: BETA,
        interactionId: nextId('follow'),
        timestamp: now(),
      },
    });

  async function refused(response: Response) {
    const body = (await response.json()) as { code: string; error: string };
    expect({ status: response.status, code: body.code }, body.error).toEqual({
      status: 403,
      code: 'FORBIDDEN',
    });
  }

  const block = (address: string) =>
    signedInCaller(t.alpha.node, {
      id: s.aliceId,
      handle: s.alice,
      displayName: 'Alice',
      avatarUrl: null,
      isAdmin: false,
      did: null,
      showNsfw: false,
    }).moderation.safety.block({ address });

  it('removes the blocked person’s follow and refuses follows, replies, likes, reposts, mentions', async () => {
    const followed = await t.send(paths.follow, await follow(s.bob, s.alice));
    expect(followed.status).toBe(200);
    const prisma = t.alpha.node.db.prisma;
    expect((await prisma.user.findUniqueOrThrow({ where: { id: s.aliceId } })).followersCount).toBe(
      1,
    );

    const list = await block(`${s.bob.handle}@${BETA}`);
    expect(list.map((b) => b.address)).toEqual([`${s.bob.handle}@${BETA}`]);
    // The follow went with the block (and its counter and notification).
    expect((await prisma.user.findUniqueOrThrow({ where: { id: s.aliceId } })).followersCount).toBe(
      0,
    );
    expect(
      await prisma.follow.count({ where: { followerKey: `swarm://${BETA}/${s.bob.handle}` } }),
    ).toBe(0);

    const before = await snapshot(t.alpha);
    const postId = s.postIds[0]!;
    await refused(await t.send(paths.follow, await follow(s.bob, s.alice)));
    await refused(
      await t.send(
        paths.like,
        await t.signed(s.bob, 'like', { postId, like: actor(s.bob, nextId('like')) }),
      ),
    );
    await refused(
      await t.send(
        paths.repost,
        await t.signed(s.bob, 'repost', {
          postId,
          repost: { ...actor(s.bob, nextId('repost')), repostId: nextId('r') },
        }),
      ),
    );
    await refused(
      await t.send(
        paths.mention,
        await t.signed(s.bob, 'mention', {
          mentionedHandle: s.alice,
          mention: { ...actor(s.bob, nextId('mention')), postId: nextId('p'), postContent: 'hi' },
        }),
      ),
    );
    await refused(
      await t.send(
        paths.reply,
        await t.signed(s.bob, 'reply', {
          postId,
          reply: {
            id: nextId('reply'),
            content: 'a reply',
            createdAt: now(),
            author: { handle: s.bob.handle, displayName: 'Bob', avatarUrl: '' },
            nodeDomain: BETA,
            mediaUrls: [],
          },
        }),
      ),
    );
    // Nothing was written: no ledger claim, no like, follow, notification, reply.
    expect(await snapshot(t.alpha)).toEqual(before);

    // carol (not blocked) still gets through; an unblock lets bob through again.
    expect((await t.send(paths.follow, await follow(s.carol, s.alice))).status).toBe(200);
    await signedInCaller(t.alpha.node, {
      id: s.aliceId,
      handle: s.alice,
      displayName: 'Alice',
      avatarUrl: null,
      isAdmin: false,
      did: null,
      showNsfw: false,
    }).moderation.safety.unblock({ address: `${s.bob.handle}@${BETA}` });
    expect((await t.send(paths.follow, await follow(s.bob, s.alice))).status).toBe(200);
  });

  it('answers for a suspended account as for one that does not exist', async () => {
    const prisma = t.alpha.node.db.prisma;
    const profile = () => t.alpha.request(`${SWARM_PATHS.user(s.alice)}?limit=5`);
    expect((await profile()).status).toBe(200);
    await t.alpha.node.moderation.reports.setSuspended(
      { handle: 'cli' },
      s.alice,
      true,
      'spam waves',
    );
    expect((await profile()).status).toBe(404);
    expect((await t.alpha.request(SWARM_PATHS.post(s.postIds[0]!))).status).toBe(404);
    const timeline = (await (await t.alpha.request(SWARM_PATHS.timeline)).json()) as {
      posts: { id: string }[];
    };
    expect(timeline.posts.map((p) => p.id)).not.toContain(s.postIds[0]);
    const followed = await t.send(paths.follow, await follow(s.bob, s.alice));
    expect(followed.status).toBe(404);
    // Reversible: everything is back.
    t.clock.advance(1000);
    await t.alpha.node.moderation.reports.setSuspended({ handle: 'cli' }, s.alice, false, 'appeal');
    expect((await profile()).status).toBe(200);
    expect((await t.alpha.request(SWARM_PATHS.post(s.postIds[0]!))).status).toBe(200);
    const audit = await t.alpha.node.moderation.audit.search({ q: s.alice });
    expect(audit.entries.map((e) => [e.action, e.reason])).toEqual([
      ['user.unsuspend', 'appeal'],
      ['user.suspend', 'spam waves'],
    ]);
    expect(await prisma.user.count({ where: { id: s.aliceId, suspendedAt: null } })).toBe(1);
  });

  it('refuses forwarded reports that are forged or name nobody, writing nothing', async () => {
    const report = (over: Record<string, unknown>) => ({
      report: {
        id: nextId('report'),
        targetHandle: s.alice,
        category: 'spam',
        comment: 'x',
        reporterNodeDomain: BETA,
        timestamp: now(),
        ...over,
      },
    });
    const prisma = t.alpha.node.db.prisma;
    const before = await prisma.report.count();
    const status = async (body: unknown, opts?: { source?: string }) =>
      (await t.send(SWARM_PATHS.reports, body, opts)).status;
    expect(await status(report({ reporterNodeDomain: 'other.test' }))).toBe(403);
    expect(await status(report({ targetHandle: 'nobody_here' }))).toBe(404);
    expect(await status(report({ postId: '00000000-0000-4000-8000-000000000000' }))).toBe(404);
    expect(await status(report({ category: 'boring' }))).toBe(400);
    expect(await status(report({ comment: 'x'.repeat(1001) }))).toBe(400);
    // Unsigned: 401.
    const unsigned = await t.alpha.request(SWARM_PATHS.reports, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(report({})),
    });
    expect(unsigned.status).toBe(401);
    expect(await prisma.report.count()).toBe(before);
    // A valid one lands once, however often it is sent.
    const body = report({ postId: s.postIds[1] });
    expect(await status(body)).toBe(200);
    expect(await status(body)).toBe(200);
    expect(await prisma.report.count()).toBe(before + 1);
  });
});

describe('report forwarding between nodes', () => {
  let net: TestNetwork;
  let alpha: NetworkNode;
  let beta: NetworkNode;

  beforeAll(async () => {
    ({ net, alpha, beta } = await createTwoNodes({
      alpha: { seeds: [BETA] },
      beta: { seeds: [ALPHA] },
    }));
    await net.announceAll();
  });
  afterAll(async () => {
    await net?.close();
  });

  it('forwards a report about a remote post to its node, without the reporter', async () => {
    const alice = await insertKeyedUser(alpha.node, 'alice');
    const bob = await insertKeyedUser(beta.node, 'bob');
    await signedInCaller(beta.node, bob.user).posts.create({ content: 'buy cheap watches' });
    const post = await beta.node.db.prisma.post.findFirstOrThrow({
      where: { content: 'buy cheap watches' },
    });
    const filed = await signedInCaller(alpha.node, alice.user).moderation.report({
      postId: `swarm:beta.test:${post.id}`,
      category: 'spam',
      comment: 'selling things in every thread',
    });
    expect(filed.forwardState).toBe('sent');

    // alpha keeps its own copy, with its reporter.
    const mine = await alpha.node.moderation.reports.queue();
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      reporter: 'alice',
      targetAddress: 'bob@beta.test',
      postExcerpt: 'buy cheap watches',
      forwardState: 'sent',
    });

    // beta's moderators see it, the content in context, and only the node it came from.
    const queue = await beta.node.moderation.reports.queue();
    expect(queue).toHaveLength(1);
    expect(queue[0]).toMatchObject({
      reporter: 'a user of alpha.test',
      sourceDomain: 'alpha.test',
      targetAddress: 'bob@beta.test',
      category: 'spam',
      comment: 'selling things in every thread',
      postId: post.id,
      postNow: { content: 'buy cheap watches', deleted: false },
    });
    expect(JSON.stringify(queue[0])).not.toContain('alice');

    // beta's moderator deletes the post: the report is resolved and audited.
    const acted = await beta.node.moderation.reports.act(
      { handle: 'cli' },
      queue[0]!.id,
      'delete-post',
      'spam',
    );
    expect(acted.ok && acted.value).toMatchObject({
      status: 'resolved',
      resolution: 'delete-post',
    });
    expect(
      (await beta.node.db.prisma.post.findUniqueOrThrow({ where: { id: post.id } })).deletedAt,
    ).not.toBeNull();
    // Acting twice is refused (nothing changes).
    const again = await beta.node.moderation.reports.act(
      { handle: 'cli' },
      queue[0]!.id,
      'dismiss',
      'x',
    );
    expect(again.ok).toBe(false);

    // Bad reports are refused clearly, filing nothing.
    const before = await alpha.node.db.prisma.report.count();
    const caller = signedInCaller(alpha.node, alice.user).moderation;
    expect(await trpcFailure(caller.report({ target: 'alice', category: 'spam' }))).toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect(await trpcFailure(caller.report({ target: 'ghost', category: 'spam' }))).toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(
      await trpcFailure(caller.report({ postId: 'swarm:beta.test:nope', category: 'spam' })),
    ).toMatchObject({ code: 'NOT_FOUND' });
    expect(
      await trpcFailure(caller.report({ target: 'bob@beta.test', category: 'meh' as 'spam' })),
    ).toMatchObject({ code: 'BAD_REQUEST' });
    expect(await alpha.node.db.prisma.report.count()).toBe(before);
  });

  it('keeps a forwarded report in the outbox while the node is down, then delivers it once', async () => {
    const alice = await insertKeyedUser(alpha.node, 'alice_down');
    const bob = await insertKeyedUser(beta.node, 'bob_down');
    const { post } = await signedInCaller(beta.node, bob.user).posts.create({
      content: 'spam while you sleep',
    });
    const remoteId = `swarm:beta.test:${post.id}`;
    // alice answered it earlier, so alpha holds a copy naming its author.
    await signedInCaller(alpha.node, alice.user).posts.create({
      content: 'please stop',
      replyToId: remoteId,
    });
    await net.processAll();
    const onBeta = () =>
      beta.node.db.prisma.report.count({ where: { comment: 'posted while beta was down' } });

    net.network.drop('beta.test');
    const filed = await signedInCaller(alpha.node, alice.user).moderation.report({
      postId: remoteId,
      category: 'spam',
      comment: 'posted while beta was down',
    });
    expect(filed.forwardState).toBe('pending');
    const mine = await alpha.node.moderation.reports.get(filed.id);
    expect(mine).toMatchObject({
      targetAddress: 'bob_down@beta.test',
      postExcerpt: 'spam while you sleep',
      forwardState: 'pending',
    });
    const queued = await alpha.node.db.prisma.outboxDelivery.findFirstOrThrow({
      where: { kind: 'report', interactionId: filed.id },
    });
    expect(queued).toMatchObject({ status: 'pending', attempts: 1, path: SWARM_PATHS.reports });
    // Not due yet: nothing more is sent.
    await net.processAll();
    expect(await onBeta()).toBe(0);

    net.network.heal('beta.test');
    net.clock.advance(60_000);
    await net.processAll();
    expect((await alpha.node.moderation.reports.get(filed.id))?.forwardState).toBe('sent');
    expect(await onBeta()).toBe(1);
    const theirs = (await beta.node.moderation.reports.queue()).find(
      (r) => r.comment === 'posted while beta was down',
    );
    expect(theirs).toMatchObject({
      reporter: 'a user of alpha.test',
      targetAddress: 'bob_down@beta.test',
      postId: post.id,
    });
    // Nothing is sent again later.
    net.clock.advance(3 * 60 * 60_000);
    await net.processAll();
    expect(await onBeta()).toBe(1);
  });

  it('marks a forward the node refuses for good as failed', async () => {
    const alice = await insertKeyedUser(alpha.node, 'alice_refused');
    const filed = await signedInCaller(alpha.node, alice.user).moderation.report({
      target: 'nobody_there@beta.test',
      category: 'abuse',
    });
    // beta answers 404 (no such user): final, not retried.
    expect(filed.forwardState).toBe('failed');
    expect((await alpha.node.moderation.reports.get(filed.id))?.forwardState).toBe('failed');
    const row = await alpha.node.db.prisma.outboxDelivery.findFirstOrThrow({
      where: { kind: 'report', interactionId: filed.id },
    });
    expect(row).toMatchObject({ status: 'failed', lastStatus: 404 });
  });

  it('refuses a blocked person’s message with 403', async () => {
    const carol = await insertKeyedUser(alpha.node, 'carol');
    await signedInCaller(alpha.node, carol.user).moderation.safety.block({
      address: 'dave@beta.test',
    });
    const blocks = await signedInCaller(alpha.node, carol.user).messages.blocks();
    // One list: the messages' block list is the same.
    expect(blocks.map((b: { address: string }) => b.address)).toEqual(['dave@beta.test']);
  });
});
