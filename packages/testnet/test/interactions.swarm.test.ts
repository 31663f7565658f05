import { describe, expect, it } from 'vitest';
import {
  formatTimestamp,
  generateSigningKeyPair,
  interactionResponseSchema,
  replyResponseSchema,
} from '@swarm/contract';
import {
  BETA,
  pairWithFreshScenes,
  paths,
  snapshot,
  type InteractionPair,
  type RemoteUser,
  type Scene,
} from './interactions-harness.ts';

// Likes, unlikes, reposts, follows, unfollows, mentions and replies from users on beta.test to
// alpha.test, through alpha's front door, node-signed with beta's key and user-signed with the
// users' own keys (docs/protocol.md). Effects, notifications, exact counts under duplicates, and
// every refusal leaving the database as it was.

// One pair of nodes for the file (making a node is the slow part); every test gets its own
// scene of fresh users and posts, and checks only rows of its scene or whole-database snapshots.
let t: InteractionPair;
let s: Scene;
let seq = 0;

pairWithFreshScenes({ pair: (made) => (t = made), scene: (made) => (s = made) });

const DAY = 24 * 60 * 60 * 1000;
const now = () => formatTimestamp(t.clock.now());
const nextId = (prefix: string) => `${prefix}-${++seq}`;
const avatar = (user: RemoteUser) => `https://${BETA}/avatars/${user.handle}.png`;
const display = (user: RemoteUser) => user.handle[0]!.toUpperCase() + user.handle.slice(1);
const urlOf = (user: { handle: string }) => `swarm://${BETA}/${user.handle}`;

function actor(user: RemoteUser, interactionId: string, timestamp = now()) {
  return {
    actorHandle: user.handle,
    actorDisplayName: display(user),
    actorAvatarUrl: avatar(user),
    actorNodeDomain: BETA,
    interactionId,
    timestamp,
  };
}

const bodies = {
  like: (user: RemoteUser, postId: string, interactionId = nextId('like'), timestamp?: string) =>
    t.signed(user, 'like', { postId, like: actor(user, interactionId, timestamp) }),
  unlike: (user: RemoteUser, postId: string, interactionId = nextId('unlike')) =>
    t.signed(user, 'unlike', {
      postId,
      unlike: { actorHandle: user.handle, actorNodeDomain: BETA, interactionId, timestamp: now() },
    }),
  repost: (user: RemoteUser, postId: string, interactionId = nextId('repost')) =>
    t.signed(user, 'repost', {
      postId,
      repost: { ...actor(user, interactionId), repostId: nextId('beta-repost') },
    }),
  follow: (user: RemoteUser, targetHandle: string, interactionId = nextId('follow')) =>
    t.signed(user, 'follow', {
      targetHandle,
      follow: {
        followerHandle: user.handle,
        followerDisplayName: display(user),
        followerAvatarUrl: avatar(user),
        followerBio: `${display(user)} lives on beta`,
        followerNodeDomain: BETA,
        interactionId,
        timestamp: now(),
      },
    }),
  unfollow: (user: RemoteUser, targetHandle: string, interactionId = nextId('unfollow')) =>
    t.signed(user, 'unfollow', {
      targetHandle,
      unfollow: {
        followerHandle: user.handle,
        followerNodeDomain: BETA,
        interactionId,
        timestamp: now(),
      },
    }),
  mention: (
    user: RemoteUser,
    mentionedHandle: string,
    postContent: string,
    interactionId = nextId('mention'),
  ) =>
    t.signed(user, 'mention', {
      mentionedHandle,
      mention: { ...actor(user, interactionId), postId: nextId('beta-post'), postContent },
    }),
  reply: (
    user: RemoteUser,
    postId: string,
    replyId = nextId('beta-reply'),
    mediaUrls: string[] = [],
  ) =>
    t.signed(user, 'reply', {
      postId,
      reply: {
        id: replyId,
        content: `a reply by ${user.handle}`,
        createdAt: now(),
        author: { handle: user.handle, displayName: display(user), avatarUrl: avatar(user) },
        nodeDomain: BETA,
        mediaUrls,
      },
    }),
};

async function ok(response: Response, message: string) {
  expect(response.status, await response.clone().text()).toBe(200);
  expect(interactionResponseSchema.parse(await response.json())).toEqual({
    success: true,
    message,
  });
}

async function refused(response: Response, status: number, code: string) {
  const body = (await response.json()) as { code: string; error: string };
  expect({ status: response.status, code: body.code }, body.error).toEqual({ status, code });
  expect(typeof body.error).toBe('string');
}

const db = () => t.alpha.node.db.prisma;
const post = (id: string) => db().post.findUniqueOrThrow({ where: { id } });
const alice = () => db().user.findUniqueOrThrow({ where: { id: s.aliceId } });
/** Rows of this test's scene only. */
const notifications = (type?: 'like' | 'repost' | 'follow' | 'mention' | 'reply') =>
  db().notification.findMany({
    where: { recipientId: s.aliceId, ...(type ? { type } : {}) },
    orderBy: [{ createdAt: 'asc' }, { actorHandle: 'asc' }],
  });
const likes = () => db().like.findMany({ where: { postId: { in: s.postIds } } });
const reposts = () => db().repost.findMany({ where: { postId: { in: s.postIds } } });
const follows = () => db().follow.findMany({ where: { followeeUserId: s.aliceId } });
const actors = () =>
  db().remoteActor.findMany({
    where: { handle: { in: [s.bob.handle, s.carol.handle] } },
    orderBy: { handle: 'asc' },
  });
const ledger = (...ids: string[]) =>
  db().inboundInteraction.count({ where: { interactionId: { in: ids } } });

describe('like and unlike', () => {
  it('counts the like, notifies the author and stores the actor with the pinned did', async () => {
    const [postId] = s.postIds as [string];
    await ok(
      await t.send(paths.like, await bodies.like(s.bob, postId, `like-1-${s.tag}`)),
      'Like received',
    );

    expect((await post(postId)).likesCount).toBe(1);
    const rows = await likes();
    expect(rows).toMatchObject([
      { postId, actorKey: urlOf(s.bob), interactionId: `like-1-${s.tag}`, userId: null },
    ]);
    const stored = await actors();
    expect(stored).toMatchObject([
      {
        actorUrl: urlOf(s.bob),
        handle: s.bob.handle,
        nodeDomain: BETA,
        displayName: display(s.bob),
        avatarUrl: avatar(s.bob),
        did: s.bob.did,
      },
    ]);
    expect(stored[0]!.didPinnedAt).not.toBeNull();
    expect(rows[0]!.remoteActorId).toBe(stored[0]!.id);
    expect(await notifications()).toMatchObject([
      {
        recipientId: s.aliceId,
        type: 'like',
        actorKey: urlOf(s.bob),
        actorRemoteActorId: stored[0]!.id,
        actorHandle: s.bob.handle,
        actorDisplayName: display(s.bob),
        actorNodeDomain: BETA,
        postId,
        interactionId: `like-1-${s.tag}`,
      },
    ]);
  });

  it('resolves the did once and then uses the pinned one', async () => {
    const [p1, p2, p3] = s.postIds as [string, string, string];
    await ok(await t.send(paths.like, await bodies.like(s.bob, p1)), 'Like received');
    expect(t.profileFetches(s.bob.handle)).toBe(1);
    await ok(await t.send(paths.like, await bodies.like(s.bob, p2)), 'Like received');
    await ok(await t.send(paths.repost, await bodies.repost(s.bob, p3)), 'Repost received');
    expect(t.profileFetches(s.bob.handle)).toBe(1);
  });

  it('applies a repeated interactionId once: 20 times in a row and 20 at once', async () => {
    const [p1, p2] = s.postIds as [string, string];
    const body = await bodies.like(s.bob, p1, `like-seq-${s.tag}`);
    for (let i = 0; i < 20; i++) await ok(await t.send(paths.like, body), 'Like received');

    const concurrent = await bodies.like(s.carol, p2, `like-par-${s.tag}`);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.send(paths.like, concurrent)),
    );
    for (const answer of answers) await ok(answer, 'Like received');

    expect((await post(p1)).likesCount).toBe(1);
    expect((await post(p2)).likesCount).toBe(1);
    expect((await likes()).length).toBe(2);
    expect(await notifications('like')).toHaveLength(2);
    expect(await ledger(`like-seq-${s.tag}`, `like-par-${s.tag}`)).toBe(2);
    expect(await actors()).toHaveLength(2);
  });

  it('keeps one like per actor even with different interactionIds, also concurrently', async () => {
    const [postId] = s.postIds as [string];
    const many = await Promise.all(Array.from({ length: 20 }, () => bodies.like(s.bob, postId)));
    for (const answer of await Promise.all(many.map((b) => t.send(paths.like, b)))) {
      await ok(answer, 'Like received');
    }
    await ok(await t.send(paths.like, await bodies.like(s.bob, postId)), 'Like received');
    expect((await post(postId)).likesCount).toBe(1);
    expect((await likes()).length).toBe(1);
    expect(await notifications('like')).toHaveLength(1);
  });

  it('applies likes and reposts arriving together exactly as one by one', async () => {
    // Arriving together, they share statements (persistence/batched-statement.ts): duplicates,
    // a second id for the same like, a first-sight actor and a 404 in the same burst.
    const [p1, p2, p3] = s.postIds as [string, string, string];
    await ok(await t.send(paths.like, await bodies.like(s.bob, p3)), 'Like received');
    const again = await bodies.like(s.bob, p1, `burst-x-${s.tag}`);
    const burst = [
      again,
      again,
      await bodies.like(s.bob, p1, `burst-y-${s.tag}`),
      await bodies.like(s.carol, p1, `burst-z-${s.tag}`),
      await bodies.like(s.bob, p2, `burst-w-${s.tag}`),
      await bodies.like(s.bob, '00000000-0000-4000-8000-000000000000', `burst-v-${s.tag}`),
    ];
    const burstReposts = [
      await bodies.repost(s.carol, p1),
      await bodies.repost(s.bob, p1),
      await bodies.repost(s.carol, p1),
    ];
    const answers = await Promise.all([
      ...burst.map((body) => t.send(paths.like, body)),
      ...burstReposts.map((body) => t.send(paths.repost, body)),
    ]);
    for (const answer of answers.slice(0, 5)) await ok(answer, 'Like received');
    await refused(answers[5]!, 404, 'POST_NOT_FOUND');
    for (const answer of answers.slice(6)) await ok(answer, 'Repost received');

    expect((await post(p1)).likesCount).toBe(2);
    expect((await post(p1)).repostsCount).toBe(2);
    expect((await post(p2)).likesCount).toBe(1);
    expect((await post(p3)).likesCount).toBe(1);
    expect((await likes()).length).toBe(4);
    expect((await reposts()).length).toBe(2);
    expect(await notifications('like')).toHaveLength(4);
    expect(await notifications('repost')).toHaveLength(2);
    const ids = ['x', 'y', 'z', 'w', 'v'].map((id) => `burst-${id}-${s.tag}`);
    expect(await ledger(...ids)).toBe(4); // not the 404
    // Carol was first seen in the burst: her did is pinned, her details stored once.
    expect(await actors()).toMatchObject([
      { handle: s.bob.handle, did: s.bob.did, displayName: display(s.bob) },
      { handle: s.carol.handle, did: s.carol.did, displayName: display(s.carol) },
    ]);
  });

  it('unlike undoes exactly the like; a second unlike or an unlike of nothing changes nothing', async () => {
    const [p1, p2] = s.postIds as [string, string];
    await ok(await t.send(paths.like, await bodies.like(s.bob, p1)), 'Like received');
    await ok(await t.send(paths.like, await bodies.like(s.carol, p1)), 'Like received');
    expect((await post(p1)).likesCount).toBe(2);

    await ok(await t.send(paths.unlike, await bodies.unlike(s.bob, p1)), 'Unlike received');
    expect((await post(p1)).likesCount).toBe(1);
    expect(await likes()).toMatchObject([{ actorKey: urlOf(s.carol) }]);
    expect(await notifications('like')).toMatchObject([{ actorHandle: s.carol.handle }]);

    const before = await snapshot(t.alpha);
    await ok(await t.send(paths.unlike, await bodies.unlike(s.bob, p1)), 'Unlike received');
    await ok(await t.send(paths.unlike, await bodies.unlike(s.bob, p2)), 'Unlike received');
    const after = await snapshot(t.alpha);
    expect({ ...after, ledger: before.ledger }).toEqual(before); // only the ledger grew
    expect((await post(p1)).likesCount).toBe(1);
    expect((await post(p2)).likesCount).toBe(0);

    // The same unlike again, 20 at once: still one like left, never negative.
    const unlikeCarol = await bodies.unlike(s.carol, p1);
    await Promise.all(Array.from({ length: 20 }, () => t.send(paths.unlike, unlikeCarol)));
    expect((await post(p1)).likesCount).toBe(0);
    expect((await likes()).length).toBe(0);

    // Liking again after the unlike counts again.
    await ok(await t.send(paths.like, await bodies.like(s.bob, p1)), 'Like received');
    expect((await post(p1)).likesCount).toBe(1);
  });
});

describe('repost', () => {
  it('counts the repost once per actor, stores the remote repost id and notifies', async () => {
    const [postId] = s.postIds as [string];
    const body = await bodies.repost(s.bob, postId, `repost-1-${s.tag}`);
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.send(paths.repost, body)));
    for (const answer of answers) await ok(answer, 'Repost received');
    await ok(await t.send(paths.repost, await bodies.repost(s.bob, postId)), 'Repost received');

    expect((await post(postId)).repostsCount).toBe(1);
    expect(await reposts()).toMatchObject([
      {
        postId,
        actorKey: urlOf(s.bob),
        remoteRepostId: body.repost.repostId,
        interactionId: `repost-1-${s.tag}`,
      },
    ]);
    expect(await notifications('repost')).toMatchObject([
      { recipientId: s.aliceId, postId, actorHandle: s.bob.handle },
    ]);
  });
});

describe('follow and unfollow', () => {
  it('adds a follower row under the actor URL, counts it once and notifies', async () => {
    const body = await bodies.follow(s.bob, s.alice, `follow-1-${s.tag}`);
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.send(paths.follow, body)));
    for (const answer of answers) await ok(answer, 'Follow received');
    for (let i = 0; i < 5; i++)
      await ok(await t.send(paths.follow, await bodies.follow(s.bob, s.alice)), 'Follow received');

    expect((await alice()).followersCount).toBe(1);
    expect(await follows()).toMatchObject([
      {
        followerKey: urlOf(s.bob),
        followeeKey: `local:${s.aliceId}`,
        followeeUserId: s.aliceId,
        followerUserId: null,
        state: 'accepted',
        interactionId: `follow-1-${s.tag}`,
      },
    ]);
    expect(await actors()).toMatchObject([
      { actorUrl: urlOf(s.bob), bio: `${display(s.bob)} lives on beta`, did: s.bob.did },
    ]);
    expect(await notifications('follow')).toMatchObject([
      { recipientId: s.aliceId, actorKey: urlOf(s.bob), postId: null },
    ]);
  });

  it('follow without a user signature is accepted (signature optional there)', async () => {
    const { signature: _, ...unsigned } = await bodies.follow(s.carol, s.alice.toUpperCase());
    await ok(await t.send(paths.follow, unsigned), 'Follow received');
    expect((await alice()).followersCount).toBe(1);
    expect(t.profileFetches(s.bob.handle)).toBe(0);
    expect((await actors())[0]?.did).toBeNull();
  });

  it('unfollow undoes exactly the follow; repeated unfollows change nothing', async () => {
    await ok(await t.send(paths.follow, await bodies.follow(s.bob, s.alice)), 'Follow received');
    await ok(await t.send(paths.follow, await bodies.follow(s.carol, s.alice)), 'Follow received');
    expect((await alice()).followersCount).toBe(2);

    const unfollow = await bodies.unfollow(s.bob, s.alice);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.send(paths.unfollow, unfollow)),
    );
    for (const answer of answers) await ok(answer, 'Unfollow received');
    await ok(
      await t.send(paths.unfollow, await bodies.unfollow(s.bob, s.alice)),
      'Unfollow received',
    );

    expect((await alice()).followersCount).toBe(1);
    expect(await follows()).toMatchObject([{ followerKey: urlOf(s.carol) }]);
    expect(await notifications('follow')).toMatchObject([{ actorHandle: s.carol.handle }]);
  });
});

describe('mention', () => {
  it('notifies the mentioned user with an excerpt of the post', async () => {
    const long = `hello @alice@alpha.test ${'x'.repeat(2000)}`;
    const body = await bodies.mention(s.bob, s.alice, long, `mention-1-${s.tag}`);
    for (let i = 0; i < 3; i++) await ok(await t.send(paths.mention, body), 'Mention received');

    const [mention, ...rest] = await notifications('mention');
    expect(rest).toHaveLength(0);
    expect(mention).toMatchObject({
      recipientId: s.aliceId,
      actorKey: urlOf(s.bob),
      postApId: `swarm:${BETA}:${body.mention.postId}`,
      interactionId: `mention-1-${s.tag}`,
    });
    expect(mention!.content!.startsWith('hello @alice@alpha.test xxx')).toBe(true);
    expect(Array.from(mention!.content!).length).toBeLessThanOrEqual(500);
  });
});

describe('reply', () => {
  it('stores the reply under its swarm apId, counts it and notifies; a repeat answers the same replyId', async () => {
    const [postId] = s.postIds as [string];
    const media = ['https://beta.test/media/cat.png', 'https://beta.test/media/clip'];
    const body = await bodies.reply(s.bob, postId, `r-1-${s.tag}`, media);
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.send(paths.reply, body)));
    const ids = new Set<string>();
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const parsed = replyResponseSchema.parse(await answer.json());
      expect(parsed.success).toBe(true);
      ids.add(parsed.replyId);
    }
    expect(ids.size).toBe(1);
    const [replyId] = [...ids] as [string];

    const again = await t.send(paths.reply, body);
    expect(await again.json()).toEqual({ success: true, replyId });

    const reply = await t.alpha.node.db.prisma.post.findUniqueOrThrow({
      where: { id: replyId },
      include: { remoteAuthor: true, media: { orderBy: { position: 'asc' } } },
    });
    expect(reply).toMatchObject({
      apId: `swarm:${BETA}:r-1-${s.tag}`,
      replyToId: postId,
      authorId: null,
      content: `a reply by ${s.bob.handle}`,
      remoteAuthor: { actorUrl: urlOf(s.bob), did: s.bob.did },
    });
    expect(reply.media.map((m) => [m.url, m.mimeType])).toEqual([
      [media[0], 'image/png'],
      [media[1], 'application/octet-stream'],
    ]);
    expect((await post(postId)).repliesCount).toBe(1);
    expect(await notifications('reply')).toMatchObject([
      {
        recipientId: s.aliceId,
        postId: replyId,
        content: `a reply by ${s.bob.handle}`,
        actorKey: urlOf(s.bob),
      },
    ]);

    // A second reply is a second reply.
    const second = await t.send(paths.reply, await bodies.reply(s.bob, postId));
    expect(second.status).toBe(200);
    expect((await post(postId)).repliesCount).toBe(2);
  });

  it('accepts the author written as handle@domain of the same node', async () => {
    const [postId] = s.postIds as [string];
    const body = await bodies.reply(s.carol, postId);
    const withAddress = await t.signed(s.carol, 'reply', {
      postId,
      reply: {
        ...body.reply,
        author: { ...body.reply.author, handle: `${s.carol.handle}@${BETA}` },
      },
    });
    const answer = await t.send(paths.reply, withAddress);
    expect(answer.status, await answer.clone().text()).toBe(200);
    expect(await actors()).toMatchObject([{ handle: s.carol.handle, nodeDomain: BETA }]);
  });
});

describe('refusals change nothing', () => {
  /** Sends, checks the status and code, and that alpha's database is exactly as before. */
  async function expectRefused(send: () => Promise<Response>, status: number, code: string) {
    const before = await snapshot(t.alpha);
    await refused(await send(), status, code);
    expect(await snapshot(t.alpha)).toEqual(before);
  }

  /** Alpha's state with some history: a like, a follow, a reply already received. */
  async function withHistory() {
    const [postId] = s.postIds as [string];
    await ok(await t.send(paths.like, await bodies.like(s.bob, postId)), 'Like received');
    await ok(await t.send(paths.follow, await bodies.follow(s.bob, s.alice)), 'Follow received');
    expect((await t.send(paths.reply, await bodies.reply(s.bob, postId))).status).toBe(200);
  }

  it('unknown post or handle: 404', async () => {
    await withHistory();
    const missing = '00000000-0000-4000-8000-000000000000';
    await expectRefused(
      async () => t.send(paths.like, await bodies.like(s.carol, missing)),
      404,
      'POST_NOT_FOUND',
    );
    await expectRefused(
      async () => t.send(paths.unlike, await bodies.unlike(s.bob, missing)),
      404,
      'POST_NOT_FOUND',
    );
    await expectRefused(
      async () => t.send(paths.repost, await bodies.repost(s.bob, missing)),
      404,
      'POST_NOT_FOUND',
    );
    await expectRefused(
      async () => t.send(paths.reply, await bodies.reply(s.bob, missing)),
      404,
      'POST_NOT_FOUND',
    );
    await expectRefused(
      async () => t.send(paths.follow, await bodies.follow(s.carol, 'nobody')),
      404,
      'USER_NOT_FOUND',
    );
    await expectRefused(
      async () => t.send(paths.unfollow, await bodies.unfollow(s.bob, 'nobody')),
      404,
      'USER_NOT_FOUND',
    );
    await expectRefused(
      async () => t.send(paths.mention, await bodies.mention(s.bob, 'nobody', 'hi')),
      404,
      'USER_NOT_FOUND',
    );
    // The refused interactionId was not used up: the same like on an existing post still counts.
    const body = await bodies.like(s.carol, missing, `reused-after-404-${s.tag}`);
    await refused(await t.send(paths.like, body), 404, 'POST_NOT_FOUND');
    await ok(
      await t.send(
        paths.like,
        await bodies.like(s.carol, s.postIds[0]!, `reused-after-404-${s.tag}`),
      ),
      'Like received',
    );
  });

  it('forged user signature: 401, and the did is not pinned', async () => {
    await withHistory();
    const [postId] = s.postIds as [string];
    const mallory = { ...s.carol, privateKey: (await generateSigningKeyPair()).privateKey };
    for (const make of [
      () => bodies.like(mallory, postId),
      () => bodies.unlike(mallory, postId),
      () => bodies.repost(mallory, postId),
      () => bodies.follow(mallory, s.alice),
      () => bodies.unfollow(mallory, s.alice),
      () => bodies.mention(mallory, s.alice, 'hi'),
    ] as const) {
      const body = await make();
      const kind = Object.keys(body).find(
        (k) => k in paths && k !== 'postId',
      ) as keyof typeof paths;
      await expectRefused(() => t.send(paths[kind], body), 401, 'INVALID_SIGNATURE');
    }
    await expectRefused(
      async () => t.send(paths.reply, await bodies.reply(mallory, postId)),
      401,
      'INVALID_SIGNATURE',
    );
    // Bob's real signature over a body changed afterwards (tampered) is also refused.
    const tampered = { ...(await bodies.like(s.bob, s.postIds[1]!)), postId: s.postIds[2]! };
    await expectRefused(() => t.send(paths.like, tampered), 401, 'INVALID_SIGNATURE');
    // An extra member the signer did not sign counts too: the signature covers the raw body.
    const extra = { ...(await bodies.like(s.bob, s.postIds[1]!)), note: 'added later' };
    await expectRefused(() => t.send(paths.like, extra), 401, 'INVALID_SIGNATURE');
    // A user signature made for another node is not valid here.
    expect((await actors()).map((a) => a.handle)).toEqual([s.bob.handle]);
  });

  it('missing signature where required: 401; a user without a resolvable did: 401', async () => {
    await withHistory();
    const [postId] = s.postIds as [string];
    for (const [kind, body] of [
      ['like', await bodies.like(s.carol, postId)],
      ['unlike', await bodies.unlike(s.bob, postId)],
      ['repost', await bodies.repost(s.carol, postId)],
    ] as const) {
      const { signature: _, ...unsigned } = body;
      await expectRefused(() => t.send(paths[kind], unsigned), 401, 'INVALID_SIGNATURE');
      await expectRefused(
        () => t.send(paths[kind], { ...unsigned, signature: null }),
        401,
        'INVALID_SIGNATURE',
      );
    }
    // dave exists on beta without a registered key: nothing to verify against.
    await t.beta.node.db.prisma.user.create({
      data: { handle: `dave_${s.tag}`, passwordHash: 'x' },
    });
    const dave = { handle: `dave_${s.tag}`, did: '', privateKey: s.carol.privateKey };
    await expectRefused(
      async () => t.send(paths.like, await bodies.like(dave, postId)),
      401,
      'INVALID_SIGNATURE',
    );
    // erin does not exist on beta at all.
    const erin = { handle: `erin_${s.tag}`, did: '', privateKey: s.carol.privateKey };
    await expectRefused(
      async () => t.send(paths.follow, await bodies.follow(erin, s.alice)),
      401,
      'INVALID_SIGNATURE',
    );
  });

  it('an actor of another node than the signing one: 403', async () => {
    await withHistory();
    const [postId] = s.postIds as [string];
    const like = await bodies.like(s.bob, postId);
    const foreign = await t.signed(s.bob, 'like', {
      ...like,
      like: { ...like.like, actorNodeDomain: 'gamma.test' },
    });
    await expectRefused(() => t.send(paths.like, foreign), 403, 'FORBIDDEN');
    const follow = await bodies.follow(s.bob, s.alice);
    const foreignFollow = {
      ...follow,
      follow: { ...follow.follow, followerNodeDomain: 'gamma.test' },
    };
    await expectRefused(() => t.send(paths.follow, foreignFollow), 403, 'FORBIDDEN');
    const reply = await bodies.reply(s.bob, postId);
    await expectRefused(
      () => t.send(paths.reply, { ...reply, reply: { ...reply.reply, nodeDomain: 'gamma.test' } }),
      403,
      'FORBIDDEN',
    );
    await expectRefused(
      () =>
        t.send(paths.reply, {
          ...reply,
          reply: { ...reply.reply, author: { handle: 'bob@gamma.test' } },
        }),
      403,
      'FORBIDDEN',
    );
  });

  it('stale (over 7 days) or future (over 5 minutes) interaction timestamps: 401', async () => {
    await withHistory();
    const [, postId] = s.postIds as [string, string];
    const at = (ms: number) => formatTimestamp(new Date(t.clock.now().getTime() + ms));
    await expectRefused(
      async () =>
        t.send(paths.like, await bodies.like(s.bob, postId, nextId('old'), at(-7 * DAY - 1000))),
      401,
      'INVALID_SIGNATURE',
    );
    await expectRefused(
      async () =>
        t.send(
          paths.like,
          await bodies.like(s.bob, postId, nextId('future'), at(5 * 60_000 + 1000)),
        ),
      401,
      'INVALID_SIGNATURE',
    );
    // Inside the window both ways: accepted (outbox retries, small clock skew).
    await ok(
      await t.send(paths.like, await bodies.like(s.bob, postId, nextId('late'), at(-6 * DAY))),
      'Like received',
    );
    await ok(
      await t.send(paths.like, await bodies.like(s.carol, postId, nextId('skew'), at(4 * 60_000))),
      'Like received',
    );
    expect((await post(postId)).likesCount).toBe(2);
  });

  it('unsigned or wrongly node-signed requests: 401', async () => {
    await withHistory();
    const [postId] = s.postIds as [string];
    const body = await bodies.like(s.carol, postId);
    // Without our headers the body reads as the origin profile's format, which a peer known to
    // speak ours may never use (docs/security.md "What each kind of peer can forge").
    await expectRefused(
      () =>
        t.alpha.request(paths.like, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      401,
      'PROFILE_MISMATCH',
    );
    const stranger = (await generateSigningKeyPair()).privateKey;
    await expectRefused(
      () => t.send(paths.like, body, { nodeKey: stranger }),
      401,
      'INVALID_SIGNATURE',
    );
  });

  it('malformed bodies: 400 with zod details', async () => {
    await withHistory();
    const [postId] = s.postIds as [string];
    const like = await bodies.like(s.bob, postId);
    for (const [path, body] of [
      [paths.like, { ...like, postId: 'not-a-uuid' }],
      [paths.like, { ...like, like: { ...like.like, timestamp: 'yesterday' } }],
      [paths.follow, { targetHandle: s.alice }],
      [paths.reply, { postId, reply: { id: 'has:colon', content: 1 } }],
      [paths.mention, []],
    ] as const) {
      const before = await snapshot(t.alpha);
      const response = await t.send(path, body);
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { code: string; details: unknown };
      expect(answer.code).toBe('INVALID_REQUEST');
      expect(Array.isArray(answer.details)).toBe(true);
      expect(await snapshot(t.alpha)).toEqual(before);
    }
  });
});
