import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionUser } from '@swarm/auth';
import {
  SWARM_PATHS,
  formatTimestamp,
  generateSigningKeyPair,
  signNodeRequest,
  signUserAction,
} from '@swarm/contract';
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

// Undoing a repost across two nodes of our profile: alice on alpha.test reposts bob's post on
// beta.test and takes it back, through her front door (tRPC) and alpha's outbox, over real
// gateways with node and user signatures. Then what beta refuses: a replayed request, a forged
// user signature, another node's user, and an unsigned undo; each changes nothing there.

let net: TestNetwork;
let alpha: NetworkNode;
let beta: NetworkNode;
let alice: KeyedUser;
let carol: KeyedUser;
let bob: SessionUser;

const PATH = SWARM_PATHS.interaction('unrepost');
const asAlice = (who: KeyedUser = alice) => signedInCaller(alpha.node, who.user);
const signed = (kind: 'repost' | 'unrepost', postId: string, who: KeyedUser = alice) =>
  signedInteraction(asAlice(who), who.privateKey, kind, postId);

async function bobPosts(content: string) {
  const { post } = await signedInCaller(beta.node, bob).posts.create({ content });
  return { id: post.id, remoteId: `swarm:${B}:${post.id}` };
}

/** What beta holds of a post's reposts. */
async function onBeta(postId: string) {
  const prisma = beta.node.db.prisma;
  const post = await prisma.post.findUniqueOrThrow({
    where: { id: postId },
    select: { repostsCount: true },
  });
  return {
    count: post.repostsCount,
    rows: await prisma.repost.findMany({ where: { postId }, select: { actorKey: true } }),
    notifications: await prisma.notification.count({ where: { postId, type: 'repost' } }),
    ledger: await prisma.inboundInteraction.count(),
  };
}

/** An unrepost POSTed to beta as alpha's gateway would send it, node-signed by alpha. */
async function nodeSigned(body: Record<string, unknown>) {
  const text = JSON.stringify(body);
  const headers = await signNodeRequest({
    privateKey: alpha.node.keys.privateKey,
    method: 'POST',
    path: PATH,
    sourceDomain: A,
    targetDomain: B,
    body: text,
    now: net.clock.now(),
  });
  return { headers: { 'content-type': 'application/json', ...headers }, body: text };
}

const post = (request: { headers: Record<string, string>; body: string }) =>
  beta.request(PATH, { method: 'POST', ...request });

beforeAll(async () => {
  ({ net, alpha, beta } = await createTwoNodes({ beta: { handles: ['bob'] } }));
  alice = await insertKeyedUser(alpha.node, 'alice');
  carol = await insertKeyedUser(alpha.node, 'carol');
  bob = await sessionUserByHandle(beta.node, 'bob');
});
afterAll(() => net.close());

describe('alice on alpha undoes her repost of bob’s post on beta', () => {
  it('beta advertises the capability', async () => {
    const info = await (await beta.request(SWARM_PATHS.info)).json();
    expect(info.capabilities).toContain('unrepost');
  });

  it('the count goes back on beta, the repost is gone on both nodes, a repeat is a no-op', async () => {
    const target = await bobPosts('to repost and take back');
    const repost = await signed('repost', target.remoteId);
    await asAlice().interactions.repost({ postId: target.remoteId, signed: repost });
    expect(await onBeta(target.id)).toMatchObject({ count: 1, notifications: 1 });
    const repostId = (repost.body.repost as { repostId: string }).repostId;
    expect(await alpha.node.db.prisma.post.count({ where: { id: repostId } })).toBe(1);
    const reposted = (await asAlice().timeline.home()).posts;
    expect(reposted.filter((p) => p.repostedBy?.handle === 'alice')).toHaveLength(1);

    const undone = await asAlice().interactions.unrepost({
      postId: target.remoteId,
      signed: await signed('unrepost', target.remoteId),
    });
    expect(undone.delivery).toMatchObject({
      kind: 'unrepost',
      targetDomain: B,
      status: 'delivered',
    });
    expect(await onBeta(target.id)).toMatchObject({ count: 0, rows: [], notifications: 0 });
    // Alpha: no repost row, and her repost's own post (what showed it in feeds) is gone.
    expect(await alpha.node.db.prisma.post.count({ where: { id: repostId } })).toBe(0);
    const home = await asAlice().timeline.home();
    expect(home.posts.filter((p) => p.repostedBy?.handle === 'alice')).toEqual([]);
    const copy = await asAlice().threads.get({ id: target.remoteId });
    expect(copy.post.viewer?.reposted).toBe(false);

    // Again, and of a post never reposted: answered, nothing sent, nothing changed.
    const sent = net.network.requests.filter((r) => r.path === PATH).length;
    for (const postId of [target.remoteId, (await bobPosts('never reposted')).remoteId]) {
      const again = await asAlice().interactions.unrepost({
        postId,
        signed: await signed('unrepost', postId),
      });
      expect(again).toEqual({ delivery: null });
    }
    expect(net.network.requests.filter((r) => r.path === PATH).length).toBe(sent);
    expect((await onBeta(target.id)).count).toBe(0);
  });

  it('a peer that does not advertise `unrepost` is not sent one: it keeps its count', async () => {
    const target = await bobPosts('reposted before the undo existed');
    await asAlice().interactions.repost({
      postId: target.remoteId,
      signed: await signed('repost', target.remoteId),
    });
    // Alpha's registry row for beta, as a node from before the capability would have it.
    const nodes = alpha.node.db.prisma.swarmNode;
    const older = JSON.stringify(['handles', 'gossip', 'interactions']);
    await nodes.upsert({
      where: { domain: B },
      create: { domain: B, discoveredVia: 'manual', capabilities: older },
      update: { capabilities: older },
    });
    try {
      const sent = net.network.requests.filter((r) => r.path === PATH).length;
      const undone = await asAlice().interactions.unrepost({
        postId: target.remoteId,
        signed: await signed('unrepost', target.remoteId),
      });
      expect(undone).toEqual({ delivery: null });
      expect(net.network.requests.filter((r) => r.path === PATH).length).toBe(sent);
      expect((await onBeta(target.id)).count).toBe(1);
      const copy = await asAlice().threads.get({ id: target.remoteId });
      expect(copy.post.viewer?.reposted).toBe(false);
    } finally {
      await nodes.update({ where: { domain: B }, data: { capabilities: '[]' } });
    }
  });

  it('beta refuses a replayed, forged, foreign or unsigned unrepost and changes nothing', async () => {
    const target = await bobPosts('guarded repost');
    await asAlice().interactions.repost({
      postId: target.remoteId,
      signed: await signed('repost', target.remoteId),
    });
    const body = {
      postId: target.id,
      unrepost: {
        actorHandle: 'alice',
        actorNodeDomain: A,
        interactionId: crypto.randomUUID(),
        timestamp: formatTimestamp(net.clock.now()),
      },
    };
    const userSigned = async (privateKey: CryptoKey, unsigned: Record<string, unknown>) => ({
      ...unsigned,
      signature: await signUserAction({
        privateKey,
        action: 'unrepost',
        targetDomain: B,
        body: unsigned,
      }),
    });
    const before = await onBeta(target.id);
    expect(before.count).toBe(1);

    // Another key than alice's.
    const stranger = await generateSigningKeyPair();
    const forged = await post(await nodeSigned(await userSigned(stranger.privateKey, body)));
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ code: 'INVALID_SIGNATURE' });
    // Carol's key over a body naming alice; and a user of another node, sent by alpha.
    expect((await post(await nodeSigned(await userSigned(carol.privateKey, body)))).status).toBe(
      401,
    );
    const foreign = { ...body, unrepost: { ...body.unrepost, actorNodeDomain: 'gamma.test' } };
    const answer = await post(await nodeSigned(await userSigned(alice.privateKey, foreign)));
    expect(answer.status).toBe(403);
    // No user signature at all.
    const unsigned = await post(await nodeSigned(body));
    expect(unsigned.status).toBe(401);
    expect(await onBeta(target.id)).toEqual(before);

    // A valid request goes through once; the same request again (its nonce) is refused.
    const request = await nodeSigned(await userSigned(alice.privateKey, body));
    expect((await post(request)).status).toBe(200);
    const afterOne = await onBeta(target.id);
    expect(afterOne.count).toBe(0);
    const replayed = await post(request);
    expect(replayed.status).toBe(401);
    expect(await onBeta(target.id)).toEqual(afterOne);
  });
});
