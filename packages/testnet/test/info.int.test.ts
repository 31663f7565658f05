import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeInfoSchema } from '@swarm/contract';
import { createNodeContext } from '@swarm/domain';
import { createTestNode, type TestNode } from './harness.ts';

describe('GET /api/swarm/info', () => {
  let t: TestNode;
  beforeEach(async () => {
    t = await createTestNode({ SWARM_NODE_NAME: 'Alpha', SWARM_NODE_DESCRIPTION: 'First node' });
  });
  afterEach(async () => {
    await t.close();
  });

  it("answers this node's real info, valid per the contract", async () => {
    const res = await t.request('/api/swarm/info');
    expect(res.status).toBe(200);
    const info = nodeInfoSchema.parse(await res.json());
    expect(info).toMatchObject({
      domain: 'alpha.test',
      name: 'Alpha',
      description: 'First node',
      publicKey: t.node.keys.publicKeyPem,
      userCount: 0,
      postCount: 0,
      capabilities: [
        'handles',
        'gossip',
        'interactions',
        'messages',
        'reports',
        'deletions',
        'moves',
        'unrepost',
        'posts',
        'delegations',
      ],
    });
  });

  it('counts local people and their live posts, not remote copies', async () => {
    const { prisma } = t.node.db;
    const alice = await prisma.user.create({
      data: { handle: 'alice', displayName: 'Alice', passwordHash: '!' },
    });
    await prisma.user.create({ data: { handle: 'bob', displayName: 'Bob', passwordHash: '!' } });
    await prisma.post.create({ data: { authorId: alice.id, content: 'hello swarm' } });
    await prisma.post.create({
      data: { authorId: alice.id, content: 'gone', deletedAt: t.clock.now() },
    });

    const info = nodeInfoSchema.parse(await (await t.request('/api/swarm/info')).json());
    expect(info.userCount).toBe(2);
    expect(info.postCount).toBe(1);
  });

  it('keeps the same key pair when the node restarts on the same database', async () => {
    const restarted = await createNodeContext({
      config: t.node.config,
      db: t.node.db,
      logger: t.node.logger,
    });
    expect(restarted.keys.publicKeyPem).toBe(t.node.keys.publicKeyPem);
    expect((await restarted.nodeInfo.get()).publicKey).toBe(t.node.keys.publicKeyPem);
  });

  it('rejects a malformed query with the error body', async () => {
    const res = await t.request('/api/swarm/info?stats=maybe');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'INVALID_REQUEST', error: expect.any(String) });
  });

  it('answers unknown swarm paths with a JSON 404', async () => {
    const res = await t.request('/api/swarm/nope');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      code: 'NOT_FOUND',
      error: 'No such endpoint: GET /api/swarm/nope',
    });
  });
});
