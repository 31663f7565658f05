import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localActorKey, Prisma, type Db } from '../src/index.ts';
import { createTestDb } from '../src/testing/index.ts';

// The database itself enforces the invariants the protocol relies on: one like/repost/follow per
// actor, idempotent interaction ids, single-use nonces, coherent actor keys, atomic counters.

let db: Db;

beforeAll(async () => {
  const started = performance.now();
  db = await createTestDb();
  console.info(
    `[timing] createTestDb (${db.kind}): ${(performance.now() - started).toFixed(0)} ms`,
  );
});
afterAll(async () => {
  await db?.close();
});

let seq = 0;
async function makeUser(handle = `user${++seq}`) {
  return db.prisma.user.create({ data: { handle, passwordHash: 'argon2id$test' } });
}
async function makeRemoteActor(handle = `remote${++seq}`, nodeDomain = 'beta.example') {
  return db.prisma.remoteActor.create({
    data: { actorUrl: `swarm://${nodeDomain}/${handle}`, handle, nodeDomain, displayName: handle },
  });
}
async function makePost(authorId: string) {
  return db.prisma.post.create({ data: { authorId, content: 'hello swarm' } });
}

function uniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}

describe('likes and reposts', () => {
  it('allows one like per actor and post, local or remote', async () => {
    const author = await makeUser();
    const fan = await makeUser();
    const remote = await makeRemoteActor();
    const post = await makePost(author.id);

    await db.prisma.like.create({
      data: { postId: post.id, userId: fan.id, actorKey: localActorKey(fan.id) },
    });
    await db.prisma.like.create({
      data: {
        postId: post.id,
        remoteActorId: remote.id,
        actorKey: remote.actorUrl,
        interactionId: 'i-1',
      },
    });
    const again = db.prisma.like.create({
      data: { postId: post.id, userId: fan.id, actorKey: localActorKey(fan.id) },
    });
    await expect(again).rejects.toSatisfy(uniqueViolation);
    const remoteAgain = db.prisma.like.create({
      data: {
        postId: post.id,
        remoteActorId: remote.id,
        actorKey: remote.actorUrl,
        interactionId: 'i-2',
      },
    });
    await expect(remoteAgain).rejects.toSatisfy(uniqueViolation);
    expect(await db.prisma.like.count({ where: { postId: post.id } })).toBe(2);
  });

  it('rejects an actor key that does not match its actor column', async () => {
    const author = await makeUser();
    const a = await makeUser();
    const b = await makeUser();
    const post = await makePost(author.id);
    // Same user under another key would dodge the unique index: the CHECK stops it.
    await expect(
      db.prisma.like.create({
        data: { postId: post.id, userId: a.id, actorKey: localActorKey(b.id) },
      }),
    ).rejects.toThrow();
    await expect(
      db.prisma.like.create({ data: { postId: post.id, actorKey: localActorKey(a.id) } }),
    ).rejects.toThrow(); // no actor at all
  });

  it('keeps the remote repost id and allows one repost per actor', async () => {
    const author = await makeUser();
    const remote = await makeRemoteActor();
    const post = await makePost(author.id);
    const repost = await db.prisma.repost.create({
      data: {
        postId: post.id,
        remoteActorId: remote.id,
        actorKey: remote.actorUrl,
        remoteRepostId: 'r-42',
      },
    });
    expect(repost.remoteRepostId).toBe('r-42');
    await expect(
      db.prisma.repost.create({
        data: { postId: post.id, remoteActorId: remote.id, actorKey: remote.actorUrl },
      }),
    ).rejects.toSatisfy(uniqueViolation);
  });
});

describe('follows', () => {
  it('stores remote followers by actor URL, once per pair, and never oneself', async () => {
    const alice = await makeUser();
    const remote = await makeRemoteActor('bob', 'gamma.example');
    const data = {
      followerKey: 'swarm://gamma.example/bob',
      followerRemoteActorId: remote.id,
      followeeKey: localActorKey(alice.id),
      followeeUserId: alice.id,
    };
    await db.prisma.follow.create({ data });
    await expect(db.prisma.follow.create({ data })).rejects.toSatisfy(uniqueViolation);
    const followers = await db.prisma.follow.findMany({
      where: { followeeKey: localActorKey(alice.id) },
    });
    expect(followers.map((f) => f.followerKey)).toEqual(['swarm://gamma.example/bob']);
    await expect(
      db.prisma.follow.create({
        data: {
          followerKey: localActorKey(alice.id),
          followerUserId: alice.id,
          followeeKey: localActorKey(alice.id),
          followeeUserId: alice.id,
        },
      }),
    ).rejects.toThrow();
  });
});

describe('node-to-node ledgers', () => {
  it('accepts an interaction id once per actor node', async () => {
    await db.prisma.inboundInteraction.create({
      data: { actorNodeDomain: 'beta.example', interactionId: 'abc', kind: 'like' },
    });
    await expect(
      db.prisma.inboundInteraction.create({
        data: { actorNodeDomain: 'beta.example', interactionId: 'abc', kind: 'like' },
      }),
    ).rejects.toSatisfy(uniqueViolation);
    // The same id from another node is another interaction.
    await db.prisma.inboundInteraction.create({
      data: { actorNodeDomain: 'gamma.example', interactionId: 'abc', kind: 'like' },
    });
    // What a handler does: insert-or-skip in one statement.
    const inserted = await db.prisma.inboundInteraction.createMany({
      data: [{ actorNodeDomain: 'beta.example', interactionId: 'abc', kind: 'like' }],
      skipDuplicates: true,
    });
    expect(inserted.count).toBe(0);
  });

  it('accepts a request nonce once per source node', async () => {
    const expiresAt = new Date(Date.now() + 600_000);
    await db.prisma.requestNonce.create({
      data: { sourceDomain: 'beta.example', nonce: 'n1', expiresAt },
    });
    await expect(
      db.prisma.requestNonce.create({
        data: { sourceDomain: 'beta.example', nonce: 'n1', expiresAt },
      }),
    ).rejects.toSatisfy(uniqueViolation);
  });

  it('keeps one handle entry per (handle, node)', async () => {
    const entry = {
      handle: 'carol',
      did: 'did:key:zDnaeTest',
      nodeDomain: 'delta.example',
      updatedAt: new Date(),
      source: 'gossip:beta.example',
    };
    await db.prisma.handleRegistryEntry.create({ data: entry });
    await expect(db.prisma.handleRegistryEntry.create({ data: entry })).rejects.toSatisfy(
      uniqueViolation,
    );
    await db.prisma.handleRegistryEntry.create({
      data: { ...entry, nodeDomain: 'epsilon.example' },
    });
  });

  it('keeps a single node key row and a trust score within 0..100', async () => {
    await db.prisma.nodeKey.create({ data: { publicKeyPem: 'pub', privateKeyPem: 'priv' } });
    await expect(
      db.prisma.nodeKey.create({
        data: { id: 'other', publicKeyPem: 'pub', privateKeyPem: 'priv' },
      }),
    ).rejects.toThrow();
    await expect(
      db.prisma.swarmNode.create({
        data: { domain: 'zeta.example', discoveredVia: 'admin', trustScore: 101 },
      }),
    ).rejects.toThrow();
    const node = await db.prisma.swarmNode.create({
      data: { domain: 'zeta.example', discoveredVia: 'admin' },
    });
    expect(node).toMatchObject({
      trustScore: 0,
      isActive: false,
      capabilities: '[]',
      consecutiveFailures: 0,
    });
  });
});

describe('posts and counters', () => {
  it('increments counters atomically under concurrency', async () => {
    const author = await makeUser();
    const post = await makePost(author.id);
    const fans = await Promise.all(Array.from({ length: 10 }, () => makeUser()));
    await Promise.all(
      fans.map((fan) =>
        db.prisma.$transaction([
          db.prisma.like.create({
            data: { postId: post.id, userId: fan.id, actorKey: localActorKey(fan.id) },
          }),
          db.prisma.post.update({ where: { id: post.id }, data: { likesCount: { increment: 1 } } }),
        ]),
      ),
    );
    const after = await db.prisma.post.findUniqueOrThrow({ where: { id: post.id } });
    expect(after.likesCount).toBe(10);
  });

  it('stores a remote reply with its apId once, threaded under the local post', async () => {
    const author = await makeUser();
    const parent = await makePost(author.id);
    const remote = await makeRemoteActor();
    const reply = {
      apId: `swarm:beta.example:${crypto.randomUUID()}`,
      remoteAuthorId: remote.id,
      content: 'a reply',
      replyToId: parent.id,
      media: {
        create: [{ url: 'https://beta.example/m/1.png', mimeType: 'image/png', position: 0 }],
      },
    };
    const created = await db.prisma.post.create({ data: reply, include: { media: true } });
    expect(created.media).toHaveLength(1);
    await expect(db.prisma.post.create({ data: { ...reply, media: undefined } })).rejects.toSatisfy(
      uniqueViolation,
    );
    const thread = await db.prisma.post.findMany({ where: { replyToId: parent.id } });
    expect(thread.map((p) => p.id)).toEqual([created.id]);
    // A local post can't carry an apId, and a post needs exactly one author.
    await expect(
      db.prisma.post.create({ data: { authorId: author.id, apId: 'swarm:x.example:1' } }),
    ).rejects.toThrow();
    await expect(db.prisma.post.create({ data: { content: 'orphan' } })).rejects.toThrow();
  });

  it('stores handles lower-case only, and removes a user with their content', async () => {
    await expect(makeUser('Mallory')).rejects.toThrow();
    const user = await makeUser();
    const post = await makePost(user.id);
    await db.prisma.session.create({
      data: {
        id: 'a'.repeat(24),
        secretHash: new Uint8Array(32),
        userId: user.id,
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    await db.prisma.user.delete({ where: { id: user.id } });
    expect(await db.prisma.post.findUnique({ where: { id: post.id } })).toBeNull();
    expect(await db.prisma.session.count({ where: { userId: user.id } })).toBe(0);
  });
});

describe('outbox', () => {
  it('lets concurrent workers claim disjoint due deliveries (FOR UPDATE SKIP LOCKED)', async () => {
    await db.prisma.outboxDelivery.createMany({
      data: Array.from({ length: 4 }, (_, i) => ({
        targetDomain: 'beta.example',
        kind: 'like',
        path: '/api/swarm/interactions/like',
        body: JSON.stringify({ n: i }),
      })),
    });
    const claim = (worker: string) =>
      db.prisma.$queryRaw<{ id: string }[]>`
        UPDATE outbox_deliveries SET locked_by = ${worker}, locked_until = now() + interval '30 seconds',
               attempts = attempts + 1
        WHERE id IN (
          SELECT id FROM outbox_deliveries
          WHERE status = 'pending' AND next_attempt_at <= now()
            AND (locked_until IS NULL OR locked_until < now())
          ORDER BY next_attempt_at LIMIT 2 FOR UPDATE SKIP LOCKED)
        RETURNING id`;
    const [a, b] = await Promise.all([claim('w1'), claim('w2')]);
    const ids = [...(a ?? []), ...(b ?? [])].map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(4);
  });
});
