import { openMessage } from '@swarm/contract';
import type { ContactPinStore } from './contact-pins.ts';

/**
 * Opening a message shown in a conversation. `openMessage` checks the signature under the
 * envelope's own `senderDid`, which any node can fill in: a recipient's node could store a
 * message "from alice" signed by a key it made. So the envelope's parties are checked here
 * first against who they must be: an incoming message is from the conversation partner under
 * the did this browser pinned for them, an outgoing one from me under my did.
 */

export const UNVERIFIED_SENDER = 'could not verify the sender';

export type Opened =
  | { ok: true; text: string }
  /** `sender`: not written by whom it claims (its text is not shown); `decrypt`: unreadable. */
  | { ok: false; problem: 'sender' | 'decrypt'; reason: string };

/** The signed-in reader: address, did and encryption key pair. */
export interface Reader {
  address: string;
  did: string;
  encryption: { privateKey: CryptoKey; publicKey: string };
}

/**
 * The did this browser trusts for a conversation partner: the pinned one (see
 * contact-pins.ts), else the one their node reports now, pinned then (trust on first use).
 * Null when there is neither.
 */
export async function partnerDid(
  pins: ContactPinStore,
  address: string,
  reportedDid: string | null | undefined,
  now: Date = new Date(),
): Promise<string | null> {
  const pinned = await pins.get(address);
  if (pinned) return pinned.did;
  if (!reportedDid) return null;
  await pins.set(address, { did: reportedDid, pinnedAt: now.toISOString() });
  return reportedDid;
}

// Handles on other nodes keep their spelling, but an address names one person whatever the case
// (the pins are keyed in lower case too).
function sameAddress(value: unknown, address: string): boolean {
  return typeof value === 'string' && value.toLowerCase() === address.toLowerCase();
}

/** `in` when the envelope names someone else as its sender (a conversation's last message). */
export function directionOf(envelope: Record<string, unknown>, reader: string): 'in' | 'out' {
  return sameAddress(envelope.sender, reader) ? 'out' : 'in';
}

/**
 * Verifies who wrote a message in my conversation with `partner`, then decrypts it. `partnerDid`
 * null (no pin and none reported) verifies no incoming message.
 */
export async function openInConversation(input: {
  reader: Reader;
  envelope: Record<string, unknown> | null;
  direction: 'in' | 'out';
  partner: string;
  partnerDid: string | null;
}): Promise<Opened> {
  const { reader, envelope, partner } = input;
  const unverified = { ok: false, problem: 'sender', reason: UNVERIFIED_SENDER } as const;
  const [from, fromDid, to] =
    input.direction === 'out'
      ? [reader.address, reader.did, partner]
      : [partner, input.partnerDid, reader.address];
  if (!envelope) return { ok: false, problem: 'decrypt', reason: 'not a valid message envelope' };
  if (
    !fromDid ||
    !sameAddress(envelope.sender, from) ||
    envelope.senderDid !== fromDid ||
    !sameAddress(envelope.recipient, to)
  ) {
    return unverified;
  }
  // The signature is checked under `senderDid`, which is now the expected did.
  const opened = await openMessage({
    envelope,
    reader: reader.address,
    privateKey: reader.encryption.privateKey,
    publicKey: reader.encryption.publicKey,
  });
  if (opened.ok) return { ok: true, text: opened.value.text };
  if (opened.reason === 'the sender signature does not verify') return unverified;
  return { ok: false, problem: 'decrypt', reason: opened.reason };
}
