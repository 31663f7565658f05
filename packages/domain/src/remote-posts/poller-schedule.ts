import type { Prisma } from '@swarm/db';
import { POLL_POLICY } from './poller-policy.ts';

type Tx = Prisma.TransactionClient;

// The poller's rows follow the follow graph: a follow of a remote person by someone here makes
// one (due at once: the backfill), the last such follow going drops it. The follow and unfollow
// actions call these in their transaction; the poller's reconcile catches every other way a
// follow comes or goes (account deletion, moves, imports) and fills in an upgraded node.

/** A local user now follows this remote person: poll them, the first time right away. */
export async function schedulePoll(tx: Tx, remoteActorId: string, now: Date): Promise<void> {
  // createMany with skipDuplicates: two people following at once must not fail on the key.
  await tx.remoteAuthorPoll.createMany({
    data: [{ remoteActorId, nextPollAt: now, intervalMs: POLL_POLICY.initialMs }],
    skipDuplicates: true,
  });
}

/** A local follow of `handle@domain` went: stop polling them if it was the last one. */
export async function dropPollIfUnfollowed(
  tx: Tx,
  person: { handle: string; domain: string },
): Promise<void> {
  const actor = await tx.remoteActor.findUnique({
    where: { nodeDomain_handle: { nodeDomain: person.domain, handle: person.handle } },
    select: { id: true },
  });
  if (!actor) return;
  const stillFollowed = await tx.follow.findFirst({
    where: { followeeRemoteActorId: actor.id, followerUserId: { not: null } },
    select: { id: true },
  });
  if (!stillFollowed) await tx.remoteAuthorPoll.deleteMany({ where: { remoteActorId: actor.id } });
}
