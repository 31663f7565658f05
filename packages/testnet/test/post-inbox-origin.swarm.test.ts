import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWARM_PATHS, generateSigningKeyPair, publicKeyToDidKey } from '@swarm/contract';
import {
  createManualClock,
  insertKeyedUser,
  signedInCaller,
  startOriginPeer,
  type KeyedUser,
  type OriginPeer,
} from './harness.ts';
import { ourNodeOnPort, type OurNode } from './origin-harness.ts';

// Issue 24, post delivery from a peer of the origin profile: the fake origin node (built from the
// fact sheet) pushes its users' new posts to our node over real HTTP, body-signed its way. Alice
// here follows olga there through her node's own follow action; nobody follows oscar.

const clock = createManualClock(new Date());
let ours: OurNode;
let origin: OriginPeer;
let alice: KeyedUser;

const prisma = () => ours.t.node.db.prisma;
const copyOf = (id: string) =>
  prisma().post.findUnique({
    where: { apId: `swarm:${origin.domain}:${id}` },
    include: { remoteAuthor: true, media: true },
  });

beforeAll(async () => {
  ours = await ourNodeOnPort(clock);
  origin = await startOriginPeer({
    users: [
      { handle: 'olga', displayName: 'Olga', avatarUrl: 'https://img.example/olga.png' },
      { handle: 'oscar', displayName: 'Oscar' },
    ],
    now: () => clock.now(),
  });
  alice = await insertKeyedUser(ours.t.node, 'alice');
  const follow = await signedInCaller(ours.t.node, alice.user).interactions.follow({
    address: `olga@${origin.domain}`,
  });
  expect(follow.delivery).toMatchObject({ status: 'delivered' });
});

afterAll(async () => {
  await origin?.close();
  await ours?.close();
});

describe('POST /api/swarm/inbox in the origin profile’s format', () => {
  it('stores a followed author’s post: public, counts 0, media and card kept', async () => {
    const pushed = await origin.pushPost(ours.domain, {
      author: 'olga',
      content: 'hello from the origin',
      extra: {
        media: [{ url: 'https://img.example/sea.jpg', mimeType: 'image/jpeg', altText: 'sea' }],
        linkPreviewUrl: 'https://news.example/a',
        linkPreviewTitle: 'News',
        linkPreviewType: 'card',
      },
    });
    const id = (pushed.sent.post as { id: string }).id;
    expect(pushed).toMatchObject({
      status: 200,
      body: { success: true, message: 'Post received', postId: `swarm:${origin.domain}:${id}` },
    });
    const row = await copyOf(id);
    expect(row).toMatchObject({
      content: 'hello from the origin',
      visibility: 'public',
      likesCount: 0,
      repostsCount: 0,
      repliesCount: 0,
      linkPreviewUrl: 'https://news.example/a',
      remoteAuthor: {
        handle: 'olga',
        nodeDomain: origin.domain,
        displayName: 'Olga',
        avatarUrl: 'https://img.example/olga.png',
      },
    });
    expect(row!.media).toEqual([
      expect.objectContaining({ url: 'https://img.example/sea.jpg', altText: 'sea' }),
    ]);
    // The origin has no counts to push: a repeat keeps the ones known here.
    await prisma().post.update({ where: { id: row!.id }, data: { likesCount: 4 } });
    const again = await origin.pushPost(ours.domain, { author: 'olga', postId: id });
    expect(again).toMatchObject({ status: 200, body: { message: 'Post refreshed' } });
    expect((await copyOf(id))!.likesCount).toBe(4);
  });

  it('refuses a post by an author nobody here follows: 403 NOT_FOLLOWED, nothing stored', async () => {
    const before = await prisma().post.count();
    const pushed = await origin.pushPost(ours.domain, { author: 'oscar', content: 'anyone?' });
    expect(pushed).toMatchObject({ status: 403, body: { code: 'NOT_FOLLOWED' } });
    expect(await prisma().post.count()).toBe(before);
  });

  it('refuses a body changed after signing (401) and a foreign nodeDomain (401), nothing stored', async () => {
    const before = await prisma().post.count();
    const honest = await origin.pushPost(ours.domain, { author: 'olga', content: 'original' });
    expect(honest.status).toBe(200);
    const post = { ...(honest.sent.post as Record<string, unknown>), id: randomUUID() };
    const changed = await origin.post(ours.domain, SWARM_PATHS.inbox, {
      ...honest.sent,
      post: { ...post, content: 'changed on the way' },
    });
    expect(changed).toMatchObject({ status: 401, body: { code: 'INVALID_SIGNATURE' } });
    // Signed by the origin's key but naming another node as the author's: that node's key
    // (none can be fetched from it) is what would have to verify.
    const foreign = await origin.post(
      ours.domain,
      SWARM_PATHS.inbox,
      origin.signBody({ ...honest.sent, post, nodeDomain: 'elsewhere.example' }),
    );
    expect(foreign.status).toBe(401);
    expect(foreign.body).toMatchObject({ code: 'INVALID_SIGNATURE' });
    expect(await prisma().post.count()).toBe(before + 1);
  });

  it('refuses a post by an author whose did (a key of ours) is pinned here: 401, nothing stored', async () => {
    const key = await generateSigningKeyPair();
    const actorUrl = `swarm://${origin.domain}/olga`;
    await prisma().remoteActor.update({
      where: { actorUrl },
      data: { did: await publicKeyToDidKey(key.publicKey) },
    });
    const before = await prisma().post.count();
    const pushed = await origin.pushPost(ours.domain, { author: 'olga', content: 'unsigned' });
    expect(pushed).toMatchObject({ status: 401, body: { code: 'INVALID_SIGNATURE' } });
    expect(await prisma().post.count()).toBe(before);
    await prisma().remoteActor.update({ where: { actorUrl }, data: { did: null } });
  });

  it('a repost of a post not held here is answered and not kept', async () => {
    const before = await prisma().post.count();
    const pushed = await origin.pushPost(ours.domain, {
      author: 'olga',
      content: '',
      extra: { repostOfId: randomUUID() },
    });
    expect(pushed).toMatchObject({ status: 200, body: { success: true } });
    expect(await prisma().post.count()).toBe(before);
  });

  it('a malformed origin body: 400 with the origin dialect’s issues', async () => {
    const pushed = await origin.post(
      ours.domain,
      SWARM_PATHS.inbox,
      origin.signBody({
        post: { id: randomUUID(), createdAt: clock.now().toISOString(), isNsfw: false },
        author: { handle: 'olga', displayName: 'Olga', isNsfw: false },
        nodeDomain: origin.domain,
        timestamp: clock.now().toISOString(),
      }),
    );
    expect(pushed).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
    expect((pushed.body as { details: unknown[] }).details).toEqual([
      expect.objectContaining({ path: ['post', 'content'] }),
    ]);
  });
});
