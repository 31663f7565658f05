import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ARCHIVE_LIMITS,
  SWARM_PATHS,
  generateSigningKeyPair,
  interactionResponseSchema,
  publicKeyToDidKey,
  signUserAction,
  swarmUserResponseSchema,
  type UserAction,
} from '@swarm/contract';
import {
  createTestNetwork,
  insertKeyedUser,
  sessionUserByHandle,
  signedInCaller,
  trpcFailure,
  type KeyedUser,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';

// Account ownership across three real gateways on the test network (HTTP-shaped links, real
// node and user signatures): alice moves from alpha to beta while carol on gamma follows her;
// a forged move changes nothing; deletions of a post and of an account reach the nodes holding
// copies; bad archives are refused with nothing written.

const A = 'alpha.test';
const B = 'beta.test';
const C = 'gamma.test';
const PASSWORD = 'correct horse battery';

let net: TestNetwork;
let alpha: NetworkNode;
let beta: NetworkNode;
let gamma: NetworkNode;
let alice: KeyedUser;
let carol: KeyedUser;

// Three PGlite nodes on a shared, loaded machine: steps get time (behaviour, not speed, is tested).
vi.setConfig({ testTimeout: 120_000, hookTimeout: 300_000 });

const on = (node: NetworkNode, who: KeyedUser | null) =>
  signedInCaller(node.node, who?.user ?? null);

async function sign(
  who: { privateKey: CryptoKey },
  prepared: { action: UserAction; targetDomain: string; body: Record<string, unknown> },
) {
  return {
    body: prepared.body,
    signature: await signUserAction({ privateKey: who.privateKey, ...prepared }),
  };
}

/** A keyed user with a key backup (what the browser uploaded at sign-up). */
async function keyedWithBackup(node: NetworkNode, handle: string) {
  const person = await insertKeyedUser(node.node, handle);
  await node.node.db.prisma.user.update({
    where: { id: person.user.id },
    data: { encryptedKeyBackup: `{"backup-of":"${handle}"}` },
  });
  return person;
}

/** The archive as the browser makes it: the node's content, signed with the user's key. */
async function exportArchive(node: NetworkNode, who: KeyedUser) {
  const prepared = await on(node, who).account.prepareExport();
  const signature = await signUserAction({ privateKey: who.privateKey, ...prepared });
  return { ...prepared.body, signature } as Record<string, unknown> & { signature: string };
}

/** The importer's proof of holding the archive's key. */
const proofFor = (key: CryptoKey, archive: { signature: string }, target: string) =>
  signUserAction({
    privateKey: key,
    action: 'import',
    targetDomain: target,
    body: { archiveSignature: archive.signature },
  });

const user = (node: NetworkNode, handle: string) =>
  node.node.db.prisma.user.findUnique({ where: { handle } });

async function profileAnswer(node: NetworkNode, handle: string) {
  const res = await node.request(`${SWARM_PATHS.user(handle)}?limit=0`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  net = await createTestNetwork({
    nodes: [{ domain: A }, { domain: B }, { domain: C }],
  });
  alpha = net.node(A);
  beta = net.node(B);
  gamma = net.node(C);
  await net.announceAll();
  alice = await keyedWithBackup(alpha, 'alice');
  carol = await insertKeyedUser(gamma.node, 'carol');
});
afterAll(() => net?.close());

describe('moving an account', () => {
  let archive: Record<string, unknown> & { signature: string };

  it('carol on gamma follows alice on alpha; alice posts', async () => {
    const followed = await on(gamma, carol).interactions.follow({ address: `alice@${A}` });
    expect(followed.delivery?.status).toBe('delivered');
    await on(alpha, alice).posts.create({ content: 'first from alpha' });
    // Distinct times: the archive lists posts by date (the same date would order them by id).
    net.clock.advance(1_000);
    await on(alpha, alice).posts.create({ content: 'second from alpha' });
    expect((await user(alpha, 'alice'))?.followersCount).toBe(1);
  });

  it('exports a signed archive with profile, posts, followers, mutes, blocks and the key backup', async () => {
    await on(alpha, alice).moderation.safety.mute({ target: `dave@${C}` });
    await on(alpha, alice).moderation.safety.mute({ target: 'noisy.example' });
    await on(alpha, alice).moderation.safety.block({ address: `eve@${C}` });
    archive = await exportArchive(alpha, alice);
    expect(archive.mutes).toEqual([{ address: `dave@${C}`, since: expect.any(String) }]);
    expect(archive.mutedNodes).toEqual([{ domain: 'noisy.example', since: expect.any(String) }]);
    expect(archive.blocks).toEqual([{ address: `eve@${C}`, since: expect.any(String) }]);
    expect(archive).toMatchObject({
      format: 'swarm-account-archive',
      version: 1,
      nodeDomain: A,
      account: {
        handle: 'alice',
        did: alice.user.did,
        encryptedKeyBackup: '{"backup-of":"alice"}',
      },
      followers: [{ address: `carol@${C}` }],
    });
    expect((archive.posts as { content: string }[]).map((p) => p.content)).toEqual([
      'first from alpha',
      'second from alpha',
    ]);
  });

  it('refuses a tampered archive, an archive of another key, and changes nothing', async () => {
    const before = await beta.node.db.prisma.user.count();
    const tampered = structuredClone(archive) as unknown as { posts: { content: string }[] };
    tampered.posts[0]!.content = 'not what alice wrote';
    const proof = await proofFor(alice.privateKey, archive, B);
    const anon = on(beta, null);
    const t = await trpcFailure(
      anon.account.import({ archive: JSON.stringify(tampered), password: PASSWORD, proof }),
    );
    expect(t.code).toBe('BAD_REQUEST');
    expect(t.message).toMatch(/changed after it was exported/);

    const mallory = await generateSigningKeyPair();
    const wrong = await trpcFailure(
      anon.account.import({
        archive: JSON.stringify(archive),
        password: PASSWORD,
        proof: await proofFor(mallory.privateKey, archive, B),
      }),
    );
    expect(wrong.code).toBe('FORBIDDEN');
    expect(wrong.message).toMatch(/belongs to another account/);

    const garbage = await trpcFailure(
      anon.account.import({ archive: '{"format":"zip"}', password: PASSWORD, proof }),
    );
    expect(garbage.code).toBe('BAD_REQUEST');
    expect(await beta.node.db.prisma.user.count()).toBe(before);
    expect(await beta.node.db.prisma.post.count({ where: { movedFrom: { not: null } } })).toBe(0);
  });

  it('refuses an import over an existing handle', async () => {
    const erin = await keyedWithBackup(alpha, 'erin');
    const erinArchive = await exportArchive(alpha, erin);
    await insertKeyedUser(beta.node, 'erin');
    const taken = await trpcFailure(
      on(beta, null).account.import({
        archive: JSON.stringify(erinArchive),
        password: PASSWORD,
        proof: await proofFor(erin.privateKey, erinArchive, B),
      }),
    );
    expect(taken).toMatchObject({ code: 'CONFLICT' });
    expect(taken.message).toMatch(/taken/);
  });

  it('limits imports per address like sign-ups (SWARM_SIGNUPS_PER_HOUR); a broken archive costs nothing', async () => {
    const fay = await keyedWithBackup(alpha, 'fay');
    const fayArchive = await exportArchive(alpha, fay);
    const proof = await proofFor(fay.privateKey, fayArchive, C);
    const from = (clientIp: string) =>
      signedInCaller(gamma.node, null, { clientIp }).account.import({
        archive: JSON.stringify(fayArchive),
        password: PASSWORD,
        proof,
      });
    // A broken archive costs nothing: refused before the limit is charged.
    for (let i = 0; i < 8; i++) {
      const bad = await trpcFailure(
        signedInCaller(gamma.node, null, { clientIp: '198.51.100.7' }).account.import({
          archive: '{}',
          password: PASSWORD,
          proof,
        }),
      );
      expect(bad.code).toBe('BAD_REQUEST');
    }
    expect(await from('198.51.100.7')).toEqual({ handle: 'fay', posts: 0, pending: false });
    // Five an hour (the default): the next four are answered (the account is here already)…
    for (let i = 0; i < 4; i++) {
      expect((await trpcFailure(from('198.51.100.7'))).code).toBe('CONFLICT');
    }
    // …then the address waits, with a clear message; another address does not.
    const limited = await trpcFailure(from('198.51.100.7'));
    expect(limited.code).toBe('TOO_MANY_REQUESTS');
    expect(limited.message).toMatch(
      /Too many imports from your address; try again in \d+ minutes?/,
    );
    expect((await trpcFailure(from('198.51.100.8'))).code).toBe('CONFLICT');
    expect(await gamma.node.db.prisma.user.count({ where: { handle: 'fay' } })).toBe(1);
    // An hour later the address may import again.
    net.clock.advance(60 * 60_000);
    expect((await trpcFailure(from('198.51.100.7'))).code).toBe('CONFLICT');
  });

  it('an import obeys the registrations mode like a sign-up: invite, then approval', async () => {
    const registrations = gamma.node.moderation.registrations;
    const gil = await keyedWithBackup(alpha, 'gil');
    const gilArchive = await exportArchive(alpha, gil);
    const proof = await proofFor(gil.privateKey, gilArchive, C);
    const attempt = (extra: { invite?: string; reason?: string }) =>
      signedInCaller(gamma.node, null, { clientIp: '198.51.100.20' }).account.import({
        archive: JSON.stringify(gilArchive),
        password: PASSWORD,
        proof,
        ...extra,
      });
    try {
      // Closed: no invite, no account (nothing written); a valid invite lets it in.
      expect((await registrations.setMode('root', 'invite')).ok).toBe(true);
      const closed = await trpcFailure(attempt({}));
      expect(closed).toMatchObject({ code: 'FORBIDDEN', field: 'invite' });
      expect(closed.message).toMatch(/invite link/);
      expect(await gamma.node.db.prisma.user.count({ where: { handle: 'gil' } })).toBe(0);
      expect(await gamma.node.db.prisma.post.count({ where: { movedFrom: { not: null } } })).toBe(
        0,
      );
      const invite = await registrations.createInvite({ handle: 'root' }, { maxUses: 1 });
      if (!invite.ok) throw new Error(invite.reason.message);
      expect(await attempt({ invite: invite.value.code })).toEqual({
        handle: 'gil',
        posts: 0,
        pending: false,
      });

      // Approval: a reason is asked for; the imported account waits for a moderator.
      const hal = await keyedWithBackup(alpha, 'hal');
      const halArchive = await exportArchive(alpha, hal);
      const halImport = async (reason?: string) =>
        signedInCaller(gamma.node, null, { clientIp: '198.51.100.21' }).account.import({
          archive: JSON.stringify(halArchive),
          password: PASSWORD,
          proof: await proofFor(hal.privateKey, halArchive, C),
          reason,
        });
      expect((await registrations.setMode('root', 'approval')).ok).toBe(true);
      const noReason = await trpcFailure(halImport());
      expect(noReason).toMatchObject({ code: 'FORBIDDEN', field: 'reason' });
      expect(await halImport('moving from alpha')).toEqual({
        handle: 'hal',
        posts: 0,
        pending: true,
      });
      expect((await registrations.pending()).map((p) => [p.handle, p.reason])).toEqual([
        ['hal', 'moving from alpha'],
      ]);
    } finally {
      await registrations.setMode('root', 'open');
    }
  });

  it('a move before the import exists is refused by the old node', async () => {
    // Signed by alice's real key, naming beta, which does not hold her account yet.
    const body = {
      move: {
        did: alice.user.did,
        from: `alice@${A}`,
        to: `alice@${B}`,
        interactionId: crypto.randomUUID(),
        timestamp: new Date(net.clock.now()).toISOString(),
      },
    };
    const signature = await signUserAction({
      privateKey: alice.privateKey,
      action: 'move',
      targetDomain: A,
      body,
    });
    const answer = await beta.node.peers.postJson(
      A,
      SWARM_PATHS.moves,
      { ...body, signature },
      interactionResponseSchema,
    );
    expect(answer.ok).toBe(false);
    if (!answer.ok && answer.reason.kind === 'http') {
      expect(answer.reason.status).toBe(404);
      expect(answer.reason.body?.error).toMatch(/import the account there first/);
    }
    expect((await user(alpha, 'alice'))?.movedTo).toBeNull();
  });

  it('imports on beta: same did and backup, posts keep their dates and are marked moved in', async () => {
    const imported = await on(beta, null).account.import({
      archive: JSON.stringify(archive),
      password: PASSWORD,
      proof: await proofFor(alice.privateKey, archive, B),
    });
    expect(imported).toEqual({ handle: 'alice', posts: 2, pending: false });
    const row = await user(beta, 'alice');
    expect(row).toMatchObject({ did: alice.user.did, movedFrom: `alice@${A}`, postsCount: 2 });
    expect(row?.encryptedKeyBackup).toBe('{"backup-of":"alice"}');
    // Her mutes and blocks came with her, as her settings page lists them.
    const here = on(beta, { user: await sessionUserByHandle(beta.node, 'alice') } as KeyedUser);
    expect((await here.moderation.safety.mutes()).map((m) => [m.kind, m.target]).sort()).toEqual([
      ['node', 'noisy.example'],
      ['person', `dave@${C}`],
    ]);
    expect((await here.moderation.safety.blocks()).map((b) => b.address)).toEqual([`eve@${C}`]);
    const posts = await beta.node.db.prisma.post.findMany({
      where: { authorId: row!.id },
      orderBy: { createdAt: 'asc' },
    });
    const originals = archive.posts as { id: string; createdAt: string }[];
    expect(posts.map((p) => p.createdAt.toISOString())).toEqual(originals.map((p) => p.createdAt));
    // (the manual clock gives both the same millisecond: compare as sets)
    expect(posts.map((p) => p.movedFrom).sort()).toEqual(
      originals.map((p) => `swarm:${A}:${p.id}`).sort(),
    );
    // Again: the account is here already.
    const again = await trpcFailure(
      on(beta, null).account.import({
        archive: JSON.stringify(archive),
        password: PASSWORD,
        proof: await proofFor(alice.privateKey, archive, B),
      }),
    );
    expect(again.code).toBe('CONFLICT');
  });

  it('a forged move (another key) changes nothing on the old node or on a follower node', async () => {
    const mallory = await generateSigningKeyPair();
    const body = {
      move: {
        did: await publicKeyToDidKey(mallory.publicKey),
        from: `alice@${A}`,
        to: `alice@${B}`,
        interactionId: crypto.randomUUID(),
        timestamp: new Date(net.clock.now()).toISOString(),
      },
    };
    const signature = await signUserAction({
      privateKey: mallory.privateKey,
      action: 'move',
      targetDomain: A,
      body,
    });
    // And one claiming alice's did but signed by mallory.
    const claimed = {
      move: { ...body.move, did: alice.user.did, interactionId: crypto.randomUUID() },
    };
    const claimedSig = await signUserAction({
      privateKey: mallory.privateKey,
      action: 'move',
      targetDomain: A,
      body: claimed,
    });
    for (const target of [A, C]) {
      for (const forged of [
        { ...body, signature },
        { ...claimed, signature: claimedSig },
      ]) {
        const answer = await beta.node.peers.postJson(
          target,
          SWARM_PATHS.moves,
          forged,
          interactionResponseSchema,
        );
        expect(answer.ok).toBe(false);
        if (!answer.ok && answer.reason.kind === 'http') expect(answer.reason.status).toBe(401);
      }
    }
    // Through the front door of beta, a move signed by another key is refused before sending.
    const prepared = await on(beta, {
      user: { ...alice.user, id: (await user(beta, 'alice'))!.id },
      privateKey: alice.privateKey,
    }).account.prepareMove();
    const forgedByBrowser = await sign({ privateKey: mallory.privateKey }, prepared);
    const refused = await trpcFailure(
      on(beta, {
        user: { ...alice.user, id: (await user(beta, 'alice'))!.id },
        privateKey: alice.privateKey,
      }).account.move({ signed: forgedByBrowser }),
    );
    expect(refused.code).toBe('FORBIDDEN');
    await net.processAll();
    expect((await user(alpha, 'alice'))?.movedTo).toBeNull();
    expect((await user(alpha, 'alice'))?.followersCount).toBe(1);
    const follows = await gamma.node.db.prisma.follow.findMany({
      where: { followerUserId: carol.user.id },
    });
    expect(follows.map((f) => f.followeeKey)).toEqual([`swarm://${A}/alice`]);
  });

  it('the signed move: alpha points to beta, carol on gamma now follows alice@beta, counts right', async () => {
    const aliceOnBeta = {
      user: { ...alice.user, id: (await user(beta, 'alice'))!.id },
      privateKey: alice.privateKey,
    };
    const prepared = await on(beta, aliceOnBeta).account.prepareMove();
    expect(prepared).toMatchObject({ action: 'move', targetDomain: A });
    const result = await on(beta, aliceOnBeta).account.move({
      signed: await sign(alice, prepared),
    });
    expect(result.told).toEqual([A]);
    expect(result.deliveries.map((d) => d.status)).toEqual(['delivered']);
    expect((await user(alpha, 'alice'))?.movedTo).toBe(`alice@${B}`);
    // The old node's profile answer says where she went.
    const old = await profileAnswer(alpha, 'alice');
    expect(old.status).toBe(200);
    expect(swarmUserResponseSchema.parse(old.body).profile.movedTo).toBe(`alice@${B}`);

    // alpha relays to gamma; gamma moves carol's follow (follow beta, unfollow alpha).
    await net.processAll();
    await net.processAll();
    const follows = await gamma.node.db.prisma.follow.findMany({
      where: { followerUserId: carol.user.id },
    });
    expect(follows.map((f) => [f.followeeKey, f.state])).toEqual([
      [`swarm://${B}/alice`, 'accepted'],
    ]);
    expect((await user(gamma, 'carol'))?.followingCount).toBe(1);
    expect((await user(beta, 'alice'))?.followersCount).toBe(1);
    expect((await user(alpha, 'alice'))?.followersCount).toBe(0);
    const actor = await gamma.node.db.prisma.remoteActor.findUnique({
      where: { actorUrl: `swarm://${A}/alice` },
    });
    expect(actor?.movedTo).toBe(`alice@${B}`);
    // Carol sees it on alice's old profile, read through gamma.
    const view = await on(gamma, carol).profiles.get({ address: `alice@${A}` });
    expect(view.profile.movedTo).toBe(`alice@${B}`);
    // The same statement again (a retry) changes nothing.
    const repeat = await on(beta, aliceOnBeta).account.move({
      signed: await sign(alice, await on(beta, aliceOnBeta).account.prepareMove()),
    });
    expect(repeat.deliveries.map((d) => d.status)).toEqual(['delivered']);
    await net.processAll();
    expect((await user(beta, 'alice'))?.followersCount).toBe(1);
    expect((await user(gamma, 'carol'))?.followingCount).toBe(1);
  });
});

describe('the endpoints at the front door', () => {
  it('refuse unsigned and malformed requests with clear errors', async () => {
    for (const path of [SWARM_PATHS.deletions, SWARM_PATHS.moves]) {
      const unsigned = await gamma.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ move: {}, deletion: {}, signature: 'x' }),
      });
      expect(unsigned.status).toBe(401);
      expect(((await unsigned.json()) as { code: string }).code).toBe('INVALID_SIGNATURE');
      // Node-signed but malformed: 400 with zod's issues, nothing written.
      const malformed = await alpha.node.peers.postJson(
        C,
        path,
        { deletion: { kind: 'everything' }, move: { from: 'nobody' } },
        interactionResponseSchema,
      );
      expect(!malformed.ok && malformed.reason.kind === 'http' && malformed.reason.status).toBe(
        400,
      );
    }
  });

  it('advertise the capabilities', async () => {
    const res = await alpha.request(SWARM_PATHS.info);
    const info = (await res.json()) as { capabilities: string[] };
    expect(info.capabilities).toEqual(expect.arrayContaining(['deletions', 'moves']));
  });
});

describe('deleting', () => {
  let dave: KeyedUser;
  let postId: string;

  it('a deleted post reaches the node holding a copy; its likes go with it there', async () => {
    dave = await keyedWithBackup(alpha, 'dave');
    await on(gamma, carol).interactions.follow({ address: `dave@${A}` });
    const { post } = await on(alpha, dave).posts.create({ content: 'soon gone' });
    postId = post.id;
    const remoteId = `swarm:${A}:${postId}`;
    const prepared = await on(gamma, carol).interactions.prepare({
      kind: 'like',
      postId: remoteId,
    });
    if (prepared.local) throw new Error('expected a remote post');
    await on(gamma, carol).interactions.like({
      postId: remoteId,
      signed: await sign(carol, prepared),
    });
    const copy = () => gamma.node.db.prisma.post.findUniqueOrThrow({ where: { apId: remoteId } });
    expect((await copy()).deletedAt).toBeNull();

    const statement = await on(alpha, dave).account.prepareDeletion({ kind: 'post', postId });
    expect(statement.action).toBe('delete-post');
    const deleted = await on(alpha, dave).account.deletePost({
      id: postId,
      signed: await sign(dave, statement),
    });
    expect(deleted.told).toEqual([C]);
    expect(deleted.deliveries.map((d) => d.status)).toEqual(['delivered']);
    expect((await copy()).deletedAt).not.toBeNull();
    expect(await gamma.node.db.prisma.like.count({ where: { post: { apId: remoteId } } })).toBe(0);
  });

  it('a deletion signed by another key is refused and changes nothing', async () => {
    const mallory = await generateSigningKeyPair();
    const body = {
      deletion: {
        kind: 'account',
        actorHandle: 'dave',
        actorNodeDomain: A,
        did: dave.user.did,
        interactionId: crypto.randomUUID(),
        timestamp: new Date(net.clock.now()).toISOString(),
      },
    };
    const signature = await signUserAction({
      privateKey: mallory.privateKey,
      action: 'delete-account',
      targetDomain: A,
      body,
    });
    const answer = await alpha.node.peers.postJson(
      C,
      SWARM_PATHS.deletions,
      { ...body, signature },
      interactionResponseSchema,
    );
    expect(answer.ok).toBe(false);
    if (!answer.ok && answer.reason.kind === 'http') expect(answer.reason.status).toBe(401);
    // From a node that is not dave's: 403.
    const honest = await signUserAction({
      privateKey: dave.privateKey,
      action: 'delete-account',
      targetDomain: A,
      body,
    });
    const relayed = await beta.node.peers.postJson(
      C,
      SWARM_PATHS.deletions,
      { ...body, signature: honest },
      interactionResponseSchema,
    );
    expect(!relayed.ok && relayed.reason.kind === 'http' && relayed.reason.status).toBe(403);
    expect(
      await gamma.node.db.prisma.follow.count({ where: { followeeKey: `swarm://${A}/dave` } }),
    ).toBe(1);
  });

  it('deleting the account (password asked again) reaches the followers’ node; the handle stays reserved', async () => {
    const wrong = await trpcFailure(
      on(alpha, dave).account.delete({ password: 'not the password', signed: null }),
    );
    expect(wrong.code).toBe('UNAUTHORIZED');
    // insertKeyedUser gives no password; set one.
    const { hashPassword } = await import('@swarm/auth');
    await alpha.node.db.prisma.user.update({
      where: { id: dave.user.id },
      data: { passwordHash: await hashPassword(PASSWORD) },
    });
    const statement = await on(alpha, dave).account.prepareDeletion({ kind: 'account' });
    const done = await on(alpha, dave).account.delete({
      password: PASSWORD,
      signed: await sign(dave, statement),
    });
    expect(done.told).toEqual([C]);
    expect(done.deliveries.map((d) => d.status)).toEqual(['delivered']);
    expect(await user(alpha, 'dave')).toBeNull();
    expect((await profileAnswer(alpha, 'dave')).status).toBe(404);
    // gamma: carol no longer follows dave, her count is right.
    expect(
      await gamma.node.db.prisma.follow.count({ where: { followeeKey: `swarm://${A}/dave` } }),
    ).toBe(0);
    expect((await user(gamma, 'carol'))?.followingCount).toBe(1);
    // The handle cannot be taken on alpha.
    const { authServicesOf } = await import('@swarm/auth');
    const auth = authServicesOf(alpha.node);
    const signUp = await auth.accounts.signUp({
      handle: 'dave',
      displayName: 'Dave',
      password: PASSWORD,
    });
    expect(signUp.ok).toBe(false);
    if (!signUp.ok) expect(signUp.reason.message).toMatch(/taken/);
  });
});

// Red team (issue 22): hostile archives and moves the cases above leave out.
describe('hostile archives and moves', () => {
  let hana: KeyedUser;
  let hanaArchive: Record<string, unknown> & { signature: string };
  const counts = async () => ({
    users: await gamma.node.db.prisma.user.count(),
    posts: await gamma.node.db.prisma.post.count(),
  });

  beforeAll(async () => {
    hana = await keyedWithBackup(alpha, 'hana');
    await on(alpha, hana).posts.create({ content: 'hana was here' });
    await on(gamma, carol).interactions.follow({ address: `hana@${A}` });
    hanaArchive = await exportArchive(alpha, hana);
  });

  it('refuses huge, overfull and deeply nested archives with 400, writing nothing', async () => {
    const before = await counts();
    const proof = await proofFor(hana.privateKey, hanaArchive, C);
    const refused = async (archive: string) =>
      trpcFailure(on(gamma, null).account.import({ archive, password: PASSWORD, proof }));
    // Over the byte bound: refused by the input's own limit.
    const huge = await refused(' '.repeat(ARCHIVE_LIMITS.bytes + 1));
    expect(huge.code).toBe('BAD_REQUEST');
    // More posts than an archive may hold.
    const post = (hanaArchive.posts as Record<string, unknown>[])[0]!;
    const overfull = await refused(
      JSON.stringify({
        ...hanaArchive,
        posts: Array.from({ length: ARCHIVE_LIMITS.posts + 1 }, () => post),
      }),
    );
    expect(overfull).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/posts/),
    });
    // A member nested 1,000 deep over 100,000 arrays (seconds of CPU before canonicalJson had
    // a depth bound, see its unit test): refused as not what was signed.
    const nested = `${'['.repeat(1_000)}${Array(100_000).fill('[]').join(',')}${']'.repeat(1_000)}`;
    const text = JSON.stringify(hanaArchive).replace(/^\{/, `{"extra":${nested},`);
    expect(await refused(text)).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/changed after it was exported/),
    });
    expect(await counts()).toEqual(before);
  });

  it('a proof made for another node is refused (a replayed import)', async () => {
    const before = await counts();
    const forBeta = await proofFor(hana.privateKey, hanaArchive, B);
    const replayed = await trpcFailure(
      on(gamma, null).account.import({
        archive: JSON.stringify(hanaArchive),
        password: PASSWORD,
        proof: forBeta,
      }),
    );
    expect(replayed).toMatchObject({ code: 'FORBIDDEN' });
    expect(await counts()).toEqual(before);
  });

  it('someone else’s archive re-signed with one’s own key makes only one’s own account, which cannot move theirs', async () => {
    const mallory = await generateSigningKeyPair();
    const malloryDid = await publicKeyToDidKey(mallory.publicKey);
    const { signature: _theirs, ...content } = hanaArchive;
    const account = { ...(content.account as Record<string, unknown>), did: malloryDid };
    const body = { ...content, account: { ...account, publicKey: null } };
    const resigned = {
      ...body,
      signature: await signUserAction({
        privateKey: mallory.privateKey,
        action: 'export',
        targetDomain: A,
        body,
      }),
    };
    // It is a valid archive of mallory's key: it makes an account of hers on beta.
    const imported = await on(beta, null).account.import({
      archive: JSON.stringify(resigned),
      password: PASSWORD,
      proof: await proofFor(mallory.privateKey, resigned, B),
    });
    expect(imported).toMatchObject({ handle: 'hana' });
    const theirs = await user(beta, 'hana');
    expect(theirs).toMatchObject({ did: malloryDid, movedFrom: `hana@${A}` });

    // Her move, signed with her key: beta sees that alpha's hana has another key and refuses.
    const asMallory = on(beta, {
      user: { ...hana.user, id: theirs!.id, did: malloryDid },
      privateKey: mallory.privateKey,
    });
    const prepared = await asMallory.account.prepareMove();
    const refused = await trpcFailure(
      asMallory.account.move({ signed: await sign(mallory, prepared) }),
    );
    expect(refused).toMatchObject({ code: 'FORBIDDEN' });
    expect(refused.message).toMatch(/another account/);
    // A dishonest beta sending it anyway: alpha refuses it (not signed with hana's key).
    const forced = await beta.node.peers.postJson(
      A,
      SWARM_PATHS.moves,
      { ...prepared.body, signature: (await sign(mallory, prepared)).signature },
      interactionResponseSchema,
    );
    expect(!forced.ok && forced.reason.kind === 'http' && forced.reason.status).toBe(401);
    await net.processAll();
    expect((await user(alpha, 'hana'))?.movedTo).toBeNull();
    const follows = await gamma.node.db.prisma.follow.findMany({
      where: { followerUserId: carol.user.id, followeeKey: { contains: 'hana' } },
    });
    expect(follows.map((f) => f.followeeKey)).toEqual([`swarm://${A}/hana`]);
  });

  it('a move signed by another real account of the same node is refused', async () => {
    const ivan = await keyedWithBackup(alpha, 'ivan');
    const body = {
      move: {
        did: ivan.user.did,
        from: `hana@${A}`,
        to: `hana@${B}`,
        interactionId: crypto.randomUUID(),
        timestamp: new Date(net.clock.now()).toISOString(),
      },
    };
    const signature = await signUserAction({
      privateKey: ivan.privateKey,
      action: 'move',
      targetDomain: A,
      body,
    });
    for (const target of [A, C]) {
      const answer = await beta.node.peers.postJson(
        target,
        SWARM_PATHS.moves,
        { ...body, signature },
        interactionResponseSchema,
      );
      expect(answer.ok, target).toBe(false);
      if (!answer.ok && answer.reason.kind === 'http') expect(answer.reason.status).toBe(401);
    }
    expect((await user(alpha, 'hana'))?.movedTo).toBeNull();
    expect((await user(alpha, 'ivan'))?.movedTo).toBeNull();
  });
});
