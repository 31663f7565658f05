import { describe, expect, it } from 'vitest';
import { formatTimestamp } from '@swarm/contract';
import {
  BETA,
  pairWithFreshScenes,
  paths,
  type InteractionPair,
  type RemoteUser,
  type Scene,
} from './interactions-harness.ts';

// A like (or repost) of a post here by a user of this node and one by another node's user go
// one path (domain interactions/post-interaction.ts): the same row, counter and notification,
// told apart only by who the actor is. Both actors act twice; the repeat changes nothing.

let t: InteractionPair;
let s: Scene;

pairWithFreshScenes({ pair: (made) => (t = made), scene: (made) => (s = made) });

const db = () => t.alpha.node.db.prisma;
const display = (user: RemoteUser) => user.handle[0]!.toUpperCase() + user.handle.slice(1);
const avatar = (user: RemoteUser) => `https://${BETA}/avatars/${user.handle}.png`;

/** A user of alpha besides the post's author. */
async function localUser() {
  return db().user.create({
    data: {
      handle: `dave_${s.tag}`,
      displayName: 'Dave',
      avatarUrl: `https://alpha.test/avatars/dave_${s.tag}.png`,
      passwordHash: 'x',
    },
  });
}

/** Bob of beta likes or reposts `postId` (signed by him and by his node). */
async function fromPeer(kind: 'like' | 'repost', postId: string, interactionId: string) {
  const actor = {
    actorHandle: s.bob.handle,
    actorDisplayName: display(s.bob),
    actorAvatarUrl: avatar(s.bob),
    actorNodeDomain: BETA,
    interactionId,
    timestamp: formatTimestamp(t.clock.now()),
  };
  const body =
    kind === 'like'
      ? await t.signed(s.bob, 'like', { postId, like: actor })
      : await t.signed(s.bob, 'repost', {
          postId,
          repost: { ...actor, repostId: `${interactionId}-post` },
        });
  const answer = await t.send(paths[kind], body);
  expect(answer.status, await answer.clone().text()).toBe(200);
}

/** The rows a like or repost wrote, keyed by who made it, without their generated ids. */
async function written(kind: 'like' | 'repost', postId: string) {
  const rows =
    kind === 'like'
      ? await db().like.findMany({ where: { postId }, orderBy: { actorKey: 'asc' } })
      : await db().repost.findMany({ where: { postId }, orderBy: { actorKey: 'asc' } });
  const notifications = await db().notification.findMany({
    where: { postId, type: kind },
    orderBy: { actorKey: 'asc' },
  });
  const post = await db().post.findUniqueOrThrow({ where: { id: postId } });
  return {
    count: kind === 'like' ? post.likesCount : post.repostsCount,
    rows: rows.map(({ id: _id, ...row }) => row),
    notifications: notifications.map(({ id: _id, apiId: _apiId, readAt: _readAt, ...row }) => row),
  };
}

describe('one path for a like or repost, local or from a peer', () => {
  for (const kind of ['like', 'repost'] as const) {
    it(`a local ${kind} and a peer's ${kind} of one post write the same counter, row and notification`, async () => {
      const [postId] = s.postIds as [string];
      const dave = await localUser();
      const at = t.clock.now();
      const act = () =>
        kind === 'like'
          ? t.alpha.node.actions.interactions.like(dave.id, { postId })
          : t.alpha.node.actions.interactions.repost(dave.id, { postId });
      expect(await act()).toEqual({ ok: true, value: { delivery: null } });
      await fromPeer(kind, postId, `${kind}-peer-${s.tag}`);
      const once = await written(kind, postId);

      // Again, each: the local action as a repeat, the peer with the same and a new id.
      await act();
      await fromPeer(kind, postId, `${kind}-peer-${s.tag}`);
      await fromPeer(kind, postId, `${kind}-peer-again-${s.tag}`);
      expect(await written(kind, postId)).toEqual(once);

      const bob = await db().remoteActor.findFirstOrThrow({ where: { handle: s.bob.handle } });
      expect(once.count).toBe(2);
      // Ordered by actor key: `local:<id>` before `swarm://…`.
      expect(once.rows).toMatchObject([
        {
          postId,
          actorKey: `local:${dave.id}`,
          userId: dave.id,
          remoteActorId: null,
          interactionId: null,
          createdAt: at,
        },
        {
          postId,
          actorKey: `swarm://${BETA}/${s.bob.handle}`,
          userId: null,
          remoteActorId: bob.id,
          interactionId: `${kind}-peer-${s.tag}`,
          createdAt: at,
        },
      ]);
      const shared = { recipientId: s.aliceId, type: kind, postId, createdAt: at };
      expect(once.notifications).toEqual([
        {
          ...shared,
          actorKey: `local:${dave.id}`,
          actorUserId: dave.id,
          actorRemoteActorId: null,
          actorHandle: dave.handle,
          actorDisplayName: 'Dave',
          actorAvatarUrl: dave.avatarUrl,
          actorNodeDomain: null,
          postApId: null,
          content: null,
          interactionId: null,
        },
        {
          ...shared,
          actorKey: `swarm://${BETA}/${s.bob.handle}`,
          actorUserId: null,
          actorRemoteActorId: bob.id,
          actorHandle: s.bob.handle,
          actorDisplayName: display(s.bob),
          actorAvatarUrl: avatar(s.bob),
          actorNodeDomain: BETA,
          postApId: null,
          content: null,
          interactionId: `${kind}-peer-${s.tag}`,
        },
      ]);
    });
  }

  it('the author liking their own post counts it and tells no one', async () => {
    const [postId] = s.postIds as [string];
    await t.alpha.node.actions.interactions.like(s.aliceId, { postId });
    expect(await written('like', postId)).toMatchObject({
      count: 1,
      rows: [{ userId: s.aliceId }],
      notifications: [],
    });
  });
});
