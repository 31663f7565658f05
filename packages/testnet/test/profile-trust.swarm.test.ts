import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWARM_PATHS, formatTimestamp, signOriginBody } from '@swarm/contract';
import {
  BETA,
  createInteractionPair,
  type InteractionPair,
  type Scene,
} from './interactions-harness.ts';

// Issue 22 item 1: a peer of our profile must not drop its users' signatures by speaking the
// origin profile's format. Alpha receives; beta is a real node of ours (its info carries our
// marker, its `/api/node` its key) whose operator turned hostile: the fake requests below are
// written by hand and signed with beta's own node key, and go through alpha's front door.

const LIKE = SWARM_PATHS.interaction('like');

/** A like of `postId` by `handle@beta`, in the origin's format: body `signature` by beta's node key. */
function originLike(pair: InteractionPair, postId: string, handle: string) {
  return signOriginBody(pair.beta.node.keys.privateKey, {
    postId,
    like: {
      actorHandle: handle,
      actorDisplayName: handle,
      actorNodeDomain: BETA,
      interactionId: randomUUID(),
      timestamp: formatTimestamp(pair.clock.now()),
    },
  });
}

/** POSTs `body` to alpha as is: no X-Swarm-* headers (the origin format). */
async function sendBare(pair: InteractionPair, path: string, body: unknown) {
  const res = await pair.alpha.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { code?: string; message?: string } };
}

/** A like by a user of beta with their own signature, header-signed by beta: the honest way. */
async function signedLike(pair: InteractionPair, scene: Scene, postId: string) {
  const body = await pair.signed(scene.bob, 'like', {
    postId,
    like: {
      actorHandle: scene.bob.handle,
      actorDisplayName: 'Bob',
      actorNodeDomain: BETA,
      interactionId: randomUUID(),
      timestamp: formatTimestamp(pair.clock.now()),
    },
  });
  return pair.send(LIKE, body);
}

const likesOf = (pair: InteractionPair, postId: string) =>
  pair.alpha.node.db.prisma.post
    .findUniqueOrThrow({ where: { id: postId }, select: { likesCount: true } })
    .then((p) => p.likesCount);

const betaRow = (pair: InteractionPair) =>
  pair.alpha.node.db.prisma.swarmNode.findUnique({
    where: { domain: BETA },
    select: { protocolProfile: true, keyPinnedAt: true },
  });

/** A pair of its own for the calling `describe` (each starts from nodes that never met). */
function freshPair() {
  const made = {} as { pair: InteractionPair; scene: Scene };
  beforeAll(async () => {
    made.pair = await createInteractionPair();
    made.scene = await made.pair.scene();
  });
  afterAll(() => made.pair?.close());
  return made;
}

describe('a peer that signed a request of ours', () => {
  const t = freshPair();

  it('cannot like for its users through the origin format: 401 PROFILE_MISMATCH, nothing counted', async () => {
    const [first, second] = t.scene.postIds as [string, string];
    // The red-team's first step: bob's like with his own signature, header-signed (his did is pinned).
    expect((await signedLike(t.pair, t.scene, first)).status).toBe(200);
    expect(await betaRow(t.pair)).toMatchObject({ protocolProfile: 'swarm' });

    // The same node, bob's like without his signature, only beta's node key in the body.
    const dropped = await sendBare(
      t.pair,
      LIKE,
      await originLike(t.pair, second, t.scene.bob.handle),
    );
    expect(dropped).toMatchObject({ status: 401, body: { code: 'PROFILE_MISMATCH' } });
    // Twenty likes by users beta made up on the spot.
    for (let i = 0; i < 20; i++) {
      const invented = await sendBare(t.pair, LIKE, await originLike(t.pair, second, `ghost_${i}`));
      expect(invented).toMatchObject({ status: 401, body: { code: 'PROFILE_MISMATCH' } });
    }
    expect(await likesOf(t.pair, second)).toBe(0);
    expect(await likesOf(t.pair, first)).toBe(1);
    // Not relabelled by the requests: alpha still speaks to beta in our profile.
    expect(await betaRow(t.pair)).toMatchObject({ protocolProfile: 'swarm' });
  });

  it('nor reply, follow or announce that way', async () => {
    const before = await t.pair.alpha.node.db.prisma.post.count();
    const reply = {
      postId: t.scene.postIds[2]!,
      reply: {
        id: randomUUID(),
        content: 'not from ghost',
        createdAt: formatTimestamp(t.pair.clock.now()),
        author: { handle: 'ghost', displayName: 'Ghost' },
        nodeDomain: BETA,
      },
    };
    const { signature } = await signOriginBody(t.pair.beta.node.keys.privateKey, reply);
    const replied = await t.pair.alpha.request(SWARM_PATHS.replies, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'X-Swarm-Source-Domain': BETA,
        'X-Swarm-Signature': signature as string,
      },
      body: JSON.stringify(reply),
    });
    expect(replied.status).toBe(401);
    expect(((await replied.json()) as { code: string }).code).toBe('PROFILE_MISMATCH');
    expect(await t.pair.alpha.node.db.prisma.post.count()).toBe(before);

    const follow = await signOriginBody(t.pair.beta.node.keys.privateKey, {
      targetHandle: t.scene.alice,
      follow: {
        followerHandle: 'ghost',
        followerDisplayName: 'Ghost',
        followerNodeDomain: BETA,
        interactionId: randomUUID(),
        timestamp: formatTimestamp(t.pair.clock.now()),
      },
    });
    expect(await sendBare(t.pair, SWARM_PATHS.interaction('follow'), follow)).toMatchObject({
      status: 401,
      body: { code: 'PROFILE_MISMATCH' },
    });
    const announce = await signOriginBody(t.pair.beta.node.keys.privateKey, {
      domain: BETA,
      name: 'beta as origin',
      timestamp: formatTimestamp(t.pair.clock.now()),
    });
    expect(await sendBare(t.pair, SWARM_PATHS.announce, announce)).toMatchObject({
      status: 401,
      body: { code: 'PROFILE_MISMATCH' },
    });
    expect(await betaRow(t.pair)).toMatchObject({ protocolProfile: 'swarm' });
  });
});

describe('a peer never heard of before', () => {
  const t = freshPair();

  it('whose info carries our marker: refused at first contact, nothing pinned or recorded', async () => {
    expect(await betaRow(t.pair)).toBeNull();
    const like = await sendBare(
      t.pair,
      LIKE,
      await originLike(t.pair, t.scene.postIds[0]!, 'ghost'),
    );
    expect(like).toMatchObject({ status: 401, body: { code: 'PROFILE_MISMATCH' } });
    expect(await likesOf(t.pair, t.scene.postIds[0]!)).toBe(0);
    // Before, this pinned beta's key and recorded it as an origin node.
    expect((await betaRow(t.pair))?.keyPinnedAt ?? null).toBeNull();
  });
});

describe('a peer that accepted a POST of ours', () => {
  const t = freshPair();

  it('is known as ours even where its info is not asked', async () => {
    // Alpha announces to beta, header-signed, and beta takes it: beta speaks our profile.
    const announced = await t.pair.alpha.node.registry.announceTo(BETA, 'admin');
    expect(announced.ok).toBe(true);
    expect(await betaRow(t.pair)).toMatchObject({ protocolProfile: 'swarm' });
    const like = await sendBare(
      t.pair,
      LIKE,
      await originLike(t.pair, t.scene.postIds[0]!, 'ghost'),
    );
    expect(like).toMatchObject({ status: 401, body: { code: 'PROFILE_MISMATCH' } });
  });
});

describe('an actor whose did is pinned here, through a peer recorded as origin', () => {
  const t = freshPair();

  it('must sign with that did whatever the format: 401; its unpinned users are the node’s word', async () => {
    expect((await signedLike(t.pair, t.scene, t.scene.postIds[0]!)).status).toBe(200);
    // Whatever made this node record beta as origin (an operator's mistake, a node that hid its
    // marker before bob's key was seen), bob's pinned did still decides.
    await t.pair.alpha.node.db.prisma.swarmNode.update({
      where: { domain: BETA },
      data: { protocolProfile: 'origin' },
    });
    const bob = await sendBare(
      t.pair,
      LIKE,
      await originLike(t.pair, t.scene.postIds[1]!, t.scene.bob.handle),
    );
    expect(bob).toMatchObject({ status: 401, body: { code: 'INVALID_SIGNATURE' } });
    expect(await likesOf(t.pair, t.scene.postIds[1]!)).toBe(0);
    // An actor of that node with no key seen here: the origin profile's trust in its node.
    const ghost = await sendBare(
      t.pair,
      LIKE,
      await originLike(t.pair, t.scene.postIds[1]!, 'ghost'),
    );
    expect(ghost).toMatchObject({ status: 200 });
    expect(await likesOf(t.pair, t.scene.postIds[1]!)).toBe(1);
  });

  it('its own info with our marker and its pinned key relabels it ours, in the sync log and the audit log', async () => {
    const prisma = t.pair.alpha.node.db.prisma;
    // Once this process's memory of beta's profile (10 minutes) has passed, as on another replica.
    t.pair.clock.advance(11 * 60_000);
    const probed = await t.pair.alpha.node.registry.probe(BETA, 'discover');
    expect(probed.ok).toBe(true);
    expect(await betaRow(t.pair)).toMatchObject({ protocolProfile: 'swarm' });
    const logged = await prisma.swarmSyncLog.findFirst({
      where: { remoteDomain: BETA, errorMessage: { contains: 'origin → swarm' } },
    });
    expect(logged).not.toBeNull();
    const audited = await prisma.auditLog.findFirst({
      where: { action: 'node.profile', target: BETA },
    });
    expect(audited).toMatchObject({ actor: 'system', details: { from: 'origin', to: 'swarm' } });
    const ghost = await sendBare(
      t.pair,
      LIKE,
      await originLike(t.pair, t.scene.postIds[2]!, 'ghost2'),
    );
    expect(ghost).toMatchObject({ status: 401, body: { code: 'PROFILE_MISMATCH' } });
  });

  it('an operator’s key reset forgets the profile too; the marker still refuses the origin format', async () => {
    expect(await t.pair.alpha.node.nodeAuth.resetPinnedKey(BETA)).toBe(true);
    expect(await betaRow(t.pair)).toMatchObject({ protocolProfile: null, keyPinnedAt: null });
    const ghost = await sendBare(
      t.pair,
      LIKE,
      await originLike(t.pair, t.scene.postIds[2]!, 'ghost3'),
    );
    expect(ghost).toMatchObject({ status: 401, body: { code: 'PROFILE_MISMATCH' } });
    expect(await likesOf(t.pair, t.scene.postIds[2]!)).toBe(0);
  });
});
