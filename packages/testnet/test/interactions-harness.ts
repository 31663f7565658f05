import { Hono } from 'hono';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import {
  SWARM_PATHS,
  generateSigningKeyPair,
  publicKeyToDidKey,
  signNodeRequest,
  signUserAction,
  type UserAction,
} from '@swarm/contract';
import {
  ALPHA,
  BETA,
  createManualClock,
  createTestNode,
  linkedInProcess,
  type ManualClock,
  type TestNode,
} from './harness.ts';

// Two nodes for the interaction tests: alpha.test receives, beta.test sends. Each scene adds a
// local user alice_N with posts on alpha and users bob_N, carol_N on beta, each with a user key
// whose did:key is on their User row (alpha resolves it through beta's real
// GET /api/swarm/users/<handle>?limit=0). Requests are node-signed with beta's real key and go
// through alpha's front door, where the gateway's own node-signature middleware checks them.

export { ALPHA, BETA };

export interface RemoteUser {
  handle: string;
  did: string;
  privateKey: CryptoKey;
}

/** Fresh people and posts for one test, so tests can share one pair of nodes. */
export interface Scene {
  /** A local user on alpha and her posts. */
  alice: string;
  aliceId: string;
  postIds: string[];
  /** Users on beta with registered keys. */
  bob: RemoteUser;
  carol: RemoteUser;
  /** A fresh suffix for more names in this scene. */
  tag: string;
}

export interface InteractionPair {
  clock: ManualClock;
  alpha: TestNode;
  beta: TestNode;
  /** New users and posts with names no other scene uses. */
  scene(): Promise<Scene>;
  /** How many times alpha asked beta for this user's profile (did resolution). */
  profileFetches(handle: string): number;
  /** POST `body` to alpha, node-signed as `source` (default beta) with `nodeKey` (default beta's). */
  send(
    path: string,
    body: unknown,
    opts?: { source?: string; nodeKey?: CryptoKey },
  ): Promise<Response>;
  /** `body` plus the user's signature over it for `action` on alpha. */
  signed<T extends Record<string, unknown>>(
    user: RemoteUser,
    action: UserAction,
    body: T,
  ): Promise<T & { signature: string }>;
  close(): Promise<void>;
}

/** No rate limit in the way of tests that send hundreds of requests in a minute. */
const ENV = { SWARM_RATE_LIMIT_PER_MIN: '1000000' };

/** `alphaEnv`: alpha's own settings over the defaults (e.g. a low rate limit). */
export async function createInteractionPair(
  alphaEnv: Record<string, string> = {},
): Promise<InteractionPair> {
  const clock = createManualClock();
  const { fronts, overrides } = linkedInProcess(clock);
  const alpha = await createTestNode({ ...ENV, ...alphaEnv, SWARM_DOMAIN: ALPHA }, overrides);
  const beta = await createTestNode({ ...ENV, SWARM_DOMAIN: BETA }, overrides);

  const fetches = new Map<string, number>();
  fronts.set(ALPHA, alpha.app);
  fronts.set(
    BETA,
    betaFront(beta, (handle) => fetches.set(handle, (fetches.get(handle) ?? 0) + 1)),
  );

  let scenes = 0;
  const makeUser = async (handle: string): Promise<RemoteUser> => {
    const pair = await generateSigningKeyPair();
    const did = await publicKeyToDidKey(pair.publicKey);
    const displayName = handle[0]!.toUpperCase() + handle.slice(1);
    await beta.node.db.prisma.user.create({
      data: { handle, displayName, passwordHash: 'x', did },
    });
    return { handle, did, privateKey: pair.privateKey };
  };

  return {
    clock,
    alpha,
    beta,
    async scene() {
      const tag = String(++scenes);
      const alice = await alpha.node.db.prisma.user.create({
        data: { handle: `alice_${tag}`, displayName: 'Alice', passwordHash: 'x' },
      });
      const postIds: string[] = [];
      for (const content of ['first post', 'second post', 'third post']) {
        const post = await alpha.node.db.prisma.post.create({
          data: { authorId: alice.id, content },
        });
        postIds.push(post.id);
      }
      const [bob, carol] = await Promise.all([makeUser(`bob_${tag}`), makeUser(`carol_${tag}`)]);
      return { alice: alice.handle, aliceId: alice.id, postIds, bob, carol, tag };
    },
    profileFetches: (handle) => fetches.get(handle) ?? 0,
    async send(path, body, opts = {}) {
      const text = JSON.stringify(body);
      const headers = await signNodeRequest({
        privateKey: opts.nodeKey ?? beta.node.keys.privateKey,
        method: 'POST',
        path,
        sourceDomain: opts.source ?? BETA,
        targetDomain: ALPHA,
        body: text,
        now: clock.now(),
      });
      return alpha.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: text,
      });
    },
    async signed(user, action, body) {
      const signature = await signUserAction({
        privateKey: user.privateKey,
        action,
        targetDomain: ALPHA,
        body,
      });
      return { ...body, signature };
    },
    async close() {
      await Promise.all([alpha.close(), beta.close()]);
    },
  };
}

/**
 * One pair for the calling file or `describe` (making a node is the slow part), closed after it,
 * and a fresh scene before each of its tests; `use` is handed each as it is made.
 */
export function pairWithFreshScenes(use: {
  pair(made: InteractionPair): void;
  scene(made: Scene): void;
}): void {
  let pair: InteractionPair | undefined;
  beforeAll(async () => {
    pair = await createInteractionPair();
    use.pair(pair);
  });
  afterAll(async () => {
    await pair?.close();
  });
  beforeEach(async () => {
    use.scene(await pair!.scene());
  });
}

/** Beta as alpha sees it: its gateway, counting profile requests (did resolution). */
function betaFront(beta: TestNode, counted: (handle: string) => void) {
  const front = new Hono();
  front.get('/api/swarm/users/:handle', (c) => {
    counted(c.req.param('handle'));
    return beta.app.fetch(c.req.raw);
  });
  front.all('*', (c) => beta.app.fetch(c.req.raw));
  return front;
}

/** Everything an inbound interaction can change on alpha, to compare before and after. */
export async function snapshot(node: TestNode) {
  const prisma = node.node.db.prisma;
  const [ledger, likes, reposts, follows, notifications, actors, posts, media, users] =
    await Promise.all([
      prisma.inboundInteraction.count(),
      prisma.like.findMany({ orderBy: { id: 'asc' } }),
      prisma.repost.findMany({ orderBy: { id: 'asc' } }),
      prisma.follow.findMany({ orderBy: { id: 'asc' } }),
      prisma.notification.findMany({ orderBy: { id: 'asc' } }),
      prisma.remoteActor.findMany({ orderBy: { id: 'asc' } }),
      prisma.post.findMany({ orderBy: { id: 'asc' } }),
      prisma.mediaItem.count(),
      prisma.user.findMany({
        orderBy: { id: 'asc' },
        select: { id: true, followersCount: true, followingCount: true, postsCount: true },
      }),
    ]);
  return { ledger, likes, reposts, follows, notifications, actors, posts, media, users };
}

export const paths = {
  like: SWARM_PATHS.interaction('like'),
  unlike: SWARM_PATHS.interaction('unlike'),
  repost: SWARM_PATHS.interaction('repost'),
  follow: SWARM_PATHS.interaction('follow'),
  unfollow: SWARM_PATHS.interaction('unfollow'),
  mention: SWARM_PATHS.interaction('mention'),
  reply: SWARM_PATHS.replies,
};
