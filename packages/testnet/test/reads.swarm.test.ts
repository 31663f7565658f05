import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authServicesOf, type AuthServices, type SessionUser } from '@swarm/auth';
import { PEER_READ_DEFAULTS, type PostView } from '@swarm/domain';
import {
  createTestNetwork,
  sessionUserByHandle,
  signedInCaller,
  trpcFailure,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';

// What a user of alpha.test reads from the swarm, through alpha's tRPC procedures, with real
// HTTP-shaped exchanges to the other nodes' gateways: remote profiles and threads, a home
// timeline with a followed remote user, and the swarm feed across five nodes of which one
// hangs and one answers 503 (per-peer budget, cache and circuit breaker on alpha's clock).

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

/** Requests alpha sent to `domain` for `path` so far. */
const asked = (domain: string, path: string) =>
  net.network.requests.filter((r) => r.domain === domain && r.path === path).length;

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
    expect(await get(`bob@${BETA}`)).toBe('BAD_GATEWAY');
    net.network.hang(HANG);
    // A timeout answers like every other failure: page views must not probe ports.
    expect(await get(`hal@${HANG}`)).toBe('BAD_GATEWAY');
    expect(await get(`ghost@nowhere.test`)).toBe('BAD_GATEWAY'); // no such node at all
    expect(await alpha.node.db.prisma.remoteActor.count()).toBe(before);
  });
});

describe('remote threads', () => {
  it('shows a remote post with its replies, ours from our own rows', async () => {
    const id = `swarm:${BETA}:${ids.b1}`;
    // alice replied to b1 here (a copy row of b1, her reply pointing at it) and beta has a
    // copy of her reply: it must show once, as hers.
    const a = alpha.node.db.prisma;
    const remoteBob = await a.remoteActor.findUniqueOrThrow({
      where: { actorUrl: `swarm://${BETA}/bob` },
    });
    const copy = await a.post.create({
      data: { apId: id, remoteAuthorId: remoteBob.id, content: 'b1', createdAt: minutesAgo(40) },
    });
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
    net.clock.advance(2_000); // beta's 1 s read cache

    const thread = await callerAs(alice).threads.get({ id });
    expect(thread.isSwarm).toBe(true);
    expect(thread.post).toMatchObject({
      id,
      content: 'b1',
      author: { address: `bob@${BETA}` },
      isRemote: true,
    });
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
  });

  it('reads the { post } form, and still answers when the replies cannot be read', async () => {
    const single = await (await beta.request(`/api/swarm/posts/${ids.b1}`)).json();
    net.network.garbage(BETA, JSON.stringify({ post: single }));
    const thread = await callerAs(alice).threads.get({ id: `swarm:${BETA}:${ids.b1}` });
    expect(thread.post.content).toBe('b1');
    expect(contents(thread.replies)).toEqual(['alice-reply']); // ours; beta's list was garbage
  });

  it('maps an unknown remote post to NOT_FOUND and a dead node to BAD_GATEWAY', async () => {
    const get = (id: string) => codeOf(callerAs(alice).threads.get({ id }));
    expect(await get(`swarm:${BETA}:00000000-0000-4000-8000-000000000000`)).toBe('NOT_FOUND');
    net.network.drop(BETA);
    expect(await get(`swarm:${BETA}:${ids.b1}`)).toBe('BAD_GATEWAY');
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

  it('merges her posts with bob’s from beta, newest first, with her like', async () => {
    const home = await callerAs(alice).timeline.home();
    expect(contents(home.posts)).toEqual(['b2-nsfw', 'b1', 'a1']);
    expect(home).toMatchObject({ followsNobody: false, unreachable: [], nextBefore: null });
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
  });

  it('still answers when bob’s node hangs, naming it', async () => {
    net.clock.advance(PEER_READ_DEFAULTS.cacheTtlMs + 1); // past the cached answer
    net.network.hang(BETA);
    const home = await callerAs(alice).timeline.home();
    expect(contents(home.posts)).toEqual(['a1']);
    expect(home.unreachable).toEqual([BETA]);
  });
});

describe('swarm feed', () => {
  it('merges every node’s timeline newest first, hides NSFW, names the nodes that failed', async () => {
    net.clock.advance(PEER_READ_DEFAULTS.cacheTtlMs + 1);
    net.network.hang(HANG);
    net.network.fail5xx(DOWN);
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
    expect([...feed.unreachable].sort()).toEqual([DOWN, HANG]);
    const byDomain = new Map(feed.nodes.map((n) => [n.domain, n]));
    expect([...byDomain.keys()].sort()).toEqual([ALPHA, BETA, DOWN, GAMMA, HANG]);
    expect(byDomain.get(BETA)).toMatchObject({ ok: true });
    expect(byDomain.get(HANG)).toMatchObject({ ok: false, error: expect.stringContaining('1.5') });
    expect(byDomain.get(DOWN)).toMatchObject({ ok: false, error: expect.stringContaining('503') });

    // Back to health (their breakers close again), then the same feed for other viewers.
    net.network.heal(HANG);
    net.network.heal(DOWN);
    const withNsfw = await callerAs({ ...alice, showNsfw: true }).timeline.swarm({ limit: 2 });
    expect(contents(withNsfw.posts)).toEqual(['c2', 'b2-nsfw']);
    expect(withNsfw.hiddenNsfw).toBe(0);
    const anonymous = await callerAs(null).timeline.swarm();
    expect(contents(anonymous.posts)).toEqual(['c2', 'c1', 'b1', 'a1']);
    expect(anonymous.posts.every((p) => p.viewer === null)).toBe(true);
  });

  it('serves peers from a short cache, and deduplicates', async () => {
    net.clock.advance(PEER_READ_DEFAULTS.cacheTtlMs + 1);
    // gamma lists c2 twice (a peer's mistake): shown once.
    const timeline = await (await gamma.request('/api/swarm/timeline')).json();
    net.network.garbage(
      GAMMA,
      JSON.stringify({ ...timeline, posts: [...timeline.posts, timeline.posts[0]] }),
    );
    const first = await callerAs(alice).timeline.swarm();
    expect(contents(first.posts)).toEqual(['c2', 'c1', 'b1', 'a1']);
    const betaAsked = asked(BETA, '/api/swarm/timeline');
    net.clock.advance(PEER_READ_DEFAULTS.cacheTtlMs - 1_000);
    await post(beta, 'bob', 'b3', 0);
    const cached = await callerAs(alice).timeline.swarm();
    expect(asked(BETA, '/api/swarm/timeline')).toBe(betaAsked);
    expect(contents(cached.posts)).not.toContain('b3');
    net.clock.advance(2_000);
    const fresh = await callerAs(alice).timeline.swarm();
    expect(asked(BETA, '/api/swarm/timeline')).toBe(betaAsked + 1);
    expect(contents(fresh.posts)[0]).toBe('b3');
  });

  it('opens a breaker after repeated failures, skips the peer, then tries again', async () => {
    net.network.hang(HANG);
    net.network.fail5xx(DOWN);
    // Both answered in the previous test (breakers closed); past their cached answers, fail
    // them up to the threshold, then the next call must not ask them at all.
    net.clock.advance(PEER_READ_DEFAULTS.cacheTtlMs + 1);
    for (let i = 0; i < PEER_READ_DEFAULTS.failureThreshold; i++) {
      await callerAs(alice).timeline.swarm();
    }
    const hangAsked = asked(HANG, '/api/swarm/timeline');
    const downAsked = asked(DOWN, '/api/swarm/timeline');
    const skipped = await callerAs(alice).timeline.swarm();
    expect(asked(HANG, '/api/swarm/timeline')).toBe(hangAsked);
    expect(asked(DOWN, '/api/swarm/timeline')).toBe(downAsked);
    expect([...skipped.unreachable].sort()).toEqual([DOWN, HANG]);
    const hangNode = skipped.nodes.find((n) => n.domain === HANG)!;
    expect(hangNode).toMatchObject({ ok: false, ms: 0, error: expect.stringContaining('skipped') });
    expect(contents(skipped.posts)).toContain('c2');

    // After the cool-down: one trial each. down.test is back, hang.test still hangs.
    net.clock.advance(PEER_READ_DEFAULTS.coolDownMs);
    net.network.heal(DOWN);
    const trial = await callerAs(alice).timeline.swarm();
    expect(asked(HANG, '/api/swarm/timeline')).toBe(hangAsked + 1);
    expect(asked(DOWN, '/api/swarm/timeline')).toBe(downAsked + 1);
    expect(trial.unreachable).toEqual([HANG]);
    expect(trial.nodes.find((n) => n.domain === DOWN)).toMatchObject({ ok: true });

    // hang.test failed its trial: open again at once, skipped on the next call.
    await callerAs(alice).timeline.swarm();
    expect(asked(HANG, '/api/swarm/timeline')).toBe(hangAsked + 1);
  });
});
