import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWARM_PATHS } from '@swarm/contract';
import { createDb, type Db } from '@swarm/db';
import { createTestDb } from '@swarm/db/testing';
import { createLogger, createNodeContext, parseConfig, transportFromFetch } from '@swarm/domain';
import { createGatewayApp } from '@swarm/gateway';
import {
  createLikeSenders,
  createManualClock,
  createTestNode,
  likeRequestHeaders,
  signedLikeJson,
  type LikeSender,
  type TestNode,
} from './harness.ts';

// Two gateway replicas of alpha.test on one Postgres database receive likes at once, on the same
// posts, each like delivered to both (as a peer's retry could land on the other replica). Each
// replica groups what arrives together into one statement per batch, so batches of the two
// replicas over the same rows run concurrently, in different orders: the counts must still be
// exact and every request answered 200. PGlite has a single owner, so this needs Postgres.

const url = process.env.TEST_DATABASE_URL;
const ALPHA = 'alpha.test';
const BETA = 'beta.test';
const USERS = 24;
const POSTS = 12;

if (!url) {
  describe('signed likes on two gateway replicas', () => {
    it.skip('needs TEST_DATABASE_URL (a Postgres server; PGlite has a single owner, no replicas)', () => {});
  });
} else {
  describe('signed likes on two gateway replicas', () => {
    const clock = createManualClock();
    let beta: TestNode;
    let first: Db;
    let second: Db;
    const fronts: ReturnType<typeof createGatewayApp>[] = [];
    const senders: LikeSender[] = [];
    const posts: string[] = [];
    let authorId: string;

    beforeAll(async () => {
      beta = await createTestNode({ SWARM_DOMAIN: BETA }, { clock });
      first = await createTestDb();
      if (first.kind !== 'postgres') throw new Error('TEST_DATABASE_URL did not give Postgres');
      const dbUrl = first.pool.options.connectionString;
      if (!dbUrl) throw new Error('no connection string on the test database pool');
      second = await createDb({ databaseUrl: dbUrl, dataDir: '.', poolSize: 5 });
      const parsed = parseConfig({
        SWARM_DOMAIN: ALPHA,
        LOG_LEVEL: 'silent',
        SWARM_RATE_LIMIT_PER_MIN: '1000000',
      });
      if (!parsed.ok) throw new Error(parsed.errors.join('; '));
      for (const db of [first, second]) {
        const node = await createNodeContext({
          config: parsed.value,
          db,
          logger: createLogger('silent'),
          clock,
          transport: transportFromFetch(async (request) => beta.app.fetch(request)),
          resolveHost: async () => ['93.184.216.34'],
        });
        fronts.push(createGatewayApp(node));
      }
      const author = await first.prisma.user.create({
        data: { handle: 'alice', displayName: 'Alice', passwordHash: '!' },
      });
      authorId = author.id;
      for (let i = 0; i < POSTS; i++) {
        const post = await first.prisma.post.create({
          data: { authorId, content: `post ${i}` },
        });
        posts.push(post.id);
      }
      senders.push(...(await createLikeSenders(beta, USERS)));
    });

    afterAll(async () => {
      await second?.close();
      await first?.close();
      await beta?.close();
    });

    const likeBody = (sender: LikeSender, postId: string) =>
      signedLikeJson({
        sender,
        from: BETA,
        to: ALPHA,
        postId,
        interactionId: `like-${sender.handle}-${postId}`,
        now: clock.now(),
      });

    async function send(front: (typeof fronts)[number], body: string) {
      const headers = await likeRequestHeaders({
        nodeKey: beta.node.keys.privateKey,
        from: BETA,
        to: ALPHA,
        body,
        now: clock.now(),
      });
      return front.request(SWARM_PATHS.interaction('like'), { method: 'POST', headers, body });
    }

    it('counts every like once, whichever replica and however often it arrives', async () => {
      // Pin beta's key and every sender's did first (one like each, replica 1), so the burst
      // below is pure ingest.
      for (const sender of senders) {
        expect((await send(fronts[0]!, await likeBody(sender, posts[0]!))).status).toBe(200);
      }
      const bodies: string[] = [];
      for (const sender of senders) {
        for (const postId of posts.slice(1)) bodies.push(await likeBody(sender, postId));
      }
      // Each like to both replicas, in two different orders (the second strides through the
      // list), so the replicas' batches cover different, overlapping sets of posts and actors.
      const stride = bodies.map((_, i) => bodies[(i * 7) % bodies.length]!);
      expect(new Set(stride).size).toBe(bodies.length);
      const answers = await Promise.all([
        ...bodies.map((body) => send(fronts[0]!, body)),
        ...stride.map((body) => send(fronts[1]!, body)),
      ]);
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);

      const counts = await first.prisma.post.findMany({
        where: { id: { in: posts } },
        select: { likesCount: true },
      });
      expect(counts.map((post) => post.likesCount)).toEqual(posts.map(() => USERS));
      expect(await first.prisma.like.count()).toBe(USERS * POSTS);
      expect(await first.prisma.inboundInteraction.count()).toBe(USERS * POSTS);
      expect(
        await first.prisma.notification.count({ where: { recipientId: authorId, type: 'like' } }),
      ).toBe(USERS * POSTS);
    });
  });
}
