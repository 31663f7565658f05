import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nodeInfoSchema, singlePostSchema, timelineResponseSchema } from '@swarm/contract';
import { READ_CACHE_TTL_MS } from '@swarm/domain';
import { createTestNode, type TestNode } from './harness.ts';
import {
  BETA,
  createInteractionPair,
  paths,
  type InteractionPair,
} from './interactions-harness.ts';

// Public reads are served from a read-through cache for READ_CACHE_TTL_MS (docs/decisions.md):
// the database writes below go behind the node's back on purpose, to show what the cache hides
// and for how long; writes through the node's own front door show at once.

const infoOf = async (t: TestNode) =>
  nodeInfoSchema.parse(await (await t.request('/api/swarm/info')).json());

describe('read cache', () => {
  let t: TestNode;
  beforeEach(async () => {
    t = await createTestNode({});
  });
  afterEach(async () => {
    await t.close();
  });

  it('serves a read from the cache within the TTL and refreshes it after', async () => {
    const { prisma } = t.node.db;
    expect((await infoOf(t)).userCount).toBe(0);
    await prisma.user.create({
      data: { handle: 'alice', displayName: 'Alice', passwordHash: '!' },
    });

    t.clock.advance(READ_CACHE_TTL_MS - 1);
    expect((await infoOf(t)).userCount).toBe(0);

    t.clock.advance(1);
    expect((await infoOf(t)).userCount).toBe(1);
  });

  it('keys by path and query, and keeps the JSON answer and its content type', async () => {
    const { prisma } = t.node.db;
    const alice = await prisma.user.create({
      data: { handle: 'alice', displayName: 'Alice', passwordHash: '!' },
    });
    await prisma.post.create({ data: { authorId: alice.id, content: 'one' } });
    const first = await t.request('/api/swarm/timeline');
    const text = await first.text();
    await prisma.post.create({ data: { authorId: alice.id, content: 'two' } });

    const cached = await t.request('/api/swarm/timeline');
    expect(cached.status).toBe(200);
    expect(cached.headers.get('content-type')).toBe(first.headers.get('content-type'));
    // Per-request headers are still per request.
    expect(cached.headers.get('x-request-id')).toMatch(/./);
    expect(cached.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await cached.text()).toBe(text);
    // Another query is another key: fresh.
    const other = timelineResponseSchema.parse(
      await (await t.request('/api/swarm/timeline?limit=5')).json(),
    );
    expect(other.posts.map((p) => p.content)).toEqual(['two', 'one']);
  });

  it('does not keep failures: a user created after a 404 is found at once', async () => {
    expect((await t.request('/api/swarm/users/alice')).status).toBe(404);
    await t.node.db.prisma.user.create({
      data: { handle: 'alice', displayName: 'Alice', passwordHash: '!' },
    });
    expect((await t.request('/api/swarm/users/alice')).status).toBe(200);
  });

  it('answers concurrent misses of one key with one identical answer each', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.request('/api/swarm/info').then((r) => r.text())),
    );
    expect(new Set(answers).size).toBe(1);
    expect(nodeInfoSchema.parse(JSON.parse(answers[0]!)).userCount).toBe(0);
  });
});

describe('read cache and writes through the front door', () => {
  let pair: InteractionPair;
  beforeAll(async () => {
    pair = await createInteractionPair();
  });
  afterAll(async () => {
    await pair.close();
  });

  it("shows the node's own changes at once: a like received counts on the next read", async () => {
    const s = await pair.scene();
    const postId = s.postIds[0]!;
    const read = async () =>
      singlePostSchema.parse(await (await pair.alpha.request(`/api/swarm/posts/${postId}`)).json());
    expect((await read()).likesCount).toBe(0);

    const like = await pair.signed(s.bob, 'like', {
      postId,
      like: {
        actorHandle: s.bob.handle,
        actorDisplayName: 'Bob',
        actorAvatarUrl: `https://${BETA}/avatars/${s.bob.handle}.png`,
        actorNodeDomain: BETA,
        interactionId: `cache-like-${s.tag}`,
        timestamp: pair.clock.now().toISOString(),
      },
    });
    expect((await pair.send(paths.like, like)).status).toBe(200);

    expect((await read()).likesCount).toBe(1);
  });

  it('is not invalidated by a refused write', async () => {
    const s = await pair.scene();
    const postId = s.postIds[0]!;
    const read = async () =>
      singlePostSchema.parse(await (await pair.alpha.request(`/api/swarm/posts/${postId}`)).json());
    expect((await read()).likesCount).toBe(0);
    // Behind the node's back, then a write the node refuses (no node signature): still cached.
    await pair.alpha.node.db.prisma.post.update({
      where: { id: postId },
      data: { likesCount: 7 },
    });
    const refused = await pair.alpha.request(paths.like, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ postId }),
    });
    expect(refused.status).toBe(401);
    expect((await read()).likesCount).toBe(0);
    pair.clock.advance(READ_CACHE_TTL_MS);
    expect((await read()).likesCount).toBe(7);
  });
});
