import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SessionUser } from '@swarm/auth';
import { SWARM_PATHS } from '@swarm/contract';
import {
  ALPHA as A,
  BETA as B,
  createTwoNodes,
  sessionUserByHandle,
  signedInCaller,
  trpcFailure,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';

// Issue #14 across nodes: follower lists served by one node's gateway and read by another's
// tRPC procedures (over the test network's HTTP links), and a tag page on alpha that lists the
// swarm posts alpha holds (a reply beta delivered) beside alpha's own.

vi.setConfig({ testTimeout: 120_000 });

let net: TestNetwork;
let alpha: NetworkNode;
let beta: NetworkNode;
let alice: SessionUser;
let carol: SessionUser;
let bob: SessionUser;
let dan: SessionUser;

const on = (member: NetworkNode, user: SessionUser | null) => signedInCaller(member.node, user);

interface WireList {
  followers?: { handle: string; isRemote: boolean; displayName: string }[];
  following?: { handle: string; isRemote: boolean }[];
  nodeDomain: string;
  nextCursor?: string;
}

async function get(member: NetworkNode, path: string) {
  const response = await member.request(path);
  return { status: response.status, body: (await response.json()) as WireList & { code?: string } };
}

beforeAll(async () => {
  ({ net, alpha, beta } = await createTwoNodes({
    alpha: { handles: ['alice', 'carol'] },
    beta: { handles: ['bob', 'dan'] },
  }));
  alice = await sessionUserByHandle(alpha.node, 'alice');
  carol = await sessionUserByHandle(alpha.node, 'carol');
  bob = await sessionUserByHandle(beta.node, 'bob');
  dan = await sessionUserByHandle(beta.node, 'dan');
  // bob is followed by alice (alpha, delivered over the network) and dan (beta, local);
  // bob follows carol@alpha.
  // (The clock moves between them: lists are newest first.)
  await on(alpha, alice).interactions.follow({ address: `bob@${B}` });
  net.clock.advance(1_000);
  await on(beta, dan).interactions.follow({ address: 'bob' });
  net.clock.advance(1_000);
  await on(beta, bob).interactions.follow({ address: `carol@${A}` });
}, 300_000);
afterAll(() => net.close());

describe('GET /api/swarm/users/[handle]/followers and /following', () => {
  it("serves bob's followers, remote ones as handle@domain, newest first, paged by cursor", async () => {
    const all = await get(beta, `${SWARM_PATHS.followers('bob')}`);
    expect(all.status).toBe(200);
    expect(all.body.nodeDomain).toBe(B);
    expect(all.body.followers?.map((f) => [f.handle, f.isRemote])).toEqual([
      ['dan', false],
      [`alice@${A}`, true],
    ]);
    expect(all.body.nextCursor).toBeUndefined();

    const first = await get(beta, `${SWARM_PATHS.followers('bob')}?limit=1`);
    expect(first.body.followers?.map((f) => f.handle)).toEqual(['dan']);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await get(
      beta,
      `${SWARM_PATHS.followers('bob')}?limit=1&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.followers?.map((f) => f.handle)).toEqual([`alice@${A}`]);
    expect(second.body.nextCursor).toBeUndefined();

    const following = await get(beta, SWARM_PATHS.following('bob'));
    expect(following.body.following).toEqual([
      expect.objectContaining({ handle: `carol@${A}`, isRemote: true }),
    ]);
  });

  it('refuses bad queries with 400 and unknown users with 404, never 500', async () => {
    const path = SWARM_PATHS.followers('bob');
    for (const query of [
      'limit=-1',
      'limit=abc',
      'limit=1.5',
      'cursor=%21%21',
      `cursor=${'a'.repeat(300)}`,
    ]) {
      const answer = await get(beta, `${path}?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.code, query).toBe('INVALID_REQUEST');
    }
    // Clamped, not refused; a well-formed cursor that is not ours is an empty page.
    expect((await get(beta, `${path}?limit=100000`)).status).toBe(200);
    const foreign = await get(beta, `${path}?cursor=bm90LWEtY3Vyc29y`);
    expect(foreign).toMatchObject({ status: 200, body: { followers: [] } });
    const unknown = await get(beta, SWARM_PATHS.following('nobody'));
    expect(unknown).toMatchObject({ status: 404, body: { code: 'USER_NOT_FOUND' } });
  });
});

describe('follower lists for people', () => {
  it("alpha reads bob@beta's followers from beta: its own alice shows as local", async () => {
    const page = await on(alpha, carol).profiles.followers({ address: `bob@${B}` });
    expect(page.isSwarm).toBe(true);
    expect(page.people.map((p) => [p.address, p.isRemote])).toEqual([
      [`dan@${B}`, true],
      ['alice', false],
    ]);
    const following = await on(alpha, null).profiles.following({ address: `bob@${B}`, limit: 1 });
    expect(following.people.map((p) => p.address)).toEqual(['carol']);
  });

  it('reads local lists from the database, and pages them', async () => {
    const first = await on(beta, null).profiles.followers({ address: 'bob', limit: 1 });
    expect(first).toMatchObject({ isSwarm: false, nextCursor: expect.any(String) });
    expect(first.people.map((p) => p.address)).toEqual(['dan']);
    const next = await on(beta, null).profiles.followers({
      address: 'bob',
      limit: 1,
      cursor: first.nextCursor!,
    });
    expect(next.people.map((p) => p.address)).toEqual([`alice@${A}`]);
    expect(next.nextCursor).toBeNull();
    expect(
      (await trpcFailure(on(beta, null).profiles.followers({ address: 'bob', cursor: '!' }))).code,
    ).toBe('BAD_REQUEST');
    expect((await trpcFailure(on(beta, null).profiles.followers({ address: 'nobody' }))).code).toBe(
      'NOT_FOUND',
    );
  });

  it('says the node is unavailable when it is down', async () => {
    net.network.drop(B);
    try {
      const failure = await trpcFailure(
        on(alpha, alice).profiles.followers({ address: `bob@${B}` }),
      );
      expect(failure.code).toBe('BAD_GATEWAY');
      expect(failure.message).toContain(B);
    } finally {
      net.network.heal(B);
    }
  });
});

describe('tags across the swarm', () => {
  it("alpha's tag page lists alpha's posts and the swarm posts alpha holds with that tag", async () => {
    const { post: mine } = await on(alpha, alice).posts.create({ content: 'Learning #Rust today' });
    net.clock.advance(1_000);
    const { post: reply, deliveries } = await on(beta, bob).posts.create({
      content: 'Same here, #rust is fun (not #rusty)',
      replyToId: `swarm:${A}:${mine.id}`,
    });
    expect(deliveries).toEqual([expect.objectContaining({ kind: 'reply', status: 'delivered' })]);
    net.clock.advance(1_000);
    await on(alpha, carol).posts.create({ content: 'nothing tagged here: rust' });

    const page = await on(alpha, null).search.tag({ tag: '#RUST' });
    expect(page.tag).toBe('rust');
    expect(page.posts.map((p) => [p.content, p.isRemote])).toEqual([
      ['Same here, #rust is fun (not #rusty)', true],
      ['Learning #Rust today', false],
    ]);
    expect(page.posts[0]!.id).toBe(`swarm:${B}:${reply.id}`);

    // The same posts through search: the tag with its count, the posts by their words.
    const found = await on(alpha, alice).search.query({ q: '#rust' });
    // The tag asked for first, then tags of the posts found that start like it.
    expect(found.tags).toEqual([
      { tag: 'rust', count: 2 },
      { tag: 'rusty', count: 1 },
    ]);
    const words = await on(alpha, alice).search.query({ q: 'fun' });
    expect(words.posts.map((p) => p.content)).toEqual(['Same here, #rust is fun (not #rusty)']);
  });

  it('leaves out of search and tag pages whom the viewer muted, and only for that viewer', async () => {
    await alpha.node.moderation.safety.mute(carol.id, `bob@${B}`);
    const tagPage = await on(alpha, carol).search.tag({ tag: 'rust' });
    expect(tagPage.posts.map((p) => p.content)).toEqual(['Learning #Rust today']);
    const found = await on(alpha, carol).search.query({ q: 'bob' });
    expect(found.people.map((p) => p.address)).not.toContain(`bob@${B}`);
    expect((await on(alpha, carol).search.query({ q: 'fun' })).posts).toEqual([]);
    // Someone else still finds them.
    const byAlice = await on(alpha, alice).search.query({ q: 'bob' });
    expect(byAlice.people.map((p) => p.address)).toContain(`bob@${B}`);
    expect((await on(alpha, alice).search.query({ q: 'fun' })).posts).toHaveLength(1);
    await alpha.node.moderation.safety.unmute(carol.id, `bob@${B}`);
    expect((await on(alpha, carol).search.query({ q: 'fun' })).posts).toHaveLength(1);
  });
});
