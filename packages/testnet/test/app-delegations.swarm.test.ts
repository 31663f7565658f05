import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionUser } from '@swarm/auth';
import {
  SWARM_PATHS,
  formatTimestamp,
  generateSigningKeyPair,
  importPrivateKeyPem,
  publicKeyToDidKey,
  signNodeRequest,
  signUserAction,
  type Delegation,
  type DelegableAction,
  type Result,
} from '@swarm/contract';
import {
  DELEGATION_STATUS_TTL_MS,
  type ActionResult,
  type AppGrant,
  type PreparedForSigning,
} from '@swarm/domain';
import {
  ALPHA as A,
  BETA as B,
  createTestNetwork,
  insertKeyedUser,
  sessionUserByHandle,
  signedInCaller,
  type KeyedUser,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';

// App keys the user signs (docs/protocol.md "App delegations"), across two nodes of our
// profile over real gateways: alice on alpha allowed an app; her browser signed the delegation
// to the key alpha made for it; the app's like, follow and post reach beta signed by that key.
// Then what beta refuses, each without writing anything: a delegation signed by someone else,
// an expired one, a revoked one (seen once beta's cached state is older than five minutes), an
// action outside it, and a body the app key did not sign; for likes, follows and unfollows.

let net: TestNetwork;
let alpha: NetworkNode;
let beta: NetworkNode;
let alice: KeyedUser;
let bob: SessionUser;

const LIKE = SWARM_PATHS.interaction('like');
const REPOST = SWARM_PATHS.interaction('repost');

/** An app alice allowed with `scopes`, its token, and her delegation signed "in her browser". */
async function allowApp(scopes: string[], who: KeyedUser = alice) {
  const prisma = alpha.node.db.prisma;
  const app = await prisma.clientApp.create({
    data: {
      name: `App ${randomUUID().slice(0, 6)}`,
      redirectUris: ['urn:ietf:wg:oauth:2.0:oob'],
      scopes: scopes.join(' '),
      clientId: randomUUID(),
      secretHash: createHash('sha256').update(randomUUID()).digest(),
    },
  });
  await prisma.oAuthToken.create({
    data: {
      tokenHash: createHash('sha256').update(randomUUID()).digest(),
      appId: app.id,
      userId: who.user.id,
      scopes: scopes.join(' '),
    },
  });
  const grant: AppGrant = { userId: who.user.id, appId: app.id };
  const prepared = await alpha.node.appDelegations.prepare(who.user.id, { appId: app.id, scopes });
  if (!prepared.ok || !prepared.value) throw new Error('expected a delegation to sign');
  const signature = await signUserAction({ privateKey: who.privateKey, ...prepared.value });
  const confirmed = await alpha.node.appDelegations.confirm(who.user.id, {
    appId: app.id,
    delegationId: String(prepared.value.body.id),
    signature,
  });
  if (!confirmed.ok) throw new Error(confirmed.reason.message);
  return { grant, delegation: confirmed.value };
}

async function bobPosts(content: string) {
  const { post } = await signedInCaller(beta.node, bob).posts.create({ content });
  return { id: post.id, remoteId: `swarm:${B}:${post.id}` };
}

/** The body alpha prepares for alice's like or repost of a post of beta. */
async function prepared(kind: 'like' | 'repost', remoteId: string) {
  const answer = await alpha.node.actions.interactions.prepare(alice.user.id, {
    kind,
    postId: remoteId,
  });
  if (!answer.ok || answer.value.local) throw new Error('expected a remote post');
  return answer.value;
}

/** `body` with `delegation`, signed as an app key signs it. */
async function appSigned(
  kind: DelegableAction,
  body: Record<string, unknown>,
  delegation: unknown,
  key: CryptoKey,
) {
  const withDelegation = { ...body, delegation };
  const signature = await signUserAction({
    privateKey: key,
    action: kind as 'like',
    targetDomain: B,
    body: withDelegation,
  });
  return { ...withDelegation, signature };
}

/** Alpha's gateway sending `body` to beta: node-signed. */
async function sendToBeta(path: string, body: Record<string, unknown>) {
  const text = JSON.stringify(body);
  const headers = await signNodeRequest({
    privateKey: alpha.node.keys.privateKey,
    method: 'POST',
    path,
    sourceDomain: A,
    targetDomain: B,
    body: text,
    now: net.clock.now(),
  });
  return beta.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: text,
  });
}

/** What beta holds that a refused like or repost would have written. */
async function written(postId: string) {
  const prisma = beta.node.db.prisma;
  const post = await prisma.post.findUniqueOrThrow({ where: { id: postId } });
  return {
    likes: post.likesCount,
    reposts: post.repostsCount,
    ledger: await prisma.inboundInteraction.count(),
    notifications: await prisma.notification.count({ where: { postId } }),
  };
}

/** A delegation made and signed by hand (for the forged and expired ones). */
async function handMade(input: {
  signer: CryptoKey;
  did: string;
  actions?: DelegableAction[];
  issuedAt?: Date;
  expiresAt?: Date;
}) {
  const app = await generateSigningKeyPair();
  const now = net.clock.now();
  const body: Omit<Delegation, 'signature'> = {
    id: randomUUID(),
    user: `alice@${A}`,
    did: input.did,
    appKey: await publicKeyToDidKey(app.publicKey),
    appName: 'Hand made',
    actions: input.actions ?? ['like'],
    issuedAt: formatTimestamp(input.issuedAt ?? now),
    expiresAt: formatTimestamp(input.expiresAt ?? new Date(now.getTime() + 86_400_000)),
  };
  const signature = await signUserAction({
    privateKey: input.signer,
    action: 'delegate',
    targetDomain: A,
    body,
  });
  return { delegation: { ...body, signature }, appKey: app.privateKey };
}

/** What the client API passes as `sign` for an app's follow (app-signing.ts `appSignerFor`). */
const signerOf = (grant: AppGrant) => async (p: PreparedForSigning) => {
  const signed = await alpha.node.appDelegations.signInteraction(grant, p);
  return signed.ok ? signed.value : null;
};

/** The body alpha sent for an action (its delivery's outbox row). */
async function sentBody(done: Result<ActionResult, unknown>) {
  if (!done.ok || !done.value.delivery) throw new Error('expected a delivery');
  const row = await alpha.node.db.prisma.outboxDelivery.findUniqueOrThrow({
    where: { id: done.value.delivery.id },
  });
  return JSON.parse(row.body) as Record<string, unknown>;
}

const bobFollowedByAlice = async () =>
  (await beta.node.db.prisma.follow.count({
    where: { followerKey: `swarm://${A}/alice`, followeeUserId: bob.id },
  })) === 1;

/** `work` while alpha's registry says beta does not list `delegations`. */
async function withoutDelegations(work: () => Promise<void>) {
  const nodes = alpha.node.db.prisma.swarmNode;
  const before = await nodes.findUniqueOrThrow({ where: { domain: B } });
  const listed = JSON.parse(before.capabilities) as string[];
  await nodes.update({
    where: { domain: B },
    data: { capabilities: JSON.stringify(listed.filter((c) => c !== 'delegations')) },
  });
  try {
    await work();
  } finally {
    await nodes.update({ where: { domain: B }, data: { capabilities: before.capabilities } });
  }
}

/** The private app key alpha keeps for a delegation (what the node signs with). */
async function appKeyOf(delegationId: string) {
  const row = await alpha.node.db.prisma.appDelegation.findUniqueOrThrow({
    where: { id: delegationId },
  });
  const key = await importPrivateKeyPem(row.appPrivateKeyPem);
  if (!key.ok) throw new Error(key.reason);
  return key.value;
}

beforeAll(async () => {
  net = await createTestNetwork({
    nodes: [
      { domain: A, handles: [] },
      { domain: B, handles: ['bob'], seeds: [A] },
    ],
  });
  alpha = net.node(A);
  beta = net.node(B);
  await net.announceAll();
  await net.roundsUntilConverged(5);
  alice = await insertKeyedUser(alpha.node, 'alice');
  bob = await sessionUserByHandle(beta.node, 'bob');
});
afterAll(() => net.close());

describe('an app alice allowed acts on beta under her delegation', () => {
  it('both nodes advertise `delegations`; alpha publishes the delegation as active', async () => {
    const info = await (await beta.request(SWARM_PATHS.info)).json();
    expect(info.capabilities).toContain('delegations');
    const { delegation } = await allowApp(['read', 'write', 'follow']);
    expect(delegation).toMatchObject({
      user: `alice@${A}`,
      did: alice.user.did,
      actions: expect.arrayContaining(['like', 'repost', 'follow', 'post']),
    });
    const state = await alpha.request(SWARM_PATHS.delegation(delegation.id));
    expect(state.status).toBe(200);
    expect(await state.json()).toMatchObject({ id: delegation.id, state: 'active' });
    const unknown = await alpha.request(SWARM_PATHS.delegation(randomUUID()));
    expect(unknown.status).toBe(404);
    const bad = await alpha.request(SWARM_PATHS.delegation('not-a-uuid'));
    expect(bad.status).toBe(404);
  });

  it('a like signed by the app key reaches beta and is counted', async () => {
    const { grant } = await allowApp(['read', 'write']);
    const target = await bobPosts('like me from an app');
    const signed = await alpha.node.appDelegations.signInteraction(
      grant,
      await prepared('like', target.remoteId),
    );
    if (!signed.ok) throw new Error(signed.reason.message);
    const liked = await alpha.node.actions.interactions.like(alice.user.id, {
      postId: target.remoteId,
      signed: signed.value,
    });
    expect(liked).toMatchObject({ ok: true, value: { delivery: { status: 'delivered' } } });
    expect(await written(target.id)).toMatchObject({ likes: 1, notifications: 1 });
    const sent = await alpha.node.db.prisma.outboxDelivery.findFirstOrThrow({
      where: { kind: 'like', targetDomain: B },
      orderBy: { createdAt: 'desc' },
    });
    expect(JSON.parse(sent.body)).toMatchObject({ delegation: { id: signed.value.delegation.id } });
  });

  it('a follow and an unfollow signed by the app key reach beta, which proves them', async () => {
    const { grant, delegation } = await allowApp(['read', 'follow']);
    const acts = alpha.node.actions.interactions;
    const followed = await acts.follow(alice.user.id, {
      address: `bob@${B}`,
      sign: signerOf(grant),
    });
    expect(followed).toMatchObject({ ok: true, value: { delivery: { status: 'delivered' } } });
    expect(await sentBody(followed)).toMatchObject({
      delegation: { id: delegation.id },
      signature: expect.any(String),
    });
    expect(await bobFollowedByAlice()).toBe(true);
    // Beta checked the chain: alice's did is pinned there from the delegation it verified.
    const pinned = await beta.node.db.prisma.remoteActor.findUniqueOrThrow({
      where: { actorUrl: `swarm://${A}/alice` },
    });
    expect(pinned.did).toBe(alice.user.did);

    const unfollowed = await acts.unfollow(alice.user.id, {
      address: `bob@${B}`,
      sign: signerOf(grant),
    });
    expect(unfollowed).toMatchObject({ ok: true, value: { delivery: { status: 'delivered' } } });
    expect(await sentBody(unfollowed)).toMatchObject({ delegation: { id: delegation.id } });
    expect(await bobFollowedByAlice()).toBe(false);
  });

  it('a follow without a usable delegation, or to a node without `delegations`, goes unsigned', async () => {
    const acts = alpha.node.actions.interactions;
    // The app holds no delegation for follows (a Development token, no key at consent).
    const bare = await acts.follow(alice.user.id, { address: `bob@${B}`, sign: async () => null });
    expect(bare).toMatchObject({ ok: true, value: { delivery: { status: 'delivered' } } });
    expect(await sentBody(bare)).not.toHaveProperty('signature');
    expect(await bobFollowedByAlice()).toBe(true);
    const back = await acts.unfollow(alice.user.id, {
      address: `bob@${B}`,
      sign: async () => null,
    });
    expect(back).toMatchObject({ ok: true, value: { delivery: { status: 'delivered' } } });
    expect(await bobFollowedByAlice()).toBe(false);

    // An app that could sign, toward a node that does not list `delegations`: as our pages.
    const { grant } = await allowApp(['read', 'follow']);
    await withoutDelegations(async () => {
      const followed = await acts.follow(alice.user.id, {
        address: `bob@${B}`,
        sign: signerOf(grant),
      });
      expect(followed).toMatchObject({ ok: true, value: { delivery: { status: 'delivered' } } });
      const sent = await sentBody(followed);
      expect(sent).not.toHaveProperty('delegation');
      expect(sent).not.toHaveProperty('signature');
      expect(await bobFollowedByAlice()).toBe(true);
    });
  });

  it('a post signed by the app key is pushed to beta with the delegation and kept there', async () => {
    const follow = await signedInCaller(beta.node, bob).interactions.follow({
      address: `alice@${A}`,
    });
    expect(follow.delivery).toMatchObject({ status: 'delivered' });
    const { grant } = await allowApp(['read', 'write:statuses']);
    const input = { content: 'written in an app' };
    const ready = await alpha.node.actions.posts.prepare(alice.user.id, input);
    if (!ready.ok || !ready.value) throw new Error('expected a post to sign');
    const signed = await alpha.node.appDelegations.signPost(grant, ready.value);
    if (!signed.ok) throw new Error(signed.reason.message);
    const created = await alpha.node.actions.posts.create(alice.user.id, {
      ...input,
      signed: signed.value,
    });
    if (!created.ok) throw new Error(created.reason.message);
    expect(created.value.pushedTo).toEqual([B]);
    await alpha.node.delivery.processDue();
    const copy = await beta.node.db.prisma.post.findUnique({
      where: { apId: `swarm:${A}:${created.value.post.id}` },
    });
    expect(copy?.content).toBe('written in an app');
  });

  it('an app may not act outside its scopes: refused on alpha before anything is sent', async () => {
    const { grant } = await allowApp(['read', 'write:favourites']);
    const target = await bobPosts('repost me');
    const signed = await alpha.node.appDelegations.signInteraction(
      grant,
      await prepared('repost', target.remoteId),
    );
    expect(signed).toMatchObject({ ok: false, reason: { code: 'FORBIDDEN' } });
  });

  it('a peer without `delegations` is not sent an app-signed like: refused here, clearly', async () => {
    const { grant } = await allowApp(['read', 'write']);
    const target = await bobPosts('not for apps');
    const signed = await alpha.node.appDelegations.signInteraction(
      grant,
      await prepared('like', target.remoteId),
    );
    if (!signed.ok) throw new Error(signed.reason.message);
    const nodes = alpha.node.db.prisma.swarmNode;
    const before = await nodes.findUniqueOrThrow({ where: { domain: B } });
    await nodes.update({
      where: { domain: B },
      data: { capabilities: JSON.stringify(['handles', 'interactions', 'posts']) },
    });
    try {
      const liked = await alpha.node.actions.interactions.like(alice.user.id, {
        postId: target.remoteId,
        signed: signed.value,
      });
      expect(liked).toMatchObject({ ok: false, reason: { code: 'FORBIDDEN' } });
      if (!liked.ok) expect(liked.reason.message).toContain('delegations');
      expect(await written(target.id)).toMatchObject({ likes: 0 });
    } finally {
      await nodes.update({ where: { domain: B }, data: { capabilities: before.capabilities } });
    }
  });
});

describe('what beta refuses, writing nothing', () => {
  it('a delegation signed by someone else than alice', async () => {
    const target = await bobPosts('forged');
    const mallory = await generateSigningKeyPair();
    const forged = await handMade({ signer: mallory.privateKey, did: alice.user.did! });
    const before = await written(target.id);
    const body = await appSigned(
      'like',
      (await prepared('like', target.remoteId)).body,
      forged.delegation,
      forged.appKey,
    );
    const answer = await sendToBeta(LIKE, body);
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({ code: 'INVALID_SIGNATURE' });
    // Naming the forger's own did instead does not help: beta holds alice's.
    const ownDid = await handMade({
      signer: mallory.privateKey,
      did: await publicKeyToDidKey(mallory.publicKey),
    });
    const again = await sendToBeta(
      LIKE,
      await appSigned(
        'like',
        (await prepared('like', target.remoteId)).body,
        ownDid.delegation,
        ownDid.appKey,
      ),
    );
    expect(again.status).toBe(401);
    expect(await written(target.id)).toEqual(before);
  });

  it('an expired delegation', async () => {
    const target = await bobPosts('expired');
    const now = net.clock.now().getTime();
    const expired = await handMade({
      signer: alice.privateKey,
      did: alice.user.did!,
      issuedAt: new Date(now - 2 * 86_400_000),
      expiresAt: new Date(now - 60_000),
    });
    const before = await written(target.id);
    const answer = await sendToBeta(
      LIKE,
      await appSigned(
        'like',
        (await prepared('like', target.remoteId)).body,
        expired.delegation,
        expired.appKey,
      ),
    );
    expect(answer.status).toBe(401);
    expect((await answer.json()).error).toContain('expired');
    // One that runs longer than receivers accept (400 days) is refused too.
    const endless = await handMade({
      signer: alice.privateKey,
      did: alice.user.did!,
      expiresAt: new Date(now + 500 * 86_400_000),
    });
    const long = await sendToBeta(
      LIKE,
      await appSigned(
        'like',
        (await prepared('like', target.remoteId)).body,
        endless.delegation,
        endless.appKey,
      ),
    );
    expect(long.status).toBe(401);
    expect((await long.json()).error).toContain('400 days');
    expect(await written(target.id)).toEqual(before);
  });

  it('an action outside the delegation', async () => {
    const target = await bobPosts('out of scope');
    const { delegation } = await allowApp(['read', 'write:favourites']);
    const before = await written(target.id);
    const answer = await sendToBeta(
      REPOST,
      await appSigned(
        'repost',
        (await prepared('repost', target.remoteId)).body,
        delegation,
        await appKeyOf(delegation.id),
      ),
    );
    expect(answer.status).toBe(403);
    expect((await answer.json()).error).toContain('does not allow repost');
    expect(await written(target.id)).toEqual(before);
  });

  it('a body the app key did not sign', async () => {
    const target = await bobPosts('wrong app key');
    const { delegation } = await allowApp(['read', 'write']);
    const other = await generateSigningKeyPair();
    const before = await written(target.id);
    const answer = await sendToBeta(
      LIKE,
      await appSigned(
        'like',
        (await prepared('like', target.remoteId)).body,
        delegation,
        other.privateKey,
      ),
    );
    expect(answer.status).toBe(401);
    expect((await answer.json()).error).toContain('app key');
    expect(await written(target.id)).toEqual(before);
  });

  it('a revoked delegation, once beta’s cached state is older than five minutes', async () => {
    const { grant, delegation } = await allowApp(['read', 'write']);
    const key = await appKeyOf(delegation.id);
    const first = await bobPosts('liked before the revocation');
    const liked = await sendToBeta(
      LIKE,
      await appSigned('like', (await prepared('like', first.remoteId)).body, delegation, key),
    );
    expect(liked.status, await liked.clone().text()).toBe(200);

    // Alice revokes the app in Settings: its tokens go, and its delegations with them.
    await alpha.node.db.prisma.oAuthToken.deleteMany({ where: { appId: grant.appId } });
    await alpha.node.appDelegations.revoke(grant);
    const state = await alpha.request(SWARM_PATHS.delegation(delegation.id));
    expect(await state.json()).toMatchObject({ state: 'revoked' });
    // The node no longer signs for the app.
    const target = await bobPosts('liked after the revocation');
    expect(
      await alpha.node.appDelegations.signInteraction(
        grant,
        await prepared('like', target.remoteId),
      ),
    ).toMatchObject({ ok: false, reason: { code: 'FORBIDDEN' } });

    // A body signed with the key anyway: within the window beta may still hold "active"; past
    // it, beta asks alpha again and refuses.
    net.clock.advance(DELEGATION_STATUS_TTL_MS + 1_000);
    const before = await written(target.id);
    const answer = await sendToBeta(
      LIKE,
      await appSigned('like', (await prepared('like', target.remoteId)).body, delegation, key),
    );
    expect(answer.status).toBe(401);
    expect((await answer.json()).error).toContain('revoked');
    expect(await written(target.id)).toEqual(before);
  });

  it('the app’s last token revoked (as /oauth/revoke does) ends the delegation for good', async () => {
    const { grant, delegation } = await allowApp(['read', 'write']);
    const tokens = alpha.node.db.prisma.oAuthToken;
    const kept = await tokens.findFirstOrThrow({ where: { appId: grant.appId } });
    await tokens.deleteMany({ where: { appId: grant.appId } });
    net.clock.advance(11 * 60_000);
    const state = async () =>
      (await (await alpha.request(SWARM_PATHS.delegation(delegation.id))).json()) as {
        state: string;
      };
    expect(await state()).toMatchObject({ state: 'revoked' });
    // A token of the app again (the person allows it anew) does not bring this one back.
    await tokens.create({
      data: {
        tokenHash: kept.tokenHash,
        appId: grant.appId,
        userId: grant.userId,
        scopes: 'read write',
      },
    });
    expect(await state()).toMatchObject({ state: 'revoked' });
  });

  it('a follow or an unfollow under a delegation that does not hold', async () => {
    const FOLLOW = SWARM_PATHS.interaction('follow');
    const UNFOLLOW = SWARM_PATHS.interaction('unfollow');
    const follower = { followerHandle: 'alice', followerNodeDomain: A };
    const stamp = () => ({
      interactionId: randomUUID(),
      timestamp: formatTimestamp(net.clock.now()),
    });
    const followOf = () => ({
      targetHandle: 'bob',
      follow: { ...follower, followerDisplayName: 'Alice', followerBio: '', ...stamp() },
    });
    const unfollowOf = () => ({ targetHandle: 'bob', unfollow: { ...follower, ...stamp() } });
    /** What a refused follow or unfollow would have changed on beta. */
    const state = async () => {
      const prisma = beta.node.db.prisma;
      return {
        following: await bobFollowedByAlice(),
        followers: (await prisma.user.findUniqueOrThrow({ where: { id: bob.id } })).followersCount,
        ledger: await prisma.inboundInteraction.count(),
        notifications: await prisma.notification.count({
          where: { recipientId: bob.id, type: 'follow' },
        }),
      };
    };
    const send = async (
      kind: 'follow' | 'unfollow',
      made: { delegation: unknown; appKey: CryptoKey },
    ) => {
      const body = kind === 'follow' ? followOf() : unfollowOf();
      const answer = await sendToBeta(
        kind === 'follow' ? FOLLOW : UNFOLLOW,
        await appSigned(kind, body, made.delegation, made.appKey),
      );
      const json = (await answer.json()) as { code: string; error: string };
      return { status: answer.status, code: json.code, error: json.error };
    };
    const now = net.clock.now().getTime();
    const both: DelegableAction[] = ['follow', 'unfollow'];
    const mallory = await generateSigningKeyPair();
    const forged = await handMade({
      signer: mallory.privateKey,
      did: alice.user.did!,
      actions: both,
    });
    const expired = await handMade({
      signer: alice.privateKey,
      did: alice.user.did!,
      actions: both,
      issuedAt: new Date(now - 2 * 86_400_000),
      expiresAt: new Date(now - 60_000),
    });
    const likesOnly = await allowApp(['read', 'write:favourites']);
    const follows = await allowApp(['read', 'follow']);
    const other = await generateSigningKeyPair();
    const dave = await insertKeyedUser(alpha.node, 'dave_follows');
    const daves = await allowApp(['read', 'follow'], dave);
    const revoked = await allowApp(['read', 'follow']);
    await alpha.node.db.prisma.oAuthToken.deleteMany({ where: { appId: revoked.grant.appId } });
    await alpha.node.appDelegations.revoke(revoked.grant);
    const refusals = async (kind: 'follow' | 'unfollow') => {
      expect(await send(kind, forged)).toMatchObject({ status: 401, code: 'INVALID_SIGNATURE' });
      expect(await send(kind, expired)).toMatchObject({
        status: 401,
        error: expect.stringContaining('expired'),
      });
      expect(
        await send(kind, {
          delegation: likesOnly.delegation,
          appKey: await appKeyOf(likesOnly.delegation.id),
        }),
      ).toMatchObject({ status: 403, error: expect.stringContaining(`does not allow ${kind}`) });
      // The app key signed, but not this body.
      expect(
        await send(kind, { delegation: follows.delegation, appKey: other.privateKey }),
      ).toMatchObject({ status: 401, error: expect.stringContaining('app key') });
      // Dave's delegation does not speak for alice.
      expect(
        await send(kind, {
          delegation: daves.delegation,
          appKey: await appKeyOf(daves.delegation.id),
        }),
      ).toMatchObject({ status: 401, error: expect.stringContaining(`dave_follows@${A}`) });
      // Revoked before beta ever saw it: beta asks alpha, which answers `revoked`.
      expect(
        await send(kind, {
          delegation: revoked.delegation,
          appKey: await appKeyOf(revoked.delegation.id),
        }),
      ).toMatchObject({ status: 401, error: expect.stringContaining('revoked') });
    };

    // Alice follows bob (unsigned, as from our pages): no bad unfollow ends it.
    expect((await sendToBeta(FOLLOW, followOf())).status).toBe(200);
    const following = await state();
    expect(following.following).toBe(true);
    await refusals('unfollow');
    expect(await state()).toEqual(following);

    // Not following: no bad follow starts it, counts it or notifies bob.
    expect((await sendToBeta(UNFOLLOW, unfollowOf())).status).toBe(200);
    const notFollowing = await state();
    expect(notFollowing.following).toBe(false);
    await refusals('follow');
    expect(await state()).toEqual(notFollowing);

    // The same follow under a delegation that holds is taken: the refusals were the checks'.
    const taken = await send('follow', {
      delegation: follows.delegation,
      appKey: await appKeyOf(follows.delegation.id),
    });
    expect(taken.status, taken.error).toBe(200);
    expect(await bobFollowedByAlice()).toBe(true);
  });

  it('a pushed post whose app signature does not match', async () => {
    const { delegation } = await allowApp(['read', 'write']);
    const postId = randomUUID();
    const post = {
      id: postId,
      content: 'forged app post',
      createdAt: formatTimestamp(net.clock.now()),
      isNsfw: false,
      visibility: 'public',
    };
    const other = await generateSigningKeyPair();
    const postSignature = await signUserAction({
      privateKey: other.privateKey,
      action: 'post',
      targetDomain: A,
      body: post,
    });
    const answer = await sendToBeta(SWARM_PATHS.inbox, {
      post,
      author: { handle: 'alice', isNsfw: false, did: alice.user.did },
      nodeDomain: A,
      timestamp: formatTimestamp(net.clock.now()),
      postSignature,
      postDelegation: delegation,
    });
    expect(answer.status).toBe(401);
    expect(await beta.node.db.prisma.post.count({ where: { apId: `swarm:${A}:${postId}` } })).toBe(
      0,
    );
  });
});

describe('an app deletes a post of alice’s that beta holds', () => {
  /** A post of alice's, pushed to beta (bob follows her): its id and beta's copy. */
  async function heldByBeta(content: string) {
    await signedInCaller(beta.node, bob).interactions.follow({ address: `alice@${A}` });
    // Signed in her browser: beta pinned her key, and takes her posts signed only.
    const ready = await alpha.node.actions.posts.prepare(alice.user.id, { content });
    if (!ready.ok || !ready.value) throw new Error('expected a post to sign');
    const signature = await signUserAction({ privateKey: alice.privateKey, ...ready.value });
    const { id, createdAt } = ready.value.body as { id: string; createdAt: string };
    const created = await alpha.node.actions.posts.create(alice.user.id, {
      content,
      signed: { id, createdAt, signature },
    });
    if (!created.ok) throw new Error(created.reason.message);
    const post = created.value.post;
    expect(created.value.pushedTo).toEqual([B]);
    await alpha.node.delivery.processDue();
    const apId = `swarm:${A}:${post.id}`;
    const copy = async () => {
      const prisma = beta.node.db.prisma;
      const row = await prisma.post.findUniqueOrThrow({ where: { apId } });
      return { deletedAt: row.deletedAt, ledger: await prisma.inboundInteraction.count() };
    };
    expect((await copy()).deletedAt).toBeNull();
    return { id: post.id, copy };
  }

  /** Alice's deletion of `postId` as an app key signs it, with `delegation` inside. */
  async function deletionBy(
    key: CryptoKey,
    delegation: unknown,
    postId: string,
    kind: 'post' | 'account' = 'post',
  ) {
    const body = {
      deletion: {
        kind,
        actorHandle: 'alice',
        actorNodeDomain: A,
        did: alice.user.did,
        ...(kind === 'post' ? { postId } : {}),
        interactionId: randomUUID(),
        timestamp: formatTimestamp(net.clock.now()),
      },
      delegation,
    };
    const signature = await signUserAction({
      privateKey: key,
      action: kind === 'post' ? 'delete-post' : 'delete-account',
      targetDomain: A,
      body,
    });
    return { ...body, signature };
  }

  /** What the client API does for `DELETE /api/v1/statuses/:id` (app-signing.ts). */
  async function appDeletes(grant: AppGrant, postId: string) {
    const prepared = await alpha.node.ownership.prepareDeletion(alice.user.id, {
      kind: 'post',
      postId,
    });
    if (!prepared.ok) throw new Error(prepared.reason.message);
    const signed = await alpha.node.appDelegations.signInteraction(grant, {
      ...prepared.value,
      action: 'delete-post',
    });
    if (!signed.ok) throw new Error(signed.reason.message);
    const deleted = await alpha.node.ownership.deletePost(alice.user.id, postId, signed.value);
    if (!deleted.ok) throw new Error(deleted.reason.message);
    return { ...deleted.value, delegationId: signed.value.delegation.id };
  }

  it('signed by the app key under the delegation, it removes beta’s copy', async () => {
    const { grant } = await allowApp(['read', 'write:statuses']);
    const post = await heldByBeta('deleted from an app');
    const deleted = await appDeletes(grant, post.id);
    expect(deleted.told).toEqual([B]);
    expect(deleted.deliveries.map((d) => d.status)).toEqual(['delivered']);
    const sent = await alpha.node.db.prisma.outboxDelivery.findUniqueOrThrow({
      where: { id: deleted.deliveries[0]!.id },
    });
    expect(JSON.parse(sent.body)).toMatchObject({
      deletion: { kind: 'post', postId: post.id },
      delegation: { id: deleted.delegationId },
    });
    expect((await post.copy()).deletedAt).not.toBeNull();
    // An account's deletion is never signed for an app.
    const account = await alpha.node.ownership.prepareDeletion(alice.user.id, { kind: 'account' });
    if (!account.ok) throw new Error(account.reason.message);
    expect(
      await alpha.node.appDelegations.signInteraction(grant, {
        ...account.value,
        action: 'delete-account' as 'delete-post',
      }),
    ).toMatchObject({ ok: false, reason: { code: 'FORBIDDEN' } });
  });

  it('to a node without `delegations` it is not sent: deleted here only', async () => {
    const { grant } = await allowApp(['read', 'write:statuses']);
    const post = await heldByBeta('kept on beta');
    await withoutDelegations(async () => {
      const deleted = await appDeletes(grant, post.id);
      expect(deleted).toMatchObject({ told: [], skipped: [B], deliveries: [] });
    });
    const here = await alpha.node.db.prisma.post.findUniqueOrThrow({ where: { id: post.id } });
    expect(here.deletedAt).not.toBeNull();
    expect((await post.copy()).deletedAt).toBeNull();
  });

  it('beta refuses bad delegations with the documented status, writing nothing', async () => {
    const post = await heldByBeta('not deleted by impostors');
    const before = await post.copy();
    const refusal = async (body: Record<string, unknown>) => {
      const answer = await sendToBeta(SWARM_PATHS.deletions, body);
      const json = (await answer.json()) as { code: string; error: string };
      return { status: answer.status, code: json.code, error: json.error };
    };
    const now = net.clock.now().getTime();

    const mallory = await generateSigningKeyPair();
    const forged = await handMade({
      signer: mallory.privateKey,
      did: alice.user.did!,
      actions: ['delete-post'],
    });
    expect(
      await refusal(await deletionBy(forged.appKey, forged.delegation, post.id)),
    ).toMatchObject({ status: 401, code: 'INVALID_SIGNATURE' });

    const expired = await handMade({
      signer: alice.privateKey,
      did: alice.user.did!,
      actions: ['delete-post'],
      issuedAt: new Date(now - 2 * 86_400_000),
      expiresAt: new Date(now - 60_000),
    });
    expect(
      await refusal(await deletionBy(expired.appKey, expired.delegation, post.id)),
    ).toMatchObject({ status: 401, error: expect.stringContaining('expired') });

    const likesOnly = await allowApp(['read', 'write:favourites']);
    expect(
      await refusal(
        await deletionBy(await appKeyOf(likesOnly.delegation.id), likesOnly.delegation, post.id),
      ),
    ).toMatchObject({ status: 403, error: expect.stringContaining('does not allow delete-post') });

    const statuses = await allowApp(['read', 'write:statuses']);
    const statusesKey = await appKeyOf(statuses.delegation.id);
    expect(
      await refusal(await deletionBy(statusesKey, statuses.delegation, post.id, 'account')),
    ).toMatchObject({ status: 403, error: expect.stringContaining('never delete an account') });
    // The app key signed, but not this statement.
    const other = await generateSigningKeyPair();
    expect(
      await refusal(await deletionBy(other.privateKey, statuses.delegation, post.id)),
    ).toMatchObject({ status: 401, error: expect.stringContaining('app key') });

    // Dave's delegation does not speak for alice.
    const dave = await insertKeyedUser(alpha.node, 'dave');
    const daves = await allowApp(['read', 'write:statuses'], dave);
    expect(
      await refusal(
        await deletionBy(await appKeyOf(daves.delegation.id), daves.delegation, post.id),
      ),
    ).toMatchObject({ status: 401, error: expect.stringContaining(`dave@${A}`) });

    // Revoked before beta ever saw it: beta asks alpha, which answers `revoked`.
    const revoked = await allowApp(['read', 'write:statuses']);
    await alpha.node.db.prisma.oAuthToken.deleteMany({ where: { appId: revoked.grant.appId } });
    await alpha.node.appDelegations.revoke(revoked.grant);
    expect(
      await refusal(
        await deletionBy(await appKeyOf(revoked.delegation.id), revoked.delegation, post.id),
      ),
    ).toMatchObject({ status: 401, error: expect.stringContaining('revoked') });

    expect(await post.copy()).toEqual(before);
    // The same statement with a delegation that holds is taken: the refusals were the checks'.
    const taken = await sendToBeta(
      SWARM_PATHS.deletions,
      await deletionBy(statusesKey, statuses.delegation, post.id),
    );
    expect(taken.status, await taken.clone().text()).toBe(200);
    expect((await post.copy()).deletedAt).not.toBeNull();
  });
});
