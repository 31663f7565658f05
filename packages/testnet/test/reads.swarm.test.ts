import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authServicesOf, type AuthServices, type SessionUser } from '@swarm/auth';
import type { PostView } from '@swarm/domain';
import {
  createTestNetwork,
  sessionUserByHandle,
  signedInCaller,
  trpcFailure,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';

// What a user of alpha.test reads from the swarm, through alpha's tRPC procedures, with real
// HTTP-shaped exchanges to the other nodes' gateways: remote profiles (read on demand, then kept
// here) and threads, a home timeline with a followed remote user and the swarm feed, both read
// from alpha's database only (no page view asks a peer, even while peers hang or fail).

const ALPHA = 'alpha.test';
const BETA = 'beta.test';
const GAMMA = 'gamma.test';
const HANG = 'hang.test';
const DOWN = 'down.test';

let net: TestNetwork;
let alpha: NetworkNode;
let beta: NetworkNode;
let gamma: NetworkNode;
let alice: SessionUser;
let auth: AuthServices;
/** Post ids by name, on their own node. */
const ids: Record<string, string> = {};

const minutesAgo = (m: number) => new Date(net.clock.now().getTime() - m * 60_000);

const callerAs = (user: SessionUser | null) => signedInCaller(alpha.node, user, { auth });
const codeOf = async (call: Promise<unknown>) => (await trpcFailure(call)).code;

const contents = (posts: PostView[]) => posts.map((p) => p.content);

async function post(
  node: NetworkNode,
  handle: string,
  name: string,
  minutes: number,
  extra: Record<string, unknown> = {},
) {
  const prisma = node.node.db.prisma;
  const author = await prisma.user.findUniqueOrThrow({ where: { handle } });
  const row = await prisma.post.create({
    data: { authorId: author.id, content: name, createdAt: minutesAgo(minutes), ...extra },
  });
  await prisma.user.update({ where: { id: author.id }, data: { postsCount: { increment: 1 } } });
  ids[name] = row.id;
  return row.id;
}

beforeAll(async () => {
  net = await createTestNetwork({
    nodes: [
      { domain: ALPHA, handles: ['alice'] },
      { domain: BETA, handles: ['bob', 'bea'], seeds: [ALPHA] },
      { domain: GAMMA, handles: ['carol'], seeds: [ALPHA] },
      { domain: HANG, handles: ['hal'], seeds: [ALPHA] },
      { domain: DOWN, seeds: [ALPHA] },
    ],
  });
  alpha = net.node(ALPHA);
  beta = net.node(BETA);
  gamma = net.node(GAMMA);
  await net.announceAll(); // alpha now knows the four others as active peers
  auth = authServicesOf(alpha.node);
  alice = await sessionUserByHandle(alpha.node, 'alice');
  await beta.node.db.prisma.user.update({
    where: { handle: 'bob' },
    data: { displayName: 'Bob B.', bio: 'Lives on beta', avatarUrl: 'https://beta.test/bob.png' },
  });

  await post(alpha, 'alice', 'a1', 50);
  await post(beta, 'bob', 'b1', 40);
  await post(gamma, 'carol', 'c1', 30);
  await post(beta, 'bob', 'b2-nsfw', 20, { isNsfw: true });
  await post(gamma, 'carol', 'c2', 10);
  await post(beta, 'bea', 'bea-reply', 8, { replyToId: ids.b1 });
});

afterAll(async () => {
  await net.close();
});

beforeEach(() => net.network.healAll());

describe('remote profiles', () => {
  it('fetches bob@beta.test from his node, marks it remote and caches the actor', async () => {
    const page = await callerAs(alice).profiles.get({ address: `bob@${BETA}` });
    expect(page.isSwarm).toBe(true);
    expect(page.profile).toMatchObject({
      actor: {
        handle: 'bob',
        domain: BETA,
        address: `bob@${BETA}`,
        displayName: 'Bob B.',
        avatarUrl: 'https://beta.test/bob.png',
        isRemote: true,
      },
      bio: 'Lives on beta',
      postsCount: 2,
      did: beta.users.find((u) => u.handle === 'bob')!.did,
      viewer: { isSelf: false, followState: 'none', muted: false, blocked: false },
    });
    expect(contents(page.posts)).toEqual(['b2-nsfw', 'b1']);
    expect(page.posts[1]).toMatchObject({
      id: `swarm:${BETA}:${ids.b1}`,
      path: `/posts/swarm:${BETA}:${ids.b1}`,
      nodeDomain: BETA,
      isRemote: true,
      repliesCount: 0,
      viewer: { liked: false, reposted: false, isOwn: false },
    });

    const stored = await alpha.node.db.prisma.remoteActor.findUniqueOrThrow({
      where: { actorUrl: `swarm://${BETA}/bob` },
    });
    expect(stored).toMatchObject({
      displayName: 'Bob B.',
      bio: 'Lives on beta',
      did: page.profile.did,
    });
    expect(stored.didPinnedAt).not.toBeNull();
    expect(stored.fetchedAt).not.toBeNull();
  });

  it('treats this node’s own domain as local', async () => {
    const page = await callerAs(null).profiles.get({ address: `alice@${ALPHA}` });
    expect(page.isSwarm).toBe(false);
    expect(page.profile.actor).toMatchObject({ address: 'alice', isRemote: false });
  });

  it('maps peer failures: unknown user, then one answer for 5xx, garbage, timeout — and changes nothing', async () => {
    const before = await alpha.node.db.prisma.remoteActor.count();
    const get = (address: string) => codeOf(callerAs(alice).profiles.get({ address }));
    expect(await get(`nobody@${BETA}`)).toBe('NOT_FOUND');
    expect(await get(`someone@${DOWN}`)).toBe('NOT_FOUND');
    net.network.fail5xx(DOWN);
    expect(await get(`someone@${DOWN}`)).toBe('BAD_GATEWAY');
    net.network.garbage(BETA, '{"profile": "not a profile"}');
    expect(await get(`bea@${BETA}`)).toBe('BAD_GATEWAY');
    net.network.hang(HANG);
    // A timeout answers like every other failure: page views must not probe ports.
    expect(await get(`hal@${HANG}`)).toBe('BAD_GATEWAY');
    expect(await get(`ghost@nowhere.test`)).toBe('BAD_GATEWAY'); // no such node at all
    expect(await alpha.node.db.prisma.remoteActor.count()).toBe(before);
  });
});

describe('remote threads', () => {
  const toBeta = () => net.network.requests.filter((r) => r.domain === BETA).length;
  /** Posts made for one test leave both nodes again, so later feeds are as before. */
  const made: string[] = [];
  afterEach(async () => {
    await alpha.node.db.prisma.post.deleteMany({
      where: { apId: { in: made.map((id) => `swarm:${BETA}:${id}`) } },
    });
    await beta.node.db.prisma.post.deleteMany({ where: { id: { in: made.splice(0) } } });
  });

  it('shows a stored remote post from the database, and refreshes a stale copy in the background', async () => {
    const id = `swarm:${BETA}:${ids.b1}`;
    // alice replied to b1 here (a copy row of b1, her reply pointing at it) and beta has a
    // copy of her reply: it must show once, as hers.
    const a = alpha.node.db.prisma;
    const remoteBob = await a.remoteActor.findUniqueOrThrow({
      where: { actorUrl: `swarm://${BETA}/bob` },
    });
    // b1's copy was stored when alice read bob's profile.
    const copy = await a.post.findUniqueOrThrow({ where: { apId: id } });
    expect(copy.remoteAuthorId).toBe(remoteBob.id);
    const reply = await a.post.create({
      data: {
        authorId: alice.id,
        content: 'alice-reply',
        replyToId: copy.id,
        createdAt: minutesAgo(5),
      },
    });
    const b = beta.node.db.prisma;
    const aliceThere = await b.remoteActor.create({
      data: { actorUrl: `swarm://${ALPHA}/alice`, handle: 'alice', nodeDomain: ALPHA },
    });
    await b.post.create({
      data: {
        apId: `swarm:${ALPHA}:${reply.id}`,
        remoteAuthorId: aliceThere.id,
        content: 'alice-reply',
        replyToId: ids.b1,
        createdAt: minutesAgo(5),
      },
    });

    // The copy is fresh: the page is the database's, beta is not asked.
    const asked = toBeta();
    const fresh = await callerAs(alice).threads.get({ id });
    expect(toBeta()).toBe(asked);
    expect(fresh.isSwarm).toBe(true);
    expect(fresh.post).toMatchObject({
      id,
      content: 'b1',
      author: { address: `bob@${BETA}` },
      isRemote: true,
    });
    expect(contents(fresh.replies)).toEqual(['alice-reply']);

    // Stale: answered from the database at once, read again behind it for the next view.
    net.clock.advance(11 * 60_000);
    const stale = await callerAs(alice).threads.get({ id });
    expect(contents(stale.replies)).toEqual(['alice-reply']);
    await alpha.node.threads.settled();
    expect(toBeta()).toBeGreaterThan(asked);

    const thread = await callerAs(alice).threads.get({ id });
    expect(contents(thread.replies)).toEqual(['bea-reply', 'alice-reply']);
    expect(thread.replies[0]).toMatchObject({
      author: { address: `bea@${BETA}`, isRemote: true },
      replyToId: id,
    });
    expect(thread.replies[1]).toMatchObject({
      id: reply.id,
      author: { address: 'alice', isRemote: false },
      viewer: { isOwn: true },
    });

    // Beta down: the stored thread still shows, and nobody waits for beta.
    net.network.drop(BETA);
    const down = await callerAs(null).threads.get({ id });
    expect(contents(down.replies)).toEqual(['bea-reply', 'alice-reply']);
  });

  it('reads a post with no copy while the page waits, in the { post } form, and keeps it', async () => {
    const b3 = await post(beta, 'bob', 'b3', 3);
    made.push(b3);
    const id = `swarm:${BETA}:${b3}`;
    const single = await (await beta.request(`/api/swarm/posts/${b3}`)).json();
    net.clock.advance(2_000); // beta's 1 s read cache
    net.network.garbage(BETA, JSON.stringify({ post: single }));
    const thread = await callerAs(alice).threads.get({ id });
    expect(thread.post.content).toBe('b3');
    expect(thread.replies).toEqual([]); // beta's replies list was garbage
    const kept = await alpha.node.db.prisma.post.findUniqueOrThrow({ where: { apId: id } });
    expect(kept.content).toBe('b3');

    net.network.drop(BETA);
    expect((await callerAs(alice).threads.get({ id })).post.content).toBe('b3');
  });

  it('maps an unknown remote post to NOT_FOUND and a dead node to BAD_GATEWAY when nothing is stored', async () => {
    const get = (id: string) => codeOf(callerAs(alice).threads.get({ id }));
    expect(await get(`swarm:${BETA}:00000000-0000-4000-8000-000000000000`)).toBe('NOT_FOUND');
    const b4 = await post(beta, 'bob', 'b4', 2);
    made.push(b4);
    net.network.drop(BETA);
    expect(await get(`swarm:${BETA}:${b4}`)).toBe('BAD_GATEWAY');
    expect(await alpha.node.db.prisma.post.count({ where: { apId: `swarm:${BETA}:${b4}` } })).toBe(
      0,
    );
  });
});

describe('home timeline with a followed remote user', () => {
  beforeAll(async () => {
    const a = alpha.node.db.prisma;
    const remoteBob = await a.remoteActor.findUniqueOrThrow({
      where: { actorUrl: `swarm://${BETA}/bob` },
    });
    await a.follow.create({
      data: {
        followerKey: `local:${alice.id}`,
        followerUserId: alice.id,
        followeeKey: remoteBob.actorUrl,
        followeeRemoteActorId: remoteBob.id,
        state: 'accepted',
      },
    });
    // alice liked b1: the like points at b1's copy row here.
    const copy = await a.post.findUniqueOrThrow({ where: { apId: `swarm:${BETA}:${ids.b1}` } });
    await a.like.create({
      data: { postId: copy.id, actorKey: `local:${alice.id}`, userId: alice.id },
    });
  });

  it('merges her posts with the stored copies of bob’s, newest first, with her like', async () => {
    const sent = net.network.requests.length;
    const home = await callerAs(alice).timeline.home();
    expect(contents(home.posts)).toEqual(['b2-nsfw', 'b1', 'a1']);
    expect(home).toMatchObject({ followsNobody: false, nextBefore: null });
    expect(home.posts[1]).toMatchObject({
      id: `swarm:${BETA}:${ids.b1}`,
      author: { address: `bob@${BETA}`, isRemote: true },
      viewer: { liked: true, reposted: false, isOwn: false },
    });
    expect(home.posts[2]!.viewer).toEqual({ liked: false, reposted: false, isOwn: true });

    const page = await callerAs(alice).timeline.home({ limit: 1 });
    expect(contents(page.posts)).toEqual(['b2-nsfw']);
    const next = await callerAs(alice).timeline.home({ limit: 5, before: page.nextBefore! });
    expect(contents(next.posts)).toEqual(['b1', 'a1']);
    expect(net.network.requests.length).toBe(sent); // no page view asked a peer
  });

  it('reads no peer: the same page while bob’s node hangs, and his profile from here', async () => {
    net.clock.advance(60 * 60_000);
    net.network.hang(BETA);
    const sent = net.network.requests.length;
    const home = await callerAs(alice).timeline.home();
    expect(contents(home.posts)).toEqual(['b2-nsfw', 'b1', 'a1']);
    // alice follows bob: his profile is kept current by the poller, shown from this database.
    const profile = await callerAs(alice).profiles.get({ address: `bob@${BETA}` });
    expect(contents(profile.posts)).toEqual(['b2-nsfw', 'b1']);
    expect(profile.profile.viewer).toMatchObject({ followState: 'accepted' });
    expect(net.network.requests.length).toBe(sent);
  });
});

describe('swarm feed', () => {
  beforeAll(async () => {
    // carol's posts are kept here once her profile was read (as the crawler would keep them).
    await callerAs(null).profiles.get({ address: `carol@${GAMMA}` });
  });

  it('lists this node’s posts and the stored copies newest first, hides NSFW, asks no peer', async () => {
    net.network.hang(BETA);
    net.network.hang(GAMMA);
    net.network.fail5xx(DOWN);
    const sent = net.network.requests.length;
    const feed = await callerAs(alice).timeline.swarm();
    expect(contents(feed.posts)).toEqual(['c2', 'c1', 'b1', 'a1']);
    expect(feed.hiddenNsfw).toBe(1);
    expect(feed.posts.map((p) => p.id)).toEqual([
      `swarm:${GAMMA}:${ids.c2}`,
      `swarm:${GAMMA}:${ids.c1}`,
      `swarm:${BETA}:${ids.b1}`,
      ids.a1,
    ]);
    expect(feed.posts[2]!.viewer).toEqual({ liked: true, reposted: false, isOwn: false });
    expect(feed.coverage).toEqual({ nodes: 0, newestReadAt: null, oldestReadAt: null });

    const withNsfw = await callerAs({ ...alice, showNsfw: true }).timeline.swarm({ limit: 2 });
    expect(contents(withNsfw.posts)).toEqual(['c2', 'b2-nsfw']);
    expect(withNsfw.hiddenNsfw).toBe(0);
    const older = await callerAs({ ...alice, showNsfw: true }).timeline.swarm({
      before: withNsfw.nextBefore!,
    });
    expect(contents(older.posts)).toEqual(['c1', 'b1', 'a1']);
    const anonymous = await callerAs(null).timeline.swarm();
    expect(contents(anonymous.posts)).toEqual(['c2', 'c1', 'b1', 'a1']);
    expect(anonymous.posts.every((p) => p.viewer === null)).toBe(true);
    expect(net.network.requests.length).toBe(sent);
  });

  it('leaves out the posts of a node blocked here, and copies deleted here', async () => {
    await alpha.node.registryAdmin.blockNode(GAMMA, 'test');
    const copy = await alpha.node.db.prisma.post.update({
      where: { apId: `swarm:${BETA}:${ids.b1}` },
      data: { deletedAt: net.clock.now() },
    });
    const feed = await callerAs(null).timeline.swarm();
    expect(contents(feed.posts)).toEqual(['a1']);
    await alpha.node.db.prisma.post.update({ where: { id: copy.id }, data: { deletedAt: null } });
    await alpha.node.registryAdmin.unblockNode(GAMMA);
  });
});
