import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaller } from '@swarm/api';
import { authServicesOf } from '@swarm/auth';
import { READS_TOPIC } from '@swarm/domain';
import { createPublicReads } from '../src/lib/server/public-reads.ts';
import { createTestNode, sessionUserByHandle, signedInCaller, type TestNode } from './harness.ts';

// The signed-out visitor's shared reads (hooks.server.ts): what pages read for anyone signed
// out comes from a one-second cache that every write of the node drops; with a real tRPC
// caller over a test node (manual clock).

let t: TestNode;

beforeAll(async () => {
  t = await createTestNode({ SWARM_DOMAIN: 'reads.test' });
});
afterAll(() => t.close());

const visitorApi = (reads: ReturnType<typeof createPublicReads>) =>
  reads.forVisitor(
    createCaller({
      node: t.node,
      auth: authServicesOf(t.node),
      session: null,
      clientIp: '203.0.113.9',
    }),
  );

describe('public reads for signed-out visitors', () => {
  it('shares node info, the local timeline and profiles until a write or the TTL', async () => {
    const reads = createPublicReads(t.node);
    const api = visitorApi(reads);
    const { prisma } = t.node.db;
    const before = await api.node.info();
    await expect(api.profiles.get({ address: 'ada' })).rejects.toThrow();
    // Written behind the node's back (no write of its own announced it): still the cached one.
    const ada = await prisma.user.create({
      data: { handle: 'ada', displayName: 'Ada', passwordHash: '!' },
    });
    expect((await api.node.info()).userCount).toBe(before.userCount);
    // A refused read is not kept: the profile is found as soon as it exists.
    await prisma.post.create({ data: { authorId: ada.id, content: 'first' } });
    expect((await api.profiles.get({ address: 'ada' })).profile.actor.handle).toBe('ada');
    const local = await api.timeline.local();
    await prisma.post.create({ data: { authorId: ada.id, content: 'second' } });
    expect((await api.timeline.local()).posts).toHaveLength(local.posts.length);
    // Past the TTL, read again.
    t.clock.advance(t.node.config.readCacheTtlMs + 1);
    expect((await api.node.info()).userCount).toBe(before.userCount + 1);
    expect((await api.timeline.local()).posts).toHaveLength(local.posts.length + 1);
  });

  it('drops everything when the node announces a write, and hands out copies', async () => {
    const reads = createPublicReads(t.node);
    const api = visitorApi(reads);
    const first = await api.timeline.local();
    first.posts.length = 0;
    expect((await api.timeline.local()).posts.length).toBeGreaterThan(0);

    const info = await api.node.info();
    await t.node.db.prisma.user.create({
      data: { handle: 'alice', displayName: 'Alice', passwordHash: '!' },
    });
    const alice = signedInCaller(t.node, await sessionUserByHandle(t.node, 'alice'));
    // A post through the api publishes READS_TOPIC (packages/api/src/trpc.ts).
    await alice.posts.create({ content: 'hello from alice' });
    expect((await api.node.info()).postCount).toBe(info.postCount + 1);
    const contents = (await api.timeline.local()).posts.map((p) => p.content);
    expect(contents).toContain('hello from alice');

    const counted = (await api.node.info()).userCount;
    await t.node.db.prisma.user.create({
      data: { handle: 'bruno', displayName: 'Bruno', passwordHash: '!' },
    });
    await t.node.invalidations.publish(READS_TOPIC);
    expect((await api.node.info()).userCount).toBe(counted + 1);
  });
});
