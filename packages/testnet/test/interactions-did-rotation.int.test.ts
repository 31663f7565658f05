import { describe, expect, it } from 'vitest';
import { formatTimestamp, generateSigningKeyPair, publicKeyToDidKey } from '@swarm/contract';
import { DID_RECHECK_MS, READ_CACHE_TTL_MS } from '@swarm/domain';
import {
  BETA,
  pairWithFreshScenes,
  paths,
  type InteractionPair,
  type RemoteUser,
  type Scene,
} from './interactions-harness.ts';

// A user's did is pinned on first sight (docs/protocol.md). When a user rotates their key, the
// pinned did fails; the receiver then asks the user's node again, at most once per actor per
// DID_RECHECK_MS, re-pins the did the node now publishes when it proves the signature, and
// refuses otherwise. Forged signatures must not turn into a stream of fetches to the node.

let t: InteractionPair;
let s: Scene;
let seq = 0;

pairWithFreshScenes({ pair: (made) => (t = made), scene: (made) => (s = made) });

const like = (user: RemoteUser, postId: string) =>
  t.signed(user, 'like', {
    postId,
    like: {
      actorHandle: user.handle,
      actorDisplayName: user.handle,
      actorNodeDomain: BETA,
      interactionId: `rotation-like-${++seq}`,
      timestamp: formatTimestamp(t.clock.now()),
    },
  });

async function status(response: Response): Promise<{ status: number; code?: string }> {
  const body = (await response.json()) as { code?: string };
  return response.status === 200 ? { status: 200 } : { status: response.status, code: body.code };
}

const pinnedDid = async (user: RemoteUser) =>
  (
    await t.alpha.node.db.prisma.remoteActor.findUniqueOrThrow({
      where: { nodeDomain_handle: { nodeDomain: BETA, handle: user.handle } },
    })
  ).did;

/** The user gets a new key on beta (what a key rotation looks like from outside). */
async function rotate(user: RemoteUser): Promise<RemoteUser> {
  const pair = await generateSigningKeyPair();
  const did = await publicKeyToDidKey(pair.publicKey);
  await t.beta.node.db.prisma.user.update({ where: { handle: user.handle }, data: { did } });
  // Beta's public reads may be a second stale (its read cache).
  t.clock.advance(READ_CACHE_TTL_MS);
  return { ...user, did, privateKey: pair.privateKey };
}

const likesOf = (postId: string) =>
  t.alpha.node.db.prisma.post
    .findUniqueOrThrow({ where: { id: postId } })
    .then((p) => p.likesCount);

describe('user did rotation', () => {
  it('accepts a rotated key after asking the node once, and re-pins the new did', async () => {
    const [p1, p2, p3] = s.postIds as [string, string, string];
    expect(await status(await t.send(paths.like, await like(s.bob, p1)))).toEqual({ status: 200 });
    expect(await pinnedDid(s.bob)).toBe(s.bob.did);
    expect(t.profileFetches(s.bob.handle)).toBe(1);

    const rotated = await rotate(s.bob);
    expect(await status(await t.send(paths.like, await like(rotated, p2)))).toEqual({
      status: 200,
    });
    expect(await pinnedDid(s.bob)).toBe(rotated.did);
    expect(t.profileFetches(s.bob.handle)).toBe(2);
    expect(await likesOf(p2)).toBe(1);

    // The new did is pinned now: no more fetches; the old key is refused.
    expect(await status(await t.send(paths.like, await like(rotated, p3)))).toEqual({
      status: 200,
    });
    expect(await status(await t.send(paths.like, await like(s.bob, p3)))).toEqual({
      status: 401,
      code: 'INVALID_SIGNATURE',
    });
    expect(t.profileFetches(s.bob.handle)).toBe(2);
    expect(await pinnedDid(s.bob)).toBe(rotated.did);
  });

  it('checks the pinned did in the database on every like, not in memory', async () => {
    const [p1, p2] = s.postIds as [string, string];
    expect(await status(await t.send(paths.like, await like(s.bob, p1)))).toEqual({ status: 200 });
    // Another replica on the same database re-pins bob's did (his node publishes a new key):
    // this process is not told, and must refuse the old key from now on.
    const rotated = await rotate(s.bob);
    await t.alpha.node.db.prisma.remoteActor.update({
      where: { nodeDomain_handle: { nodeDomain: BETA, handle: s.bob.handle } },
      data: { did: rotated.did },
    });
    expect(await status(await t.send(paths.like, await like(s.bob, p2)))).toEqual({
      status: 401,
      code: 'INVALID_SIGNATURE',
    });
    expect(await likesOf(p2)).toBe(0);
    expect(await status(await t.send(paths.like, await like(rotated, p2)))).toEqual({
      status: 200,
    });
    expect(await likesOf(p2)).toBe(1);
  });

  it('refuses a forged signature with 401 and asks the node at most once per window', async () => {
    const [p1, p2] = s.postIds as [string, string];
    expect(await status(await t.send(paths.like, await like(s.carol, p1)))).toEqual({
      status: 200,
    });
    expect(t.profileFetches(s.carol.handle)).toBe(1);

    const mallory = { ...s.carol, privateKey: (await generateSigningKeyPair()).privateKey };
    const refused = { status: 401, code: 'INVALID_SIGNATURE' };
    // The first failure asks beta (the did may have changed): it has not, so 401.
    expect(await status(await t.send(paths.like, await like(mallory, p2)))).toEqual(refused);
    expect(t.profileFetches(s.carol.handle)).toBe(2);
    // More forgeries inside the window, one after another and at once: no further fetch.
    expect(await status(await t.send(paths.like, await like(mallory, p2)))).toEqual(refused);
    const burst = await Promise.all(
      Array.from({ length: 5 }, async () => t.send(paths.like, await like(mallory, p2))),
    );
    for (const answer of burst) expect(await status(answer)).toEqual(refused);
    t.clock.advance(DID_RECHECK_MS - 1);
    expect(await status(await t.send(paths.like, await like(mallory, p2)))).toEqual(refused);
    expect(t.profileFetches(s.carol.handle)).toBe(2);

    // Once the window has passed, a failure may ask again (still refused).
    t.clock.advance(1);
    expect(await status(await t.send(paths.like, await like(mallory, p2)))).toEqual(refused);
    expect(t.profileFetches(s.carol.handle)).toBe(3);

    expect(await pinnedDid(s.carol)).toBe(s.carol.did);
    expect(await likesOf(p2)).toBe(0);
  });

  it('keeps refusing a rotated key asked about inside the window, until the window passes', async () => {
    // Why the window costs a real user little: the sender's outbox retries, and the retry
    // after the window goes through.
    const [p1, p2] = s.postIds as [string, string];
    expect(await status(await t.send(paths.like, await like(s.bob, p1)))).toEqual({ status: 200 });
    const mallory = { ...s.bob, privateKey: (await generateSigningKeyPair()).privateKey };
    expect((await status(await t.send(paths.like, await like(mallory, p2)))).status).toBe(401);

    const rotated = await rotate(s.bob);
    const body = await like(rotated, p2);
    expect((await status(await t.send(paths.like, body))).status).toBe(401);
    expect(t.profileFetches(s.bob.handle)).toBe(2);

    t.clock.advance(DID_RECHECK_MS);
    expect(await status(await t.send(paths.like, body))).toEqual({ status: 200 });
    expect(t.profileFetches(s.bob.handle)).toBe(3);
    expect(await pinnedDid(s.bob)).toBe(rotated.did);
  });
});
