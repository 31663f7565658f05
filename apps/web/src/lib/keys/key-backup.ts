import {
  base64urlDecode,
  base64urlEncode,
  err,
  ok,
  randomBytes,
  utf8Encode,
  type Result,
} from '@swarm/contract';
import { z } from 'zod';

/**
 * The password-encrypted backup of a user's private key (docs/security.md). The browser makes it
 * and the node only stores it, so the node never holds the key in clear. Everything needed to
 * decrypt it except the password is recorded in it, so the parameters can change later without
 * breaking old backups.
 */

/** OWASP 2023 figure for PBKDF2-HMAC-SHA256. */
export const PBKDF2_ITERATIONS = 600_000;
const SALT_BYTES = 16;
const IV_BYTES = 12; // AES-GCM's standard nonce size
// Decrypting runs whatever iteration count the stored JSON says: a cap keeps a corrupt or
// hostile backup from freezing the tab.
const MAX_ITERATIONS = 10_000_000;

const base64url = z.string().regex(/^[A-Za-z0-9_-]+$/);

const keyBackupSchema = z.object({
  version: z.literal(1),
  /** Whose key this is; also bound into the ciphertext as AES-GCM additional data. */
  did: z.string().startsWith('did:key:'),
  kdf: z.object({
    name: z.literal('PBKDF2'),
    hash: z.literal('SHA-256'),
    iterations: z.number().int().min(1).max(MAX_ITERATIONS),
    salt: base64url,
  }),
  cipher: z.object({ name: z.literal('AES-GCM'), iv: base64url }),
  /** The PKCS#8 private key, encrypted (the 16-byte GCM tag at the end). */
  ciphertext: base64url,
});

export type KeyBackup = z.infer<typeof keyBackupSchema>;

function buffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer
    ? (bytes as Uint8Array<ArrayBuffer>)
    : new Uint8Array(bytes);
}

/** Binds the ciphertext to the backup's format and owner: editing `did` breaks decryption. */
function additionalData(did: string): Uint8Array<ArrayBuffer> {
  return buffer(utf8Encode(`swarm-key-backup:v1:${did}`));
}

async function deriveKey(
  password: string,
  salt: Uint8Array,
  iterations: number,
  usage: KeyUsage,
): Promise<CryptoKey> {
  const subtle = globalThis.crypto.subtle;
  const material = await subtle.importKey('raw', buffer(utf8Encode(password)), 'PBKDF2', false, [
    'deriveKey',
  ]);
  return subtle.deriveKey(
    { name: 'PBKDF2', hash: 'SHA-256', salt: buffer(salt), iterations },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    [usage],
  );
}

/** Encrypts a PKCS#8 private key under `password`; returns the backup as JSON text. */
export async function encryptKeyBackup(input: {
  pkcs8: Uint8Array;
  did: string;
  password: string;
  /** Only tests lower this; real backups use the default. */
  iterations?: number;
}): Promise<string> {
  const iterations = input.iterations ?? PBKDF2_ITERATIONS;
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const key = await deriveKey(input.password, salt, iterations, 'encrypt');
  const ciphertext = await globalThis.crypto.subtle.encrypt(
    { name: 'AES-GCM', iv: buffer(iv), additionalData: additionalData(input.did) },
    key,
    buffer(input.pkcs8),
  );
  const backup: KeyBackup = {
    version: 1,
    did: input.did,
    kdf: { name: 'PBKDF2', hash: 'SHA-256', iterations, salt: base64urlEncode(salt) },
    cipher: { name: 'AES-GCM', iv: base64urlEncode(iv) },
    ciphertext: base64urlEncode(new Uint8Array(ciphertext)),
  };
  return JSON.stringify(backup);
}

export function parseKeyBackup(text: string): Result<KeyBackup> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return err('Your key backup is damaged (it is not JSON).');
  }
  const parsed = keyBackupSchema.safeParse(json);
  if (!parsed.success)
    return err('Your key backup is damaged or in a format this app does not know.');
  return ok(parsed.data);
}

export const WRONG_PASSWORD_OR_TAMPERED =
  'Your key backup could not be decrypted: the password does not match it, or the backup was altered.';

/** The PKCS#8 bytes, or a sentence saying why not (wrong password and tampering look the same). */
export async function decryptKeyBackup(
  text: string,
  password: string,
): Promise<Result<{ pkcs8: Uint8Array; did: string }>> {
  const parsed = parseKeyBackup(text);
  if (!parsed.ok) return parsed;
  const backup = parsed.value;
  let salt: Uint8Array;
  let iv: Uint8Array;
  let ciphertext: Uint8Array;
  try {
    salt = base64urlDecode(backup.kdf.salt);
    iv = base64urlDecode(backup.cipher.iv);
    ciphertext = base64urlDecode(backup.ciphertext);
  } catch {
    return err('Your key backup is damaged (bad base64url).');
  }
  try {
    const key = await deriveKey(password, salt, backup.kdf.iterations, 'decrypt');
    const plain = await globalThis.crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: buffer(iv), additionalData: additionalData(backup.did) },
      key,
      buffer(ciphertext),
    );
    return ok({ pkcs8: new Uint8Array(plain), did: backup.did });
  } catch {
    return err(WRONG_PASSWORD_OR_TAMPERED);
  }
}
