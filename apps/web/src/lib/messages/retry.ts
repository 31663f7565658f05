import { TRPCClientError } from '@trpc/client';
import { err, ok, type Result } from '@swarm/contract';
import { trpc } from '$lib/trpc';

/**
 * "Retry now" on one of my messages waiting in the outbox: the same `deliveries.retry` as the
 * deliveries page, for the outbox row of that message.
 */

function messageOf(error: unknown): string {
  return error instanceof Error && error.message ? error.message : 'The node did not answer.';
}

/** Sends the message's outbox row now; the thread shows the outcome on its next refresh. */
export async function retryMessageNow(delivery: { id: string } | undefined): Promise<Result<void>> {
  if (!delivery) return err('This message is no longer waiting in the outbox.');
  try {
    await trpc.deliveries.retry.mutate({ id: delivery.id });
    return ok(undefined);
  } catch (error) {
    return err(messageOf(error));
  }
}

/** Did the node refuse (an answer with an error code), or not answer at all (worth resending)? */
export function nodeRefused(error: unknown): boolean {
  return error instanceof TRPCClientError && typeof error.data?.code === 'string';
}
