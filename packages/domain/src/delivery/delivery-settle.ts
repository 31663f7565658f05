import type { Tx } from '../interactions/interaction-effects.ts';
import { removeFollow } from '../interactions/interaction-effects.ts';
import { messageFailureReason } from './delivery-policy.ts';

/** How one attempt ended. */
export type SendOutcome =
  | { status: 'delivered'; httpStatus: number }
  | { status: 'pending'; httpStatus: number | null; error: string; nextAttemptAt: Date }
  | { status: 'failed'; httpStatus: number | null; error: string };

/**
 * What a final outcome means locally. A follow of a remote user is `pending` until its node
 * accepted it (2xx); a follow the node refused or that never arrived is undone.
 */
export async function settle(
  tx: Tx,
  row: { id: string; kind: string; interactionId: string | null },
  outcome: Exclude<SendOutcome, { status: 'pending' }>,
): Promise<void> {
  const { status } = outcome;
  if (row.kind === 'report' && row.interactionId) {
    // A forwarded report (moderation/report-filing.ts): its row says whether it arrived.
    await tx.report.updateMany({
      where: { id: row.interactionId, forwardState: { in: ['pending', 'failed'] } },
      data: { forwardState: status === 'delivered' ? 'sent' : 'failed' },
    });
    return;
  }
  if (row.kind === 'message') {
    // Only forward: a receipt may have arrived first (then the row is delivered or read). A
    // failed row that an admin retried successfully becomes sent.
    if (status === 'delivered') {
      await tx.message.updateMany({
        where: { outboxDeliveryId: row.id, status: { in: ['sending', 'failed'] } },
        data: { status: 'sent', failureReason: null },
      });
    } else {
      // A failed message retried (Retry now) that fails again takes the new reason.
      await tx.message.updateMany({
        where: { outboxDeliveryId: row.id, status: { in: ['sending', 'failed'] } },
        data: {
          status: 'failed',
          failureReason: messageFailureReason(outcome.httpStatus, outcome.error),
        },
      });
    }
    return;
  }
  if (row.kind !== 'follow' || !row.interactionId) return;
  if (status === 'delivered') {
    await tx.follow.updateMany({
      where: { interactionId: row.interactionId, state: 'pending' },
      data: { state: 'accepted' },
    });
    return;
  }
  const follows = await tx.follow.findMany({
    where: { interactionId: row.interactionId, state: 'pending', followerUserId: { not: null } },
    select: { followerKey: true, followeeKey: true },
  });
  for (const follow of follows) await removeFollow(tx, follow);
}
