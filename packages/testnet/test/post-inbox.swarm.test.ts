import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  POST_PUSH_LIMITS,
  SWARM_PATHS,
  formatTimestamp,
  generateSigningKeyPair,
  signNodeRequest,
  signOriginBody,
  signUserAction,
} from '@swarm/contract';
import { LIVE_TOPIC } from '@swarm/domain';
import {
  ALPHA,
  BETA,
  createInteractionPair,
  type InteractionPair,
  type RemoteUser,
  type Scene,
} from './interactions-harness.ts';
import { sessionUserByHandle, signedInCaller } from './harness.ts';

// Issue 24, the receiving end of post delivery: alpha receives, beta (a real node of ours) pushes
// posts of its users, node-signed with its real key through alpha's front door; the author's
// postSignature is made with the author's own key, as their browser does. Alice on alpha follows
// bob through alpha's own follow action (delivered to beta), so "followed" is the real state.

const INBOX = SWARM_PATHS.inbox;

type Body = Record<string, unknown>;

/** A post of `author` on beta as our dialect pushes it, signed by the author unless told not. */
async function pushOf(
  pair: InteractionPair,
  author: RemoteUser,
  opts: {
    id?: string;
    post?: Body;
    counts?: Body;
    nodeDomain?: string;
    signer?: RemoteUser | null;
    did?: boolean;
  } = {},
): Promise<Body> {
  const post: Body = {
    id: opts.id ?? randomUUID(),
    content: `a post by ${author.handle}`,
    createdAt: formatTimestamp(pair.clock.now()),
    isNsfw: false,
    ...opts.post,
  };
  const nodeDomain = opts.nodeDomain ?? BETA;
  const signer = opts.signer === undefined ? author : opts.signer;
  const postSignature = signer
    ? await signUserAction({
        privateKey: signer.privateKey,
        action: 'post',
        targetDomain: nodeDomain,
        body: post,
      })
    : undefined;
  return {
    post,
    author: {
      handle: author.handle,
      displayName: 'Bob',
      isNsfw: false,
      ...(opts.did === false ? {} : { did: author.did }),
    },
    ...(opts.counts ? { counts: opts.counts } : {}),
    nodeDomain,
    timestamp: formatTimestamp(pair.clock.now()),
    ...(postSignature ? { postSignature } : {}),
  };
}

async function answer(res: Response) {
  return { status: res.status, body: (await res.json()) as Body };
}

const copyOf = (pair: InteractionPair, id: string) =>
  pair.alpha.node.db.prisma.post.findUnique({
    where: { apId: `swarm:${BETA}:${id}` },
    include: { remoteAuthor: true, media: { orderBy: { position: 'asc' } } },
  });

const postCount = (pair: InteractionPair) => pair.alpha.node.db.prisma.post.count();

/** Alice (alpha) follows `user` on beta through her node's own action, delivered at once. */
async function follow(pair: InteractionPair, scene: Scene, user: RemoteUser) {
  const alice = await sessionUserByHandle(pair.alpha.node, scene.alice);
  const done = await signedInCaller(pair.alpha.node, alice).interactions.follow({
    address: `${user.handle}@${BETA}`,
  });
  expect(done.delivery).toMatchObject({ status: 'delivered' });
}

describe('POST /api/swarm/inbox from a node of ours', () => {
  let pair: InteractionPair;
  let scene: Scene;
  beforeAll(async () => {
    pair = await createInteractionPair();
    scene = await pair.scene();
    await follow(pair, scene, scene.bob);
  });
  afterAll(() => pair?.close());

  it('stores a followed author’s post: author, media, visibility, counts; a repeat refreshes it', async () => {
    const id = randomUUID();
    const body = await pushOf(pair, scene.bob, {
      id,
      post: {
        content: 'for my followers',
        visibility: 'followers',
        media: [{ url: 'https://media.beta.test/a.png', altText: 'a cat' }],
        linkPreviewUrl: 'https://news.example/story',
        linkPreviewTitle: 'A story',
      },
      counts: { likesCount: 3, repostsCount: 2, repliesCount: 1 },
    });
    let told = 0;
    const stop = pair.alpha.node.invalidations.subscribe(LIVE_TOPIC, () => told++);
    const first = await answer(await pair.send(INBOX, body));
    expect(told).toBe(1); // open pages hear of the new copy
    expect(first).toEqual({
      status: 200,
      body: { success: true, message: 'Post received', postId: `swarm:${BETA}:${id}` },
    });
    const row = await copyOf(pair, id);
    expect(row).toMatchObject({
      content: 'for my followers',
      visibility: 'followers',
      likesCount: 3,
      repostsCount: 2,
      repliesCount: 1,
      linkPreviewUrl: 'https://news.example/story',
      linkPreviewTitle: 'A story',
      authorId: null,
      remoteAuthor: { handle: scene.bob.handle, nodeDomain: BETA, did: scene.bob.did },
    });
    expect(row!.media).toEqual([
      expect.objectContaining({
        url: 'https://media.beta.test/a.png',
        mimeType: 'image/png',
        altText: 'a cat',
      }),
    ]);

    // The same post again with new counts: one row, refreshed.
    const before = await postCount(pair);
    const again = await pushOf(pair, scene.bob, {
      id,
      post: (body.post as Body) ?? {},
      counts: { likesCount: 7, repostsCount: 2, repliesCount: 1 },
    });
    const second = await answer(await pair.send(INBOX, again));
    expect(second).toMatchObject({
      status: 200,
      body: { message: 'Post refreshed', postId: `swarm:${BETA}:${id}` },
    });
    expect(await postCount(pair)).toBe(before);
    expect((await copyOf(pair, id))!.likesCount).toBe(7);
    expect(told).toBe(1); // a refresh is no new post
    stop();
  });

  it('pushes arriving together (one statement for them all): each stored once, with its images', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const bodies = await Promise.all(
      ids.map((id, i) =>
        pushOf(pair, scene.bob, {
          id,
          post: {
            content: `together ${i}`,
            media: [{ url: `https://media.beta.test/${i}.png`, altText: `image ${i}` }],
          },
        }),
      ),
    );
    const before = await postCount(pair);
    // The last one twice, in the same batch: one copy; the second answer is a refresh.
    const answers = await Promise.all(
      [...bodies, bodies[3]!].map(async (body) => answer(await pair.send(INBOX, body))),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((a) => a.body.message).sort()).toEqual([
      'Post received',
      'Post received',
      'Post received',
      'Post received',
      'Post refreshed',
    ]);
    expect(await postCount(pair)).toBe(before + 4);
    for (const [i, id] of ids.entries()) {
      const row = await copyOf(pair, id);
      expect(row).toMatchObject({ content: `together ${i}`, visibility: 'public' });
      expect(row!.remoteAuthor).toMatchObject({ handle: scene.bob.handle, nodeDomain: BETA });
      expect(row!.media.map((m) => [m.url, m.altText])).toEqual([
        [`https://media.beta.test/${i}.png`, `image ${i}`],
      ]);
    }
  });

  it('refuses a post by an author nobody here follows: 403 NOT_FOLLOWED, nothing stored', async () => {
    const before = await postCount(pair);
    const id = randomUUID();
    const res = await answer(await pair.send(INBOX, await pushOf(pair, scene.carol, { id })));
    expect(res).toMatchObject({ status: 403, body: { code: 'NOT_FOLLOWED' } });
    expect(await postCount(pair)).toBe(before);
    expect(await copyOf(pair, id)).toBeNull();
  });

  it('refuses a post of another node’s user: 403 FORBIDDEN, nothing stored', async () => {
    const before = await postCount(pair);
    // Beta signs a push naming gamma.test as the author's node, and one naming alpha itself.
    for (const nodeDomain of ['gamma.test', ALPHA]) {
      const body = await pushOf(pair, scene.bob, { nodeDomain });
      const res = await answer(await pair.send(INBOX, body));
      expect(res).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    }
    expect(await postCount(pair)).toBe(before);
  });

  it('refuses forged pushes: 401, nothing stored', async () => {
    const before = await postCount(pair);
    // A node signature by a key that is not beta's.
    const stranger = await generateSigningKeyPair();
    const forgedNode = await answer(
      await pair.send(INBOX, await pushOf(pair, scene.bob), { nodeKey: stranger.privateKey }),
    );
    expect(forgedNode).toMatchObject({ status: 401, body: { code: 'INVALID_SIGNATURE' } });
    // Bob's did is pinned here now (his first push): beta cannot post for him unsigned…
    const unsigned = await answer(
      await pair.send(INBOX, await pushOf(pair, scene.bob, { signer: null })),
    );
    expect(unsigned).toMatchObject({ status: 401, body: { code: 'INVALID_SIGNATURE' } });
    // …nor with another user's signature, whatever did it claims for him.
    const carolSigned = await pushOf(pair, scene.bob, { signer: scene.carol });
    (carolSigned.author as Body).did = scene.carol.did;
    const wrong = await answer(await pair.send(INBOX, carolSigned));
    expect(wrong).toMatchObject({ status: 401, body: { code: 'INVALID_SIGNATURE' } });
    // A signed post whose text was changed after signing.
    const tampered = await pushOf(pair, scene.bob);
    (tampered.post as Body).content = 'not what bob wrote';
    const changed = await answer(await pair.send(INBOX, tampered));
    expect(changed).toMatchObject({ status: 401, body: { code: 'INVALID_SIGNATURE' } });
    // A stale push (the outbox keeps a body at most 7 days).
    const stale = await pushOf(pair, scene.bob);
    stale.timestamp = formatTimestamp(new Date(pair.clock.now().getTime() - 8 * 86_400_000));
    expect(await answer(await pair.send(INBOX, stale))).toMatchObject({
      status: 401,
      body: { code: 'INVALID_SIGNATURE' },
    });
    expect(await postCount(pair)).toBe(before);
  });

  it('refuses oversize (413) and malformed (400) bodies with the error body', async () => {
    const big = await pushOf(pair, scene.bob, {
      post: { content: 'x'.repeat(POST_PUSH_LIMITS.bodyBytes) },
    });
    const oversize = await answer(await pair.send(INBOX, big));
    expect(oversize).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' } });
    const malformed = await pushOf(pair, scene.bob);
    delete (malformed.post as Body).content;
    const bad = await answer(await pair.send(INBOX, malformed));
    expect(bad).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
    expect(bad.body.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: ['post', 'content'] })]),
    );
    for (const junk of [[], 'text', { post: null, nodeDomain: BETA }]) {
      const res = await answer(await pair.send(INBOX, junk));
      expect(res).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
    }
  });

  it('refuses the origin dialect from a node of ours: 401 PROFILE_MISMATCH, nothing stored', async () => {
    const before = await postCount(pair);
    const { postSignature: _dropped, ...body } = await pushOf(pair, scene.bob, { did: false });
    const signed = await signOriginBody(pair.beta.node.keys.privateKey, body);
    const res = await pair.alpha.request(INBOX, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(signed),
    });
    expect(await answer(res)).toMatchObject({ status: 401, body: { code: 'PROFILE_MISMATCH' } });
    expect(await postCount(pair)).toBe(before);
  });

  it('refuses an unsigned push: 401', async () => {
    const res = await pair.alpha.request(INBOX, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(await pushOf(pair, scene.bob)),
    });
    expect(await answer(res)).toMatchObject({ status: 401, body: { code: 'INVALID_SIGNATURE' } });
  });
});

describe('a flood of pushes', () => {
  let pair: InteractionPair;
  let scene: Scene;
  const LIMIT = 5;
  beforeAll(async () => {
    // Each push from another address, so that only the per-node budget can stop them.
    pair = await createInteractionPair({
      SWARM_RATE_LIMIT_PER_MIN: String(LIMIT),
      SWARM_TRUST_PROXY: '1',
    });
    scene = await pair.scene();
  });
  afterAll(() => pair?.close());

  it('is throttled per sending node: 429 with Retry-After', async () => {
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < LIMIT + 3; i++) {
      const text = JSON.stringify(await pushOf(pair, scene.carol));
      const headers = await signNodeRequest({
        privateKey: pair.beta.node.keys.privateKey,
        method: 'POST',
        path: INBOX,
        sourceDomain: BETA,
        targetDomain: ALPHA,
        body: text,
        now: pair.clock.now(),
      });
      const res = await pair.alpha.request(INBOX, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-forwarded-for': `198.51.100.${i + 1}`,
          ...headers,
        },
        body: text,
      });
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
      else await res.body?.cancel();
    }
    // Unsolicited pushes (nobody follows carol) spend the budget too.
    expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(403));
    expect(statuses.slice(LIMIT)).toEqual([429, 429, 429]);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await limited!.json()) as Body;
    expect(body).toMatchObject({ code: 'RATE_LIMITED' });
    expect(String(body.error)).toContain(BETA);
  });
});
