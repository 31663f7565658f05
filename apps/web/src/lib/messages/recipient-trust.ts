import { verifyEncryptionKey, type EncryptionKey } from '@swarm/contract';
import type { ContactPinStore } from './contact-pins.ts';

/** What `messages.recipient` says about someone (the parts the browser checks). */
export interface RecipientInfo {
  address: string;
  did: string | null;
  encryptionKey: EncryptionKey | null;
}

export type RecipientTrust =
  | { ok: true; did: string; publicKey: string; firstContact: boolean }
  | { ok: false; problem: 'no-key'; message: string }
  | { ok: false; problem: 'binding'; message: string }
  | { ok: false; problem: 'did-changed'; message: string; previousDid: string; did: string };

/**
 * Decides, in the sender's browser, whether a recipient's encryption key can be used: it must
 * be signed by the key inside their did (so their node cannot swap it unnoticed), and the did
 * must be the one this browser saw before for the address (trust on first use: the first one
 * seen is pinned here).
 */
export async function checkRecipient(
  pins: ContactPinStore,
  recipient: RecipientInfo,
  now: Date = new Date(),
): Promise<RecipientTrust> {
  const { address, did, encryptionKey } = recipient;
  if (!did || !encryptionKey) {
    return {
      ok: false,
      problem: 'no-key',
      message: `${address} has not set up direct messages yet, so nothing can be encrypted for them.`,
    };
  }
  if (!(await verifyEncryptionKey({ address, did, encryptionKey }))) {
    return {
      ok: false,
      problem: 'binding',
      message: `The encryption key served for ${address} is not signed by their own key. Their node may have replaced it, so sending is disabled.`,
    };
  }
  const pinned = await pins.get(address);
  if (pinned && pinned.did !== did) {
    return {
      ok: false,
      problem: 'did-changed',
      message: `The key of ${address} changed since you last wrote to them. This happens when they made a new account key, or when a node is trying to read your messages. Check with them another way before trusting the new key.`,
      previousDid: pinned.did,
      did,
    };
  }
  if (!pinned) await pins.set(address, { did, pinnedAt: now.toISOString() });
  return { ok: true, did, publicKey: encryptionKey.publicKey, firstContact: !pinned };
}

/** After the person chose to trust a changed key: pins the new did. */
export async function trustNewDid(
  pins: ContactPinStore,
  address: string,
  did: string,
  now: Date = new Date(),
): Promise<void> {
  await pins.set(address, { did, pinnedAt: now.toISOString() });
}
