import { randomUUID } from 'node:crypto';
import {
  deletionAction,
  formatActorUrl,
  formatSwarmPostId,
  formatTimestamp,
  isAcceptableInteractionTime,
  ok,
  parseDomain,
  parseHandleAddress,
  swarmUserResponseSchema,
  SWARM_PATHS,
  verifyUserAction,
  type DeletionBody,
  type MoveBody,
  type Result,
  type UserAction,
} from '@swarm/contract';
import { localActorKey } from '@swarm/db';
import type { DeliveryService } from '../delivery/index.ts';
import {
  addFollow,
  removeFollow,
  upsertRemoteActor,
  type FollowTarget,
  type Tx,
} from '../interactions/interaction-effects.ts';
import { createDelegationChecks } from '../delegations/index.ts';
import { describePeerError } from '../peers/index.ts';
import { importDidKey } from '../peers/key-cache.ts';
import { refuse, type Refusal } from '../refusal.ts';
import { createUserDids } from '../security/user-dids.ts';
import { remoteActorCounterFixesSql } from '../persistence/ownership.sql.ts';
import { followerDomains } from './holders.ts';
import type { PeerServiceDeps } from '../peers/service-deps.ts';

/**
 * Receiver of the ownership statements (docs/protocol.md "Deleting posts and accounts",
 * "Moving an account"): `POST /api/swarm/deletions` and `POST /api/swarm/moves`, node-signed by
 * the relaying node and signed by the user's own key. Checks run before any write (sender 403,
 * time 401, key 401, new home 403/404/502); effects and the idempotency ledger are one
 * transaction; deliveries they cause (relays, moved follows) go to the outbox, sent by its worker.
 * A post's deletion may instead be signed by an app's key under the user's delegation
 * (docs/protocol.md "App delegations"); an account's, never.
 */

/** The refusals a deletion or move can meet (the one error model, `refusal.ts`). */
export type OwnershipError = Refusal<
  'INVALID_SIGNATURE' | 'FORBIDDEN' | 'USER_NOT_FOUND' | 'PEER_UNAVAILABLE'
>;

export type OwnershipOutcome = Result<{ message: string }, OwnershipError>;

/** A deletion an app signed may also wait for the reads of delegation states (429). */
export type DeletionOutcome = Result<{ message: string }, OwnershipError | Refusal<'RATE_LIMITED'>>;

export interface InboundOwnershipService {
  deletion(sourceDomain: string, body: DeletionBody, rawBody: unknown): Promise<DeletionOutcome>;
  move(sourceDomain: string, body: MoveBody, rawBody: unknown): Promise<OwnershipOutcome>;
}

export interface InboundOwnershipDeps extends PeerServiceDeps {
  delivery: Pick<DeliveryService, 'enqueue'>;
}

export const OWNERSHIP_MESSAGES = {
  deletion: 'Deletion received',
  move: 'Move received',
} as const;

const TX_OPTIONS = { maxWait: 15_000, timeout: 60_000 } as const;

const fail = (code: OwnershipError['code'], message: string) => refuse(code, message);

export function createInboundOwnershipService(deps: InboundOwnershipDeps): InboundOwnershipService {
  const { db, peers, clock, logger, config, delivery } = deps;
  const prisma = db.prisma;
  const self = config.domain;
  const userDids = createUserDids({ peers, clock });
  /** App-key signatures under a user's delegation (a post deleted from an app). */
  const delegations = createDelegationChecks({ peers, clock });

  async function signedBy(did: string, action: UserAction, target: string, raw: unknown) {
    const key = await importDidKey(did);
    if (!key.ok) return false;
    return verifyUserAction({ publicKey: key.value, action, targetDomain: target, body: raw });
  }

  async function claim(tx: Tx, domain: string, interactionId: string, kind: string) {
    const { count } = await tx.inboundInteraction.createMany({
      data: [{ actorNodeDomain: domain, interactionId, kind, receivedAt: clock.now() }],
      skipDuplicates: true,
    });
    return count === 1;
  }

  /** The effects in one transaction (a long one: a move may rewrite many follows). */
  async function run(work: (tx: Tx) => Promise<void>): Promise<Result<void, OwnershipError>> {
    await prisma.$transaction(work, TX_OPTIONS);
    return ok(undefined);
  }

  /** A remote post copy and what hangs on it here, removed as a deleted post is. */
  async function deleteCopy(tx: Tx, postId: string, at: Date) {
    const { count } = await tx.post.updateMany({
      where: { id: postId, deletedAt: null },
      data: { deletedAt: at },
    });
    if (count === 0) return;
    const post = await tx.post.findUniqueOrThrow({
      where: { id: postId },
      select: { replyToId: true, apId: true },
    });
    if (post.replyToId) {
      await tx.post.updateMany({
        where: { id: post.replyToId, repliesCount: { gt: 0 } },
        data: { repliesCount: { decrement: 1 } },
      });
    }
    // Local people's likes and reposts of it go (their repost posts with them).
    await tx.like.deleteMany({ where: { postId } });
    const reposts = await tx.repost.findMany({
      where: { postId },
      select: { repostPostId: true, userId: true },
    });
    await tx.repost.deleteMany({ where: { postId } });
    const repostPosts = reposts.flatMap((r) => (r.repostPostId ? [r.repostPostId] : []));
    if (repostPosts.length > 0) {
      await tx.post.updateMany({
        where: { id: { in: repostPosts }, deletedAt: null },
        data: { deletedAt: at },
      });
    }
    await tx.post.update({
      where: { id: postId },
      data: { likesCount: 0, repostsCount: 0 },
    });
    await tx.notification.deleteMany({
      where: { OR: [{ postId }, ...(post.apId ? [{ postApId: post.apId }] : [])] },
    });
  }

  /** Everything of a remote actor here, with the counters of local people set right. */
  async function eraseRemoteActor(tx: Tx, actorId: string, at: Date) {
    for (const fix of remoteActorCounterFixesSql) await tx.$executeRaw(fix(actorId));
    await tx.like.deleteMany({ where: { remoteActorId: actorId } });
    await tx.repost.deleteMany({ where: { remoteActorId: actorId } });
    const follows = await tx.follow.findMany({
      where: { OR: [{ followerRemoteActorId: actorId }, { followeeRemoteActorId: actorId }] },
      select: { followerKey: true, followeeKey: true },
    });
    for (const follow of follows) await removeFollow(tx, follow);
    const posts = await tx.post.findMany({
      where: { remoteAuthorId: actorId, deletedAt: null },
      select: { id: true },
    });
    for (const post of posts) await deleteCopy(tx, post.id, at);
    await tx.notification.deleteMany({ where: { actorRemoteActorId: actorId } });
    await tx.remoteActor.update({
      where: { id: actorId },
      data: { displayName: '', bio: '', avatarUrl: null },
    });
  }

  /**
   * The did a statement about `who` must be signed with: the one pinned here, else the one its
   * node publishes; null when this node never heard of `who` (nothing here to act on).
   */
  async function expectedDid(
    who: { handle: string; domain: string },
    claimed: string,
  ): Promise<Result<{ did: string; actorId: string } | null, OwnershipError>> {
    const actor = await prisma.remoteActor.findUnique({
      where: { actorUrl: formatActorUrl(who) },
      select: { id: true, did: true },
    });
    if (!actor) return ok(null);
    if (actor.did) return ok({ did: actor.did, actorId: actor.id });
    const published = await userDids.fetch(who);
    // Its node no longer answers for it (a deleted account): the node-signed statement from
    // that very node speaks for its user, as every interaction of theirs did.
    return ok({ did: published.ok ? published.value : claimed, actorId: actor.id });
  }

  return {
    async deletion(sourceDomain, body, rawBody) {
      const d = body.deletion;
      const source = parseDomain(sourceDomain);
      if (!source.ok || source.value !== d.actorNodeDomain) {
        return fail(
          'FORBIDDEN',
          `A node may only delete for its own users: ${sourceDomain} sent a deletion by a user of ${d.actorNodeDomain}.`,
        );
      }
      if (d.kind === 'post' && !d.postId) {
        return fail('FORBIDDEN', 'A post deletion must name the post (postId).');
      }
      if (!isAcceptableInteractionTime(d.timestamp, clock.now())) {
        return fail(
          'INVALID_SIGNATURE',
          'The deletion timestamp is stale (over 7 days old) or in the future.',
        );
      }
      const who = { handle: d.actorHandle, domain: d.actorNodeDomain };
      // An app's statement: its delegation must hold up before the user's did is looked at,
      // and then the did proves the delegation instead of the statement.
      const rawDelegation = delegationOf(rawBody);
      const delegated = rawDelegation !== undefined;
      if (delegated) {
        if (d.kind !== 'post') {
          return fail(
            'FORBIDDEN',
            "An app can never delete an account: only the user's own key signs that.",
          );
        }
        const pre = await delegations.precheck({
          actor: who,
          action: 'delete-post',
          targetDomain: d.actorNodeDomain,
          rawDelegation,
          signedObject: rawBody,
        });
        if (!pre.ok) return refuse(pre.reason.code, pre.reason.message);
      }
      const expected = await expectedDid(who, d.did);
      if (!expected.ok) return expected;
      const pinned = expected.value?.did ?? d.did;
      if (pinned !== d.did) {
        return fail(
          'INVALID_SIGNATURE',
          `The deletion names a key that is not ${d.actorHandle}@${d.actorNodeDomain}'s.`,
        );
      }
      const proved = delegated
        ? await delegations.signedByUser(d.did, rawDelegation, d.actorNodeDomain)
        : await signedBy(d.did, deletionAction(d.kind), d.actorNodeDomain, rawBody);
      if (!proved) {
        return fail(
          'INVALID_SIGNATURE',
          delegated
            ? `The delegation is not signed by ${d.actorHandle}@${d.actorNodeDomain}'s key.`
            : `The deletion is not signed by ${d.actorHandle}@${d.actorNodeDomain}'s key.`,
        );
      }
      if (delegated) {
        const holds = await delegations.holds(
          d.actorNodeDomain,
          String((rawDelegation as { id?: unknown }).id),
        );
        if (!holds.ok) return refuse(holds.reason.code, holds.reason.message);
      }
      const actorId = expected.value?.actorId;
      const done = await run(async (tx) => {
        if (!(await claim(tx, d.actorNodeDomain, d.interactionId, deletionAction(d.kind)))) return;
        const at = clock.now();
        if (!actorId) return; // never seen here: nothing to delete
        if (d.kind === 'post') {
          const copy = await tx.post.findFirst({
            where: {
              apId: formatSwarmPostId({ domain: d.actorNodeDomain, postId: d.postId! }),
              remoteAuthorId: actorId,
            },
            select: { id: true },
          });
          if (copy) await deleteCopy(tx, copy.id, at);
          // A mention of someone here, pointing at the post, leads nowhere now.
          await tx.notification.deleteMany({
            where: {
              postApId: formatSwarmPostId({ domain: d.actorNodeDomain, postId: d.postId! }),
            },
          });
          return;
        }
        await eraseRemoteActor(tx, actorId, at);
        await tx.handleRegistryEntry.deleteMany({
          where: { handle: d.actorHandle, nodeDomain: d.actorNodeDomain },
        });
      });
      if (!done.ok) return done;
      logger.info(
        { actor: `${d.actorHandle}@${d.actorNodeDomain}`, kind: d.kind },
        'deletion received',
      );
      return ok({ message: OWNERSHIP_MESSAGES.deletion });
    },

    async move(sourceDomain, body, rawBody) {
      const m = body.move;
      const from = parseHandleAddress(m.from);
      const to = parseHandleAddress(m.to);
      if (!from.ok || !to.ok) return fail('FORBIDDEN', 'The move names invalid addresses.');
      const source = parseDomain(sourceDomain);
      if (!source.ok || (source.value !== from.value.domain && source.value !== to.value.domain)) {
        return fail(
          'FORBIDDEN',
          `Only the node an account leaves or the node it moves to may relay its move; ${sourceDomain} is neither.`,
        );
      }
      if (from.value.domain === to.value.domain) {
        return fail('FORBIDDEN', 'A move must go to another node.');
      }
      if (!isAcceptableInteractionTime(m.timestamp, clock.now())) {
        return fail(
          'INVALID_SIGNATURE',
          'The move timestamp is stale (over 7 days old) or in the future.',
        );
      }
      const leavingHere = from.value.domain === self;
      let localUser: { id: string; did: string | null; movedTo: string | null } | null = null;
      let actorId: string | null = null;
      if (leavingHere) {
        localUser = await prisma.user.findUnique({
          where: { handle: from.value.handle.toLowerCase() },
          select: { id: true, did: true, movedTo: true },
        });
        if (!localUser) return fail('USER_NOT_FOUND', `No user ${from.value.handle} on this node.`);
        if (localUser.did !== m.did) {
          return fail('INVALID_SIGNATURE', `The move is not made with ${m.from}'s key.`);
        }
      } else {
        const expected = await expectedDid(from.value, m.did);
        if (!expected.ok) return expected;
        if (expected.value && expected.value.did !== m.did) {
          return fail('INVALID_SIGNATURE', `The move is not made with ${m.from}'s key.`);
        }
        actorId = expected.value?.actorId ?? null;
      }
      if (!(await signedBy(m.did, 'move', from.value.domain, rawBody))) {
        return fail('INVALID_SIGNATURE', `The move is not signed by ${m.from}'s key.`);
      }
      // Nothing here follows or hosts the account: accepted, nothing to do.
      if (!leavingHere && !actorId) return ok({ message: OWNERSHIP_MESSAGES.move });
      // The new node must hold the account under the same key.
      let arrivedHere: { id: string } | null = null;
      if (to.value.domain === self) {
        arrivedHere = await prisma.user.findFirst({
          where: { handle: to.value.handle.toLowerCase(), did: m.did },
          select: { id: true },
        });
        if (!arrivedHere) {
          return fail(
            'FORBIDDEN',
            `${m.to} does not hold this account: import the archive here first.`,
          );
        }
      } else {
        const there = await peers.getJson(
          to.value.domain,
          `${SWARM_PATHS.user(to.value.handle)}?limit=0`,
          swarmUserResponseSchema,
        );
        if (!there.ok) {
          const e = there.reason;
          if (e.kind === 'http' && e.status === 404) {
            return fail(
              'USER_NOT_FOUND',
              `${m.to} does not exist: import the account there first.`,
            );
          }
          return fail(
            'PEER_UNAVAILABLE',
            `${to.value.domain} cannot be asked: ${describePeerError(e)}.`,
          );
        }
        if (there.value.profile.did !== m.did) {
          return fail(
            'FORBIDDEN',
            `${m.to} does not hold this account (its key differs): import the archive there first.`,
          );
        }
      }
      const fromKey = leavingHere ? localActorKey(localUser!.id) : formatActorUrl(from.value);
      const done = await run(async (tx) => {
        if (!(await claim(tx, source.value, m.interactionId, 'move'))) return;
        const at = clock.now();
        // The new address: a remote actor, or the imported account when it arrived here.
        let target: FollowTarget;
        if (arrivedHere) {
          target = { kind: 'local', userId: arrivedHere.id };
        } else {
          const stored = await upsertRemoteActor(
            tx,
            {
              handle: to.value.handle,
              domain: to.value.domain,
              displayName: '',
              avatarUrl: '',
              bio: '',
            },
            { now: at, didToPin: m.did },
          );
          target = { kind: 'remote', remoteActorId: stored.id, actorUrl: stored.actorUrl };
        }
        if (leavingHere) {
          await tx.user.update({
            where: { id: localUser!.id },
            data: { movedTo: m.to, movedAt: at },
          });
          // The old home relays the statement to the nodes of its remote followers.
          const domains = await followerDomains(tx, {
            followeeKey: fromKey,
            exclude: [self, to.value.domain, source.value],
          });
          for (const targetDomain of domains) {
            await delivery.enqueue(tx, {
              targetDomain,
              kind: 'move',
              body: rawBody as Record<string, unknown>,
              interactionId: m.interactionId,
              createdById: null,
            });
          }
        } else {
          await tx.remoteActor.update({ where: { id: actorId! }, data: { movedTo: m.to } });
        }
        // Local followers follow the new address instead: unfollow there, follow here.
        const followers = await tx.follow.findMany({
          where: { followeeKey: fromKey, followerUserId: { not: null } },
          select: {
            followerKey: true,
            followeeKey: true,
            followerUser: {
              select: { id: true, handle: true, displayName: true, avatarUrl: true, bio: true },
            },
          },
        });
        for (const follow of followers) {
          const user = follow.followerUser!;
          await removeFollow(tx, {
            followerKey: follow.followerKey,
            followeeKey: follow.followeeKey,
          });
          const interactionId = randomUUID();
          const added = await addFollow(tx, {
            follower: {
              kind: 'local',
              userId: user.id,
              handle: user.handle,
              displayName: user.displayName,
              avatarUrl: user.avatarUrl,
            },
            followee: target,
            state: target.kind === 'local' ? 'accepted' : 'pending',
            interactionId,
            at,
          });
          const timestamp = formatTimestamp(at);
          if (added && target.kind === 'remote') {
            await delivery.enqueue(tx, {
              targetDomain: to.value.domain,
              kind: 'follow',
              interactionId,
              createdById: user.id,
              body: {
                targetHandle: to.value.handle,
                follow: {
                  followerHandle: user.handle,
                  followerDisplayName: user.displayName,
                  ...(user.avatarUrl ? { followerAvatarUrl: user.avatarUrl } : {}),
                  followerBio: user.bio,
                  followerNodeDomain: self,
                  interactionId,
                  timestamp,
                },
              },
            });
          }
          if (!leavingHere) {
            const unfollowId = randomUUID();
            await delivery.enqueue(tx, {
              targetDomain: from.value.domain,
              kind: 'unfollow',
              interactionId: unfollowId,
              createdById: user.id,
              body: {
                targetHandle: from.value.handle,
                unfollow: {
                  followerHandle: user.handle,
                  followerNodeDomain: self,
                  interactionId: unfollowId,
                  timestamp,
                },
              },
            });
          }
        }
      });
      if (!done.ok) return done;
      logger.info({ from: m.from, to: m.to }, 'move received');
      return ok({ message: OWNERSHIP_MESSAGES.move });
    },
  };
}

/** The statement's `delegation` member as received (undefined: signed by the user's own key). */
function delegationOf(rawBody: unknown): unknown {
  if (typeof rawBody !== 'object' || rawBody === null || Array.isArray(rawBody)) return undefined;
  return (rawBody as Record<string, unknown>).delegation;
}
