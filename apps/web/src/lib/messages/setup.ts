import { err, ok, signEncryptionKey, type Result } from '@swarm/contract';
import { addEncryptionKey, idbKeyStore, type EncryptionKeyPair } from '$lib/keys';
import { trpc } from '$lib/trpc';

/**
 * Publishing the encryption key (browser only): the binding to the did is signed here with the
 * signing key, the node checks it and stores it with the backup that holds the private half.
 */
export async function publishEncryptionKey(input: {
  address: string;
  did: string;
  signing: CryptoKey;
  encryption: EncryptionKeyPair;
  encryptedBackup: string;
}): Promise<void> {
  const createdAt = new Date().toISOString();
  const signature = await signEncryptionKey({
    signingKey: input.signing,
    address: input.address,
    did: input.did,
    publicKey: input.encryption.publicKey,
    createdAt,
  });
  await trpc.messages.setEncryptionKey.mutate({
    publicKey: input.encryption.publicKey,
    createdAt,
    signature,
    encryptedKeyBackup: input.encryptedBackup,
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error && error.message ? error.message : 'The node did not answer.';
}

/**
 * First use of messages on an account made before them: the password opens the backup, a new
 * encryption key joins it, the node publishes the key and stores the new backup, and this
 * browser keeps both keys.
 */
export async function setUpMessaging(input: {
  handle: string;
  address: string;
  did: string;
  password: string;
}): Promise<Result<void>> {
  if (!globalThis.crypto?.subtle) {
    return err('This page is not on a secure (https) address, so the browser offers no WebCrypto.');
  }
  let backup: { did: string; encryptedBackup: string } | null;
  try {
    backup = await trpc.auth.keyBackup.query();
  } catch (error) {
    return err(messageOf(error));
  }
  if (!backup) return err('The node has no backup of your key.');
  const added = await addEncryptionKey({
    encryptedBackup: backup.encryptedBackup,
    password: input.password,
    expectedDid: input.did,
  });
  if (!added.ok) return added;
  try {
    await publishEncryptionKey({
      address: input.address,
      did: input.did,
      signing: added.value.signing,
      encryption: added.value.encryption,
      encryptedBackup: added.value.encryptedBackup,
    });
  } catch (error) {
    return err(`Your node did not take your encryption key: ${messageOf(error)}`);
  }
  try {
    await idbKeyStore.set(input.handle, {
      did: input.did,
      privateKey: added.value.signing,
      encryption: added.value.encryption,
    });
  } catch {
    return err('This browser would not store your key (is it in private browsing mode?).');
  }
  return ok(undefined);
}
