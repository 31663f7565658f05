import { formatActorUrl } from '@swarm/contract';
import type { Prisma } from '@swarm/db';
import { localActorKey } from '@swarm/db';
import {
  upsertRemoteActorSql,
  type RemoteActorFields,
  type RemoteActorUpsertOptions,
} from '../persistence/interactions.sql.ts';
import { queuePushSql } from '../persistence/push.sql.ts';

/**
 * The database effects of an interaction, shared by the receiver of other nodes' interactions
 * (inbound-interaction.service.ts) and by what local users do (actions/): one follow per pair,
 * the undoing of likes, reposts and follows, counters changed with atomic increments (never
 * below zero), notifications with a snapshot of the actor. Every helper runs inside the
 * caller's transaction. Likes and reposts themselves land through post-interaction.ts.
 */

export type Tx = Prisma.TransactionClient;

/** Who did something: a user of this node, or a remote actor already stored. */
export type EffectActor =
  | {
      kind: 'local';
      userId: string;
      handle: string;
      displayName: string;
      avatarUrl: string | null;
    }
  | {
      kind: 'remote';
      remoteActorId: string;
      actorUrl: string;
      handle: string;
      domain: string;
      displayName: string;
      avatarUrl: string | null;
    };

/** `local:<userId>` or the actor URL: the unique key of likes, reposts, follows. */
export function actorKeyOf(actor: EffectActor): string {
  return actor.kind === 'local' ? localActorKey(actor.userId) : actor.actorUrl;
}

/**
 * Insert-or-refresh a remote actor's cached profile in one statement (two requests may store
 * the same actor at once). Empty display fields never overwrite known ones; a did is pinned only
 * when none is (docs/protocol.md: pinned on first sight), or over exactly the did it replaces (a
 * compare-and-set: concurrent requests cannot pin an older answer over a newer one).
 */
export async function upsertRemoteActor(
  tx: Tx,
  actor: RemoteActorFields,
  options: RemoteActorUpsertOptions,
): Promise<{ id: string; actorUrl: string }> {
  const actorUrl = formatActorUrl(actor);
  const rows = await tx.$queryRaw<{ id: string }[]>(upsertRemoteActorSql(actor, options));
  const id = rows[0]?.id;
  if (!id) throw new Error(`remote actor upsert returned no row for ${actorUrl}`);
  return { id, actorUrl };
}

/** The stored remote actor as an `EffectActor`. */
export function remoteEffectActor(
  fields: RemoteActorFields,
  stored: { id: string; actorUrl: string },
): EffectActor {
  return {
    kind: 'remote',
    remoteActorId: stored.id,
    actorUrl: stored.actorUrl,
    handle: fields.handle,
    domain: fields.domain,
    displayName: fields.displayName,
    avatarUrl: fields.avatarUrl || null,
  };
}

/** Undoes exactly a like: the row, one off the count, its notification. False when none. */
export async function removeLike(
  tx: Tx,
  input: { postId: string; actorKey: string },
): Promise<boolean> {
  const { count } = await tx.like.deleteMany({
    where: { postId: input.postId, actorKey: input.actorKey },
  });
  if (count === 0) return false;
  await tx.post.updateMany({
    where: { id: input.postId, likesCount: { gt: 0 } },
    data: { likesCount: { decrement: 1 } },
  });
  await tx.notification.deleteMany({
    where: { type: 'like', postId: input.postId, actorKey: input.actorKey },
  });
  return true;
}

/**
 * Undoes exactly a repost, a local user's or another node's: the row, one off the count, its
 * notification, and the repost's own post (a local user's repost shows in feeds as a post with
 * `repostOfId`; nothing else points at it), and for another node's also the stored copy of their
 * repost entry (docs/architecture.md "Stored remote content"). False when there was no row.
 */
export async function removeRepost(
  tx: Tx,
  input: { postId: string; actorKey: string },
): Promise<boolean> {
  await tx.post.deleteMany({
    where: {
      repostOfId: input.postId,
      apId: { not: null },
      remoteAuthor: { actorUrl: input.actorKey },
    },
  });
  const row = await tx.repost.findUnique({
    where: { postId_actorKey: { postId: input.postId, actorKey: input.actorKey } },
    select: { id: true, repostPostId: true },
  });
  if (!row) return false;
  // By id: of two undos at once, only the one that removes the row changes the count.
  const { count } = await tx.repost.deleteMany({ where: { id: row.id } });
  if (count === 0) return false;
  if (row.repostPostId) {
    await tx.post.deleteMany({ where: { id: row.repostPostId, repostOfId: { not: null } } });
  }
  await tx.post.updateMany({
    where: { id: input.postId, repostsCount: { gt: 0 } },
    data: { repostsCount: { decrement: 1 } },
  });
  await tx.notification.deleteMany({
    where: { type: 'repost', postId: input.postId, actorKey: input.actorKey },
  });
  return true;
}

/** The followee of a follow: a local user, or a stored remote actor. */
export type FollowTarget =
  { kind: 'local'; userId: string } | { kind: 'remote'; remoteActorId: string; actorUrl: string };

function followeeKeyOf(target: FollowTarget): string {
  return target.kind === 'local' ? localActorKey(target.userId) : target.actorUrl;
}

/**
 * One follow per pair; true when it was new. Counters of the local users on either side move
 * with it (`followingCount` of a local follower, `followersCount` of a local followee).
 */
export async function addFollow(
  tx: Tx,
  input: {
    follower: EffectActor;
    followee: FollowTarget;
    state: 'pending' | 'accepted';
    interactionId: string | null;
    at: Date;
  },
): Promise<boolean> {
  const { follower, followee } = input;
  const { count } = await tx.follow.createMany({
    data: [
      {
        followerKey: actorKeyOf(follower),
        followerUserId: follower.kind === 'local' ? follower.userId : null,
        followerRemoteActorId: follower.kind === 'remote' ? follower.remoteActorId : null,
        followeeKey: followeeKeyOf(followee),
        followeeUserId: followee.kind === 'local' ? followee.userId : null,
        followeeRemoteActorId: followee.kind === 'remote' ? followee.remoteActorId : null,
        state: input.state,
        interactionId: input.interactionId,
        createdAt: input.at,
      },
    ],
    skipDuplicates: true,
  });
  if (count === 0) return false;
  if (followee.kind === 'local') {
    await tx.user.update({
      where: { id: followee.userId },
      data: { followersCount: { increment: 1 } },
    });
  }
  if (follower.kind === 'local') {
    await tx.user.update({
      where: { id: follower.userId },
      data: { followingCount: { increment: 1 } },
    });
  }
  return true;
}

/**
 * Undoes exactly a follow: the row, the counters, the follow notification. Returns the removed
 * follow's interaction id and state, or null when there was none.
 */
export async function removeFollow(
  tx: Tx,
  input: { followerKey: string; followeeKey: string },
): Promise<{ interactionId: string | null; state: 'pending' | 'accepted' } | null> {
  const rows = await tx.follow.findMany({
    where: { followerKey: input.followerKey, followeeKey: input.followeeKey },
    select: {
      id: true,
      followerUserId: true,
      followeeUserId: true,
      interactionId: true,
      state: true,
    },
  });
  const row = rows[0];
  if (!row) return null;
  // Deleting by id and counting what went: a concurrent undo removes it only once.
  const { count } = await tx.follow.deleteMany({ where: { id: row.id } });
  if (count === 0) return null;
  if (row.followeeUserId) {
    await tx.user.updateMany({
      where: { id: row.followeeUserId, followersCount: { gt: 0 } },
      data: { followersCount: { decrement: 1 } },
    });
    await tx.notification.deleteMany({
      where: { type: 'follow', recipientId: row.followeeUserId, actorKey: input.followerKey },
    });
  }
  if (row.followerUserId) {
    // Lists hold only people their owner follows (lists/): an unfollow takes them off.
    await tx.listMember.deleteMany({
      where: { memberKey: input.followeeKey, list: { userId: row.followerUserId } },
    });
    await tx.user.updateMany({
      where: { id: row.followerUserId, followingCount: { gt: 0 } },
      data: { followingCount: { decrement: 1 } },
    });
  }
  return { interactionId: row.interactionId, state: row.state };
}

export type NotificationKind = 'like' | 'repost' | 'follow' | 'mention' | 'reply';

/** A notification with the actor's display fields as they are now. Nobody is told about themselves. */
export async function notify(
  tx: Tx,
  input: {
    recipientId: string;
    type: NotificationKind;
    actor: EffectActor;
    at: Date;
    postId?: string;
    postApId?: string;
    content?: string;
    interactionId?: string | null;
  },
): Promise<void> {
  const { actor } = input;
  if (actor.kind === 'local' && actor.userId === input.recipientId) return;
  const { id } = await tx.notification.create({
    select: { id: true },
    data: {
      recipientId: input.recipientId,
      type: input.type,
      actorKey: actorKeyOf(actor),
      actorUserId: actor.kind === 'local' ? actor.userId : null,
      actorRemoteActorId: actor.kind === 'remote' ? actor.remoteActorId : null,
      actorHandle: actor.handle,
      actorDisplayName: actor.displayName,
      actorAvatarUrl: actor.avatarUrl || null,
      actorNodeDomain: actor.kind === 'remote' ? actor.domain : null,
      postId: input.postId ?? null,
      postApId: input.postApId ?? null,
      content: input.content ?? null,
      interactionId: input.interactionId ?? null,
      createdAt: input.at,
    },
  });
  // Web Push, in the same transaction: the push worker sends it once this commits.
  await tx.$executeRaw(queuePushSql(id, input.recipientId));
}
