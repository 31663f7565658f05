import type { EncryptionKey } from '@swarm/contract';
import { storedKeys, type EncryptionKeyPair } from '$lib/keys';

/** What `messages.me` says about the signed-in account. */
export interface MessagingMe {
  address: string;
  did: string | null;
  encryptionKey: EncryptionKey | null;
}

export interface MessagingKeys {
  address: string;
  did: string;
  signing: CryptoKey;
  encryption: EncryptionKeyPair;
}

/**
 * Can this browser send and read messages now? `setup`: the account has no encryption key yet
 * (made before messages existed); `restore`: it has one, but this browser does not hold it (or
 * holds another), so the backup must be opened again with the password.
 */
export type MessagingState =
  | { kind: 'checking' }
  | { kind: 'ready'; keys: MessagingKeys }
  | { kind: 'no-signing-key' }
  | { kind: 'setup' }
  | { kind: 'restore' };

export async function messagingState(handle: string, me: MessagingMe): Promise<MessagingState> {
  if (!me.did) return { kind: 'no-signing-key' };
  if (!me.encryptionKey) return { kind: 'setup' };
  const stored = await storedKeys(handle, me.did);
  if (!stored?.encryption || stored.encryption.publicKey !== me.encryptionKey.publicKey) {
    return { kind: 'restore' };
  }
  return {
    kind: 'ready',
    keys: {
      address: me.address,
      did: me.did,
      signing: stored.privateKey,
      encryption: stored.encryption,
    },
  };
}
