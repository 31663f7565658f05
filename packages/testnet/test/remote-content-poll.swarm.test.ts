import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authServicesOf, type SessionUser } from '@swarm/auth';
import {
  LIVE_TOPIC,
  POLL_POLICY,
  createRemoteContentWorker,
  createRetentionSweep,
  type RemoteContentWorker,
} from '@swarm/domain';
import {
  createManualClock,
  createTestNode,
  insertKeyedUser,
  signedInCaller,
  signedInteraction,
  startOriginPeer,
  type KeyedUser,
  type OriginPeer,
  type TestNode,
} from './harness.ts';

// Stored remote content from a node of the origin profile, which cannot push: our node polls
// the people its users follow (`GET /api/swarm/users/{handle}`), crawls its public timeline, and
// sweeps old copies. Real HTTP both ways (our gateway on a loopback port, the fake origin peer
// on its own); our side driven through its front door (tRPC callers) and its background worker,
// on a manual clock. The origin peer's `gets` counts what we asked of it, `down` cuts it off.

const ADMIN_TOKEN = 'remote-content-admin-token-0123456789';
const DAY = 24 * 60 * 60_000;

let origin: OriginPeer;
let ours: TestNode;
let server: ServerType;
let worker: RemoteContentWorker;
let alice: KeyedUser;
let bob: KeyedUser;

const as = (user: SessionUser) => signedInCaller(ours.node, user);
const prisma = () => ours.node.db.prisma;
const pollsOf = (handle: string) =>
  origin.gets.filter((g) => g.startsWith(`/api/swarm/users/${handle}?limit=20`)).length;

/** Stored copies from the origin, content → row. */
async function storedCopies() {
  const rows = await prisma().post.findMany({
    where: { apId: { startsWith: `swarm:${origin.domain}:` }, fetchedAt: { not: null } },
    select: { id: true, apId: true, content: true, remoteAuthor: { select: { handle: true } } },
  });
  return new Map(rows.map((r) => [r.content, r]));
}

const pollRow = (handle: string) =>
  prisma().remoteAuthorPoll.findFirst({
    where: { remoteActor: { handle, nodeDomain: origin.domain } },
  });

beforeAll(async () => {
  origin = await startOriginPeer({
    users: [
      { handle: 'carol', displayName: 'Carol' },
      { handle: 'dave', displayName: 'Dave' },
    ],
  });
  server = serve({ fetch: (request) => ours.app.fetch(request), port: 0, hostname: '127.0.0.1' });
  await once(server, 'listening');
  const self = `localhost:${(server.address() as AddressInfo).port}`;
  // Our clock starts at real time: the origin's posts carry real timestamps.
  const clock = createManualClock(new Date());
  ours = await createTestNode(
    { SWARM_DOMAIN: self, SWARM_DEV: '1', ADMIN_TOKEN, SWARM_CRAWL_PER_MIN: '60' },
    { clock, remoteContent: { retention: { keepPerAuthor: 2 } } },
  );
  worker = createRemoteContentWorker({ node: ours.node });
  alice = await insertKeyedUser(ours.node, 'alice');
  bob = await insertKeyedUser(ours.node, 'bob');
  expect((await origin.announceTo(self)).status).toBe(200);
  expect(await ours.node.registry.probe(origin.domain, 'admin')).toMatchObject({ ok: true });
});

afterAll(async () => {
  await worker?.stop();
  server?.close();
  await ours?.close();
  await origin?.close();
});

describe('the poller', () => {
  it('backfills a followed origin person at once: their recent posts are stored', async () => {
    origin.addPost('carol', 'carol before the follow 1');
    origin.addPost('carol', 'carol before the follow 2');
    expect(await storedCopies()).toEqual(new Map());

    await as(alice.user).interactions.follow({ address: `carol@${origin.domain}` });
    const row = await pollRow('carol');
    expect(row).toMatchObject({ failures: 0, lastPolledAt: null });
    expect(row!.nextPollAt.getTime()).toBeLessThanOrEqual(ours.clock.now().getTime());

    await worker.pollAll();
    const copies = await storedCopies();
    expect([...copies.keys()].sort()).toEqual([
      'carol before the follow 1',
      'carol before the follow 2',
    ]);
    expect(copies.get('carol before the follow 1')?.remoteAuthor?.handle).toBe('carol');
    expect(pollsOf('carol')).toBe(1);
    // Polled once: due again only after its interval.
    const after = await pollRow('carol');
    // The backfill is no sign of a busy author: the first interval only stretches.
    expect(after).toMatchObject({ failures: 0, intervalMs: POLL_POLICY.initialMs * 1.5 });
    expect(after!.lastPolledAt).toEqual(ours.clock.now());
    await worker.pollAll();
    expect(pollsOf('carol')).toBe(1);
  });

  it('reads again when due and stores what is new; busy authors come round sooner', async () => {
    origin.addPost('carol', 'carol later');
    ours.clock.advance(POLL_POLICY.initialMs * 1.5);
    // alice's open page (a live stream in this process) is told of her home's newest post.
    const session = await authServicesOf(ours.node).sessions.create(alice.user.id);
    const opened = ours.node.live.open({ userId: alice.user.id, sessionId: session.sessionId });
    if (!opened.ok) throw new Error(opened.message);
    let sent = '';
    opened.stream.attach({ write: (text) => (sent += text), end: () => {} });
    const homeLatest = () => {
      const frames = [...sent.matchAll(/^data: (.*)$/gm)];
      const last = frames[frames.length - 1]?.[1];
      return last ? (JSON.parse(last) as { home: { latest: string | null } }).home.latest : null;
    };
    await ours.node.live.refresh();
    const before = homeLatest();
    let told = 0;
    const stop = ours.node.invalidations.subscribe(LIVE_TOPIC, () => told++);
    await worker.pollAll();
    stop();
    expect(told).toBe(1); // open pages hear of the new copy (live updates)
    await ours.node.live.refresh();
    const copy = (await storedCopies()).get('carol later');
    const row = await prisma().post.findUniqueOrThrow({ where: { id: copy!.id } });
    expect(homeLatest()).toBe(row.createdAt.toISOString());
    expect(homeLatest()).not.toBe(before);
    opened.stream.close();
    expect(pollsOf('carol')).toBe(2);
    expect((await storedCopies()).has('carol later')).toBe(true);
    // alice's home shows it from this database: the page asks the origin nothing.
    const asked = origin.gets.length;
    const home = await as(alice.user).timeline.home();
    expect(home.posts[0]).toMatchObject({
      content: 'carol later',
      author: { address: `carol@${origin.domain}` },
    });
    const profile = await as(alice.user).profiles.get({ address: `carol@${origin.domain}` });
    expect(profile.posts[0]?.content).toBe('carol later');
    expect(origin.gets.length).toBe(asked);
    // New posts halved the interval.
    expect((await pollRow('carol'))?.intervalMs).toBe((POLL_POLICY.initialMs * 1.5) / 2);
  });

  it('a node that was down is backed off, then caught up on the next polls', async () => {
    const row = await pollRow('carol');
    origin.down = true;
    origin.addPost('carol', 'written while unreachable');
    const waits: number[] = [];
    for (let failures = 1; failures <= 3; failures++) {
      ours.clock.set((await pollRow('carol'))!.nextPollAt);
      const before = ours.clock.now().getTime();
      await worker.pollAll();
      const now = await pollRow('carol');
      expect(now?.failures).toBe(failures);
      waits.push(now!.nextPollAt.getTime() - before);
    }
    // Exponential backoff, the interval it had kept for later.
    expect(waits).toEqual([1, 2, 4].map((n) => n * POLL_POLICY.failureBaseMs));
    expect((await pollRow('carol'))?.intervalMs).toBe(row?.intervalMs);
    expect((await storedCopies()).has('written while unreachable')).toBe(false);
    // Not asked again before the backoff is over.
    await worker.pollAll();
    expect((await pollRow('carol'))?.failures).toBe(3);

    origin.down = false;
    ours.clock.set((await pollRow('carol'))!.nextPollAt);
    await worker.pollAll();
    expect((await storedCopies()).has('written while unreachable')).toBe(true);
    expect(await pollRow('carol')).toMatchObject({ failures: 0 });
  });

  it('the stored follow graph drives the backfill of a node without poll rows (upgrade)', async () => {
    await prisma().remoteAuthorPoll.deleteMany({});
    origin.addPost('carol', 'found by the first run');
    // Past the peer reader's short answer cache (the last poll was just now).
    ours.clock.advance(60_000);
    await worker.pollAll();
    expect(await pollRow('carol')).toMatchObject({ failures: 0 });
    expect((await storedCopies()).has('found by the first run')).toBe(true);
  });

  it("the last local follower's unfollow drops the row; another follower keeps it", async () => {
    await as(bob.user).interactions.follow({ address: `carol@${origin.domain}` });
    await as(alice.user).interactions.unfollow({ address: `carol@${origin.domain}` });
    expect(await pollRow('carol')).not.toBeNull();
    await as(bob.user).interactions.unfollow({ address: `carol@${origin.domain}` });
    expect(await pollRow('carol')).toBeNull();
    const polls = pollsOf('carol');
    ours.clock.advance(POLL_POLICY.maxMs);
    await worker.pollAll();
    expect(pollsOf('carol')).toBe(polls);
    // Followed again for the rest of the file.
    await as(alice.user).interactions.follow({ address: `carol@${origin.domain}` });
    await worker.pollAll();
    expect(pollsOf('carol')).toBe(polls + 1);
  });
  it('two replicas polling at once read each person once (row claims)', async () => {
    await as(alice.user).interactions.follow({ address: `dave@${origin.domain}` });
    ours.clock.advance(POLL_POLICY.maxMs);
    const before = { carol: pollsOf('carol'), dave: pollsOf('dave') };
    const poller = ours.node.remoteContent.poller;
    const [a, b] = await Promise.all([poller.pollDue(), poller.pollDue()]);
    expect(a.claimed + b.claimed).toBe(2);
    expect(a.ok + b.ok).toBe(2);
    expect({ carol: pollsOf('carol'), dave: pollsOf('dave') }).toEqual({
      carol: before.carol + 1,
      dave: before.dave + 1,
    });
    // Nobody here follows dave for the rest of the file.
    await as(alice.user).interactions.unfollow({ address: `dave@${origin.domain}` });
    expect(await pollRow('dave')).toBeNull();
  });
});

describe('the crawler and the retention sweep', () => {
  it('the crawler stores the public timeline of the origin peer (people nobody here follows)', async () => {
    origin.addPost('dave', 'dave one');
    origin.addPost('dave', 'dave liked here');
    origin.addPost('dave', 'dave replied to here');
    origin.addPost('dave', 'dave reposted here');
    const report = await worker.crawlOnce();
    expect(report).toMatchObject({ ok: 1, failed: 0 });
    expect(origin.gets.filter((g) => g.startsWith('/api/swarm/timeline')).length).toBe(1);
    const copies = await storedCopies();
    expect(copies.get('dave one')?.remoteAuthor?.handle).toBe('dave');
    expect(copies.has('dave liked here')).toBe(true);
    // The swarm feed lists them from this database and says which reads it covers.
    const asked = origin.gets.length;
    const feed = await signedInCaller(ours.node, null).timeline.swarm();
    expect(feed.posts.map((p) => p.content)).toContain('dave one');
    expect(feed.coverage).toEqual({
      nodes: 1,
      newestReadAt: ours.clock.now().toISOString(),
      oldestReadAt: ours.clock.now().toISOString(),
    });
    expect(origin.gets.length).toBe(asked);
  });

  it('removes expired copies and nothing else: followed authors, interactions and local threads keep theirs', async () => {
    const now = ours.clock.now().getTime();
    for (let i = 1; i <= 3; i++) {
      origin.addPost('carol', `carol old ${i}`, new Date(now - 40 * DAY - i * 60_000));
    }
    ours.clock.advance(POLL_POLICY.maxMs);
    await worker.pollAll();
    let copies = await storedCopies();
    expect(copies.has('carol old 3')).toBe(true);

    // Interactions from here: a like (alice), a reply written here (bob), both on dave's
    // copies; a like on one of carol's old copies.
    const like = async (who: KeyedUser, content: string) => {
      const id = copies.get(content)!.apId!;
      await as(who.user).interactions.like({
        postId: id,
        signed: await signedInteraction(as(who.user), who.privateKey, 'like', id),
      });
    };
    await like(alice, 'dave liked here');
    const reposted = copies.get('dave reposted here')!.apId!;
    await as(bob.user).interactions.repost({
      postId: reposted,
      signed: await signedInteraction(as(bob.user), bob.privateKey, 'repost', reposted),
    });
    await like(bob, 'carol old 2');
    await as(bob.user).posts.create({
      content: 'bob answers dave',
      replyToId: copies.get('dave replied to here')!.apId!,
    });

    // Eight days on: dave's copies (nobody follows him) are past the 7 days.
    ours.clock.advance(8 * DAY);
    const before = await storedCopies();
    const report = await worker.sweepOnce();
    copies = await storedCopies();
    const gone = [...before.keys()].filter((content) => !copies.has(content)).sort();
    expect(gone).toEqual(['carol old 1', 'carol old 3', 'dave one']);
    expect(report.expired).toBe(3);
    // Kept: the liked, reposted and replied-to copies, carol's recent ones and the liked old one.
    for (const kept of [
      'dave liked here',
      'dave replied to here',
      'dave reposted here',
      'carol old 2',
      'carol later',
    ]) {
      expect(copies.has(kept)).toBe(true);
    }
    // A second sweep finds nothing more.
    expect((await worker.sweepOnce()).expired).toBe(0);
  });

  it('holds the store to its size budget, oldest-fetched unprotected copies first', async () => {
    const before = await storedCopies();
    const sweep = createRetentionSweep({
      db: ours.node.db,
      clock: ours.clock,
      logger: ours.node.logger,
      options: { maxCopies: 2, keepOtherDays: 10_000, keepFollowedDays: 10_000 },
    });
    const report = await sweep.sweep();
    const after = await storedCopies();
    // Protected copies stay even over the budget: only the unprotected went.
    const protectedCopies = [
      'dave liked here',
      'dave replied to here',
      'dave reposted here',
      'carol old 2',
    ];
    expect([...after.keys()].sort()).toEqual(protectedCopies.sort());
    expect(report.overBudget).toBe(before.size - protectedCopies.length);
    expect(report.stored).toBe(protectedCopies.length);
  });
});
