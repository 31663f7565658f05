import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionUser } from '@swarm/auth';
import { SWARM_PATHS, peerSwarmUserResponseSchema } from '@swarm/contract';
import { createRemoteContentWorker, type RemoteContentWorker } from '@swarm/domain';
import {
  createTestNetwork,
  insertKeyedUser,
  sessionUserByHandle,
  signedInCaller,
  signedInteraction,
  type KeyedUser,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';

// Reposts by people of our nodes reach their followers' nodes by the poll path (docs/protocol.md
// "Public reads", docs/architecture.md "Reposts"): bob on beta reposts a post of bea (his own
// node), of carl (gamma) and of alice (alpha); alice on alpha follows bob, and alpha's poller
// reads bob's list from beta, asking for reposts. The originals come from their own nodes. One
// network for the file, on its manual clock; everything through front doors and real gateways.

const A = 'alpha.test';
const B = 'beta.test';
const C = 'gamma.test';

let net: TestNetwork;
let alpha: NetworkNode;
let beta: NetworkNode;
let gamma: NetworkNode;
let worker: RemoteContentWorker;
let alice: KeyedUser;
let bob: KeyedUser;
let bea: SessionUser;
let carl: SessionUser;

const asAlice = () => signedInCaller(alpha.node, alice.user);
const asBob = () => signedInCaller(beta.node, bob.user);

/** A post by `who` on `node`, a second after the last thing written (entries in time order). */
async function write(node: NetworkNode, who: SessionUser, content: string, followers = false) {
  net.clock.advance(1_000);
  const { post } = await signedInCaller(node.node, who).posts.create({
    content,
    ...(followers ? { visibility: 'followers' as const } : {}),
  });
  return { id: post.id, remoteId: `swarm:${node.domain}:${post.id}` };
}

/** bob reposts: a post of his node directly, another node's with his signature. */
async function bobReposts(postId: string, remote: boolean) {
  net.clock.advance(1_000);
  const signed = remote ? await signedInteraction(asBob(), bob.privateKey, 'repost', postId) : null;
  await asBob().interactions.repost({ postId, ...(signed ? { signed } : {}) });
}

/** alice's home on alpha: content → who reposted it (null: a post of its own). */
async function aliceHome() {
  const home = await asAlice().timeline.home();
  return home.posts.map((p) => [p.content, p.repostedBy?.address ?? null]);
}

/** alpha reads bob again once his row is due (past the reader's cache). */
async function pollBob() {
  const row = await alpha.node.db.prisma.remoteAuthorPoll.findFirstOrThrow({
    where: { remoteActor: { handle: 'bob', nodeDomain: B } },
  });
  net.clock.set(new Date(Math.max(row.nextPollAt.getTime(), net.clock.now().getTime() + 60_000)));
  await worker.pollAll();
}

/** bob's list as beta answers it, with or without reposts. */
async function bobsList(reposts: boolean) {
  const path = reposts ? SWARM_PATHS.userEntries('bob', 20) : `${SWARM_PATHS.user('bob')}?limit=20`;
  const response = await beta.request(path);
  expect(response.status).toBe(200);
  return (await response.json()) as { posts: { content: string; repostOfId?: string | null }[] };
}

let beaPost: { id: string; remoteId: string };
let carlPost: { id: string; remoteId: string };
let alicePost: { id: string; remoteId: string };

beforeAll(async () => {
  net = await createTestNetwork({
    nodes: [
      { domain: A },
      { domain: B, handles: ['bea'], seeds: [A] },
      { domain: C, handles: ['carl'], seeds: [A] },
    ],
  });
  alpha = net.node(A);
  beta = net.node(B);
  gamma = net.node(C);
  await net.announceAll();
  await net.roundsUntilConverged(5);
  alice = await insertKeyedUser(alpha.node, 'alice');
  bob = await insertKeyedUser(beta.node, 'bob');
  bea = await sessionUserByHandle(beta.node, 'bea');
  carl = await sessionUserByHandle(gamma.node, 'carl');
  worker = createRemoteContentWorker({ node: alpha.node });

  await write(beta, bob.user, 'bob writes');
  beaPost = await write(beta, bea, 'bea writes');
  carlPost = await write(gamma, carl, 'carl writes');
  alicePost = await write(alpha, alice.user, 'alice writes');
  await bobReposts(beaPost.id, false);
  await bobReposts(carlPost.remoteId, true);
  await bobReposts(alicePost.remoteId, true);
  const follow = await asAlice().interactions.follow({ address: `bob@${B}` });
  expect(follow.delivery).toMatchObject({ status: 'delivered' });
});
afterAll(async () => {
  await worker?.stop();
  await net?.close();
});

describe('bob’s list on beta', () => {
  it('names his reposts, newest first among his posts, only for readers that ask', async () => {
    const asked = await bobsList(true);
    expect(asked.posts.map((p) => [p.content, p.repostOfId ?? null])).toEqual([
      ['', alicePost.remoteId],
      ['', carlPost.remoteId],
      ['', beaPost.id], // an id on beta: bea's post is beta's own
      ['bob writes', null],
    ]);
    // Older readers of ours and origin nodes ask without `reposts`: nothing changes for them.
    const plain = await bobsList(false);
    expect(plain.posts.map((p) => p.content)).toEqual(['bob writes']);
    expect(plain.posts[0]).not.toHaveProperty('repostOfId');
    // A reader keeps them apart (`reposts`), never as empty posts.
    const kept = peerSwarmUserResponseSchema.parse(asked);
    expect(kept.posts.map((p) => p.content)).toEqual(['bob writes']);
    expect(kept.reposts.map((r) => r.repostOfId)).toEqual([
      alicePost.remoteId,
      carlPost.remoteId,
      beaPost.id,
    ]);
  });
});

describe('alice on alpha, following bob', () => {
  it('sees his reposts after alpha polls him; the originals come from their own nodes', async () => {
    const mark = net.network.requests.length;
    await worker.pollAll();
    const asked = net.network.requests.slice(mark).map((r) => `${r.method} ${r.domain}${r.path}`);
    expect(asked).toContain(`GET ${B}${SWARM_PATHS.user('bob')}`);
    expect(asked).toContain(`GET ${B}${SWARM_PATHS.post(beaPost.id)}`);
    expect(asked).toContain(`GET ${C}${SWARM_PATHS.post(carlPost.id)}`);
    // Never the reposter's node for another node's post.
    expect(asked).not.toContain(`GET ${B}${SWARM_PATHS.post(carlPost.id)}`);

    const home = await aliceHome();
    expect(home).toEqual(
      expect.arrayContaining([
        ['alice writes', `bob@${B}`],
        ['carl writes', `bob@${B}`],
        ['bea writes', `bob@${B}`],
        ['bob writes', null],
      ]),
    );
    // alice's own post is the original here: bob's repost points at it, not at a copy.
    const repostOfAlice = await alpha.node.db.prisma.post.findFirst({
      where: { remoteAuthor: { handle: 'bob', nodeDomain: B }, repostOfId: alicePost.id },
    });
    expect(repostOfAlice).not.toBeNull();
  });

  it('no longer sees one bob took back on beta, after the next poll', async () => {
    net.clock.advance(1_000);
    await asBob().interactions.unrepost({
      postId: carlPost.remoteId,
      signed: await signedInteraction(asBob(), bob.privateKey, 'unrepost', carlPost.remoteId),
    });
    expect((await bobsList(true)).posts.map((p) => p.repostOfId ?? null)).not.toContain(
      carlPost.remoteId,
    );
    expect(await aliceHome()).toContainEqual(['carl writes', `bob@${B}`]);

    await pollBob();
    const home = await aliceHome();
    expect(home).not.toContainEqual(['carl writes', `bob@${B}`]);
    expect(home).toContainEqual(['bea writes', `bob@${B}`]);
  });

  it('never gets a repost of a followers-only post: beta does not list it', async () => {
    const hidden = await write(beta, bea, 'bea for her followers', true);
    await bobReposts(hidden.id, false);
    const listed = await bobsList(true);
    expect(listed.posts.map((p) => p.repostOfId ?? null)).not.toContain(hidden.id);
    expect(listed.posts.map((p) => p.repostOfId ?? null)).toContain(beaPost.id);

    await pollBob();
    const home = await aliceHome();
    expect(home.map(([content]) => content)).not.toContain('bea for her followers');
    expect(
      await alpha.node.db.prisma.post.count({ where: { apId: `swarm:${B}:${hidden.id}` } }),
    ).toBe(0);
  });
});
