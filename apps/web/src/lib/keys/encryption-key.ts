import {
  base64urlEncode,
  exportEncryptionPublicKey,
  generateEncryptionKeyPair,
  importEncryptionPrivateKey,
} from '@swarm/contract';

/**
 * The user's ECDH P-256 encryption key for direct messages, next to the signing key. The private
 * half is kept non-extractable; the browser holds its PKCS#8 only for as long as it takes to put
 * it into the password-encrypted backup.
 */

export interface EncryptionKeyPair {
  /** Non-extractable ECDH private key. */
  privateKey: CryptoKey;
  /** base64url of the 65-byte uncompressed public point (the wire form). */
  publicKey: string;
}

async function importPkcs8(pkcs8: Uint8Array, extractable: boolean): Promise<CryptoKey> {
  const imported = await importEncryptionPrivateKey(base64urlEncode(pkcs8), extractable);
  if (!imported.ok) throw new TypeError(imported.reason);
  return imported.value;
}

/**
 * A new key pair: the non-extractable private key, its public key, and the PKCS#8 for the backup
 * (the caller zeroes it once the backup is made).
 */
export async function generateEncryptionKey(): Promise<EncryptionKeyPair & { pkcs8: Uint8Array }> {
  const pair = await generateEncryptionKeyPair(true);
  const pkcs8 = new Uint8Array(await globalThis.crypto.subtle.exportKey('pkcs8', pair.privateKey));
  return {
    privateKey: await importPkcs8(pkcs8, false),
    publicKey: await exportEncryptionPublicKey(pair.publicKey),
    pkcs8,
  };
}

/** The key pair held in a backup's PKCS#8 (throws when it is not an ECDH P-256 key). */
export async function encryptionKeyFromPkcs8(pkcs8: Uint8Array): Promise<EncryptionKeyPair> {
  // WebCrypto has no "public key of this private key": go through the JWK, without `d`.
  const subtle = globalThis.crypto.subtle;
  const { kty, crv, x, y } = await subtle.exportKey('jwk', await importPkcs8(pkcs8, true));
  const publicKey = await subtle.importKey(
    'jwk',
    { kty, crv, x, y, ext: true },
    { name: 'ECDH', namedCurve: 'P-256' },
    true,
    [],
  );
  return {
    privateKey: await importPkcs8(pkcs8, false),
    publicKey: await exportEncryptionPublicKey(publicKey),
  };
}
