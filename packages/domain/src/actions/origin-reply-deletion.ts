import { parseSwarmPostId } from '@swarm/contract';
import type { DeliveryService } from '../delivery/index.ts';
import type { Tx } from '../refusal.ts';

/**
 * A deleted reply to a post of an origin-profile peer: that peer keeps a copy of it, which its
 * own unsigned `DELETE /api/swarm/replies` removes (docs/origin-profile.md §4). Queued in the
 * deletion's transaction; the id of the outbox row, or null when the parent is not such a post.
 * Peers of our profile learn of deletions through the signed `deletions` capability instead.
 */
export async function queueOriginReplyDeletion(
  tx: Tx,
  deps: { delivery: Pick<DeliveryService, 'enqueue'>; self: string },
  reply: { id: string; replyToId: string; authorId: string },
): Promise<string | null> {
  const parent = await tx.post.findUnique({
    where: { id: reply.replyToId },
    select: { apId: true },
  });
  const address = parent?.apId ? parseSwarmPostId(parent.apId) : null;
  if (!address?.ok) return null;
  const domain = address.value.domain;
  const node = await tx.swarmNode.findUnique({
    where: { domain },
    select: { protocolProfile: true },
  });
  if (node?.protocolProfile !== 'origin') return null;
  const author = await tx.user.findUniqueOrThrow({
    where: { id: reply.authorId },
    select: { handle: true },
  });
  return deps.delivery.enqueue(tx, {
    targetDomain: domain,
    kind: 'delete-reply',
    body: { replyId: reply.id, nodeDomain: deps.self, authorHandle: author.handle },
    createdById: reply.authorId,
  });
}
