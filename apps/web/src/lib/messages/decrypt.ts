import { signReceipt, type ReceiptStatus } from '@swarm/contract';
import { trpc } from '$lib/trpc';
import type { MessagingKeys } from './my-keys.ts';

/** Envelopes come as stored: an object, or the JSON text of one. */
export function envelopeObject(envelope: unknown): Record<string, unknown> | null {
  let value = envelope;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

/** Signs and sends a receipt for a message the signed-in user received. */
export async function sendReceipt(
  keys: MessagingKeys,
  message: { id: string; sender: string },
  status: ReceiptStatus,
): Promise<void> {
  const receipt = await signReceipt({
    signingKey: keys.signing,
    messageId: message.id,
    status,
    sender: message.sender,
    recipient: keys.address,
    recipientDid: keys.did,
  });
  await trpc.messages.receipt.mutate({ receipt });
}
