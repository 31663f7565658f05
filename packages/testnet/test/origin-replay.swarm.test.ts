import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWARM_PATHS } from '@swarm/contract';
import { ORIGIN_CONFIRMATION } from '@swarm/domain';
import {
  createManualClock,
  insertKeyedUser,
  signedInCaller,
  startOriginPeer,
  type KeyedUser,
  type OriginPeer,
} from './harness.ts';
import { ourNodeOnPort, type OurNode } from './origin-harness.ts';

// Issue 22 item 2: a body an origin-profile node signed binds no target node, so a follow signed
// for bob@B, replayed byte for byte to A, would make A's bob gain a follower. Two of our nodes
// (A and B, in-process gateways on loopback ports) and a fake origin node over real HTTP: what
// the origin sends is held until its own public data (`following`, the post) confirms it.

const clock = createManualClock(new Date());
/** Small bounds on A, so that a flood reaches them in a few requests. */
const A_BOUNDS = { maxPendingPerNode: 12, fetchesPerNodePerMinute: 4 };
let a: OurNode;
let b: OurNode;
let origin: OriginPeer;
const people = new Map<string, KeyedUser>();

const person = (node: OurNode, handle: string) => people.get(`${handle}@${node.domain}`)!;

async function followersCount(node: OurNode, handle: string) {
  const row = await node.t.node.db.prisma.user.findUniqueOrThrow({ where: { handle } });
  return row.followersCount;
}

async function notifications(node: OurNode, handle: string, type: 'follow' | 'mention' | 'reply') {
  return node.t.node.db.prisma.notification.findMany({
    where: { recipient: { handle }, type },
  });
}

const heldOn = (node: OurNode) => node.t.node.db.prisma.originPendingEffect.count();

/** The first look at held effects is due after the settling delay. */
async function confirmHeld(node: OurNode) {
  clock.advance(ORIGIN_CONFIRMATION.firstAttemptDelayMs);
  await node.confirmHeld();
}

const followingReads = () => origin.gets.filter((path) => path.includes('/following')).length;

beforeAll(async () => {
  a = await ourNodeOnPort(clock, {}, { originConfirmation: A_BOUNDS });
  b = await ourNodeOnPort(clock);
  origin = await startOriginPeer({
    users: [
      { handle: 'olga', displayName: 'Olga' },
      { handle: 'oscar', displayName: 'Oscar' },
    ],
    now: () => clock.now(),
  });
  for (const node of [a, b]) {
    for (const handle of ['bob', 'carol', 'dave']) {
      people.set(`${handle}@${node.domain}`, await insertKeyedUser(node.t.node, handle));
    }
  }
}, 240_000);

afterAll(async () => {
  await origin?.close();
  await a?.close();
  await b?.close();
});

describe('a follow signed by an origin node', () => {
  let captured: Record<string, unknown>;

  it('a genuine follow of bob@B appears once the origin lists it under olga’s following', async () => {
    const follow = await origin.interact(b.domain, 'follow', { actor: 'olga', target: 'bob' });
    expect(follow).toMatchObject({ status: 200, body: { message: 'Follow received' } });
    captured = follow.sent;
    // Held: not counted, not notified, not listed.
    expect(await followersCount(b, 'bob')).toBe(0);
    expect(await notifications(b, 'bob', 'follow')).toHaveLength(0);
    expect(await heldOn(b)).toBe(1);
    // The origin retries: held once.
    await origin.post(b.domain, SWARM_PATHS.interaction('follow'), captured);
    expect(await heldOn(b)).toBe(1);

    await confirmHeld(b);
    expect(await followersCount(b, 'bob')).toBe(1);
    expect(await notifications(b, 'bob', 'follow')).toHaveLength(1);
    const list = (await (await b.t.request(SWARM_PATHS.followers('bob'))).json()) as {
      followers: { handle: string }[];
    };
    expect(list.followers.map((f) => f.handle)).toEqual([`olga@${origin.domain}`]);
    expect(await heldOn(b)).toBe(0);
    // A repeat after it was applied is answered from the ledger, held no more.
    await origin.post(b.domain, SWARM_PATHS.interaction('follow'), captured);
    expect(await heldOn(b)).toBe(0);
    expect(await followersCount(b, 'bob')).toBe(1);
  }, 120_000);

  it('the same signed body replayed to A: answered as usual, nothing shown, then dropped', async () => {
    const reads = followingReads();
    const replayed = await origin.post(a.domain, SWARM_PATHS.interaction('follow'), captured);
    expect(replayed).toMatchObject({ status: 200, body: { message: 'Follow received' } });
    expect(await followersCount(a, 'bob')).toBe(0);
    expect(await heldOn(a)).toBe(1);

    await confirmHeld(a);
    // olga's following names bob@B, not bob@A: dropped, never shown.
    expect(await heldOn(a)).toBe(0);
    expect(await followersCount(a, 'bob')).toBe(0);
    expect(await notifications(a, 'bob', 'follow')).toHaveLength(0);
    expect(await a.t.node.db.prisma.follow.count()).toBe(0);
    expect(followingReads()).toBe(reads + 1);
  }, 120_000);
});

describe('a mention and a reply signed by an origin node', () => {
  it('a mention of bob@B notifies B’s bob after its post is read; replayed to A it is dropped', async () => {
    const mention = await origin.interact(b.domain, 'mention', {
      actor: 'oscar',
      target: 'bob',
      postContent: `hello @bob@${b.domain}!`,
    });
    expect(mention).toMatchObject({ status: 200, body: { message: 'Mention received' } });
    expect(await notifications(b, 'bob', 'mention')).toHaveLength(0);
    await confirmHeld(b);
    expect(await notifications(b, 'bob', 'mention')).toEqual([
      expect.objectContaining({ actorHandle: 'oscar', content: `hello @bob@${b.domain}!` }),
    ]);

    const replayed = await origin.post(a.domain, SWARM_PATHS.interaction('mention'), mention.sent);
    expect(replayed.status).toBe(200);
    await confirmHeld(a);
    expect(await notifications(a, 'bob', 'mention')).toHaveLength(0);
    expect(await heldOn(a)).toBe(0);
  }, 120_000);

  it('a reply appears once its post is on the origin; replayed to A it finds no parent (404)', async () => {
    const carol = person(b, 'carol');
    const { post } = await signedInCaller(b.t.node, carol.user).posts.create({ content: 'hi' });
    const reply = await origin.reply(b.domain, { actor: 'olga', postId: post.id, content: 'yo' });
    expect(reply).toMatchObject({ status: 200, body: { success: true } });
    const replies = async () =>
      (
        (await (await b.t.request(`${SWARM_PATHS.replies}?postId=${post.id}`)).json()) as {
          replies: { id: string; content: string }[];
        }
      ).replies;
    expect(await replies()).toEqual([]);
    await confirmHeld(b);
    expect(await replies()).toEqual([
      expect.objectContaining({ id: (reply.body as { replyId: string }).replyId, content: 'yo' }),
    ]);
    expect(await notifications(b, 'carol', 'reply')).toHaveLength(1);

    const replayed = await origin.post(a.domain, SWARM_PATHS.replies, reply.sent, {
      'X-Swarm-Source-Domain': origin.domain,
      'X-Swarm-Signature': origin.sign(reply.sent),
    });
    expect(replayed).toMatchObject({ status: 404, body: { code: 'POST_NOT_FOUND' } });
    expect(await heldOn(a)).toBe(0);
  }, 120_000);

  it('a reply the origin no longer has (deleted before we looked) is dropped', async () => {
    const carol = person(b, 'carol');
    const { post } = await signedInCaller(b.t.node, carol.user).posts.create({ content: 'again' });
    const id = randomUUID();
    const reply = await origin.reply(b.domain, {
      actor: 'olga',
      postId: post.id,
      content: 'x',
      id,
    });
    expect(reply.status).toBe(200);
    origin.posts.delete(id);
    await confirmHeld(b);
    expect(await heldOn(b)).toBe(0);
    const row = await b.t.node.db.prisma.post.findUniqueOrThrow({ where: { id: post.id } });
    expect(row.repliesCount).toBe(0);
  }, 120_000);
});

describe('bounds on what cannot be confirmed', () => {
  it('a flood of signed follows by people the origin does not have: queue and fetches bounded', async () => {
    clock.advance(60_000); // a full minute's budget (the replays above used some)
    // Captured bodies of many actors (each needs its own `following` read), all to A's dave.
    const bodies = Array.from({ length: A_BOUNDS.maxPendingPerNode + 4 }, (_, i) =>
      origin.signBody({
        targetHandle: 'dave',
        follow: {
          followerHandle: `ghost${i}`,
          followerDisplayName: `Ghost ${i}`,
          followerNodeDomain: origin.domain,
          interactionId: randomUUID(),
          timestamp: clock.now().toISOString(),
        },
      }),
    );
    const statuses: number[] = [];
    for (const body of bodies) {
      statuses.push((await origin.post(a.domain, SWARM_PATHS.interaction('follow'), body)).status);
    }
    // The queue per sending node is full after maxPendingPerNode: 429 RATE_LIMITED.
    expect(statuses.filter((s) => s === 200)).toHaveLength(A_BOUNDS.maxPendingPerNode);
    expect(statuses.filter((s) => s === 429)).toHaveLength(4);
    expect(await heldOn(a)).toBe(A_BOUNDS.maxPendingPerNode);

    const before = followingReads();
    await confirmHeld(a);
    // One minute's budget of reads, no more, however many are due.
    expect(followingReads() - before).toBeLessThanOrEqual(A_BOUNDS.fetchesPerNodePerMinute);
    let reads = followingReads();
    for (let minute = 0; minute < 30 && (await heldOn(a)) > 0; minute++) {
      clock.advance(60_000);
      await a.confirmHeld();
      expect(followingReads() - reads).toBeLessThanOrEqual(A_BOUNDS.fetchesPerNodePerMinute);
      reads = followingReads();
    }
    // Each held follow read once, all refuted (404: no such user there), none shown.
    expect(await heldOn(a)).toBe(0);
    expect(followingReads() - before).toBe(A_BOUNDS.maxPendingPerNode);
    expect(await followersCount(a, 'dave')).toBe(0);
    expect(await notifications(a, 'dave', 'follow')).toHaveLength(0);
  }, 120_000);

  it('the origin down: kept while it may come back, applied when it answers', async () => {
    const follow = await origin.interact(a.domain, 'follow', { actor: 'oscar', target: 'carol' });
    expect(follow.status).toBe(200);
    origin.down = true;
    try {
      await confirmHeld(a);
      expect(await heldOn(a)).toBe(1);
      clock.advance(10 * 60_000);
      await a.confirmHeld();
      expect(await heldOn(a)).toBe(1);
      expect(await followersCount(a, 'carol')).toBe(0);
    } finally {
      origin.down = false;
    }
    clock.advance(10 * 60_000);
    await a.confirmHeld();
    expect(await heldOn(a)).toBe(0);
    expect(await followersCount(a, 'carol')).toBe(1);
  }, 120_000);

  it('the origin down for longer than the waiting time: dropped, nothing shown', async () => {
    const follow = await origin.interact(a.domain, 'follow', { actor: 'olga', target: 'carol' });
    expect(follow.status).toBe(200);
    origin.down = true;
    try {
      const reads = followingReads();
      await confirmHeld(a);
      for (let waited = 0; waited <= ORIGIN_CONFIRMATION.maxPendingMs; waited += 10 * 60_000) {
        clock.advance(10 * 60_000);
        await a.confirmHeld();
      }
      expect(await heldOn(a)).toBe(0);
      // The down node was asked at most once per look (after 30 s, 2 min, then every 10 min).
      const asked = followingReads() - reads;
      expect(asked).toBeGreaterThanOrEqual(2);
      expect(asked).toBeLessThanOrEqual(ORIGIN_CONFIRMATION.maxPendingMs / (10 * 60_000) + 3);
    } finally {
      origin.down = false;
    }
    expect(await followersCount(a, 'carol')).toBe(1); // oscar's, from the test before
    expect(await notifications(a, 'carol', 'follow')).toHaveLength(1);
  }, 120_000);
});
