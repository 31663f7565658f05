import { formatTimestamp } from '@swarm/contract';
import type { DeliveryService } from '../delivery/index.ts';
import { parseCapabilities } from '../registry/capabilities.ts';
import type { Tx } from '../refusal.ts';
import { wireUrlMember, type ActingUser } from './action-support.ts';

/**
 * A new post goes once to each node that hosts an accepted follower of its author
 * (docs/protocol.md "Post delivery", "Sending"; docs/decisions.md "Pushing posts"): one outbox
 * row per node, written in the post's own transaction, whatever the number of followers there.
 * Only nodes this node's registry knows to take pushes are sent one: capability `posts`, our
 * profile. Origin-profile nodes answer 410 to pushes and read timelines instead; a node whose
 * capabilities were never read is not asked while someone posts (no request to another node in
 * the post's transaction) and reads the post by its usual polls.
 */

/** At most this many nodes are pushed one post; the others read it by polling. */
export const POST_PUSH_MAX_NODES = 100;

/**
 * Follower nodes looked at per post, most followers first: a bound on the work of one post
 * whatever an author's follower count (nodes past it poll, as above).
 */
export const POST_PUSH_SCAN_NODES = 1_000;

/** The nodes a post of `authorId` is pushed to: most followers there first, then by name. */
export async function pushTargetsOf(
  tx: Tx,
  authorId: string,
  self: string,
  /** An app wrote it: only nodes that take delegations (the others would refuse its signature). */
  delegated = false,
): Promise<string[]> {
  const groups = await tx.remoteActor.groupBy({
    by: ['nodeDomain'],
    where: {
      nodeDomain: { not: self },
      following: { some: { followeeUserId: authorId, state: 'accepted' } },
    },
    _count: { nodeDomain: true },
    orderBy: [{ _count: { nodeDomain: 'desc' } }, { nodeDomain: 'asc' }],
    take: POST_PUSH_SCAN_NODES,
  });
  const domains = groups.map((g) => g.nodeDomain);
  if (domains.length === 0) return [];
  const nodes = await tx.swarmNode.findMany({
    where: { domain: { in: domains } },
    select: { domain: true, capabilities: true, protocolProfile: true },
  });
  const takes = new Set(
    nodes
      .filter(
        (n) =>
          n.protocolProfile !== 'origin' &&
          parseCapabilities(n.capabilities).includes('posts') &&
          (!delegated || parseCapabilities(n.capabilities).includes('delegations')),
      )
      .map((n) => n.domain),
  );
  return domains.filter((d) => takes.has(d)).slice(0, POST_PUSH_MAX_NODES);
}

/** The body of `POST /api/swarm/inbox` in our dialect (`postPushSchema`), the same for all. */
export function postPushBody(input: {
  post: Record<string, unknown>;
  author: Pick<ActingUser, 'handle' | 'displayName' | 'avatarUrl' | 'did'> & { isNsfw: boolean };
  self: string;
  at: Date;
  postSignature: string | null;
  /** The author's delegation to the app key that made `postSignature`, when an app posted. */
  postDelegation?: Record<string, unknown> | null;
  counts?: { likesCount: number; repostsCount: number; repliesCount: number };
}): Record<string, unknown> {
  const { author } = input;
  return {
    post: input.post,
    author: {
      handle: author.handle,
      ...(author.displayName ? { displayName: author.displayName.slice(0, 100) } : {}),
      ...wireUrlMember('avatarUrl', author.avatarUrl),
      isNsfw: author.isNsfw,
      ...(author.did ? { did: author.did } : {}),
    },
    ...(input.counts ? { counts: input.counts } : {}),
    nodeDomain: input.self,
    timestamp: formatTimestamp(input.at),
    ...(input.postSignature ? { postSignature: input.postSignature } : {}),
    ...(input.postSignature && input.postDelegation
      ? { postDelegation: input.postDelegation }
      : {}),
  };
}

/** Queues the push of a post to every target, inside the post's transaction: the targets. */
export async function queuePostPushes(
  tx: Tx,
  delivery: Pick<DeliveryService, 'enqueue'>,
  input: {
    authorId: string;
    postId: string;
    self: string;
    body: Record<string, unknown>;
    delegated?: boolean;
  },
): Promise<string[]> {
  const targets = await pushTargetsOf(tx, input.authorId, input.self, input.delegated);
  for (const targetDomain of targets) {
    await delivery.enqueue(tx, {
      targetDomain,
      kind: 'post',
      createdById: input.authorId,
      interactionId: input.postId,
      body: input.body,
    });
  }
  return targets;
}
