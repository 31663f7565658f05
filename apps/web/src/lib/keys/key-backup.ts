import {
  base64urlDecode,
  base64urlEncode,
  canonicalJson,
  err,
  ok,
  randomBytes,
  utf8Decode,
  utf8Encode,
  type Result,
} from '@swarm/contract';
import { z } from 'zod';

/**
 * The password-encrypted backup of a user's private keys (docs/security.md). The browser makes it
 * and the node only stores it, so the node never holds a key in clear. Everything needed to
 * decrypt it except the password is recorded in it, so the parameters can change later without
 * breaking old backups.
 *
 * Version 1 encrypts the bare PKCS#8 of the signing key. Version 2 (direct messages) encrypts the
 * canonical JSON `{ "signing": <base64url PKCS#8>, "encryption": <base64url PKCS#8> }`, adding the
 * ECDH encryption key. Both decrypt; a backup is re-encrypted in the version it has.
 */

/** OWASP 2023 figure for PBKDF2-HMAC-SHA256. */
export const PBKDF2_ITERATIONS = 600_000;
const SALT_BYTES = 16;
const IV_BYTES = 12; // AES-GCM's standard nonce size
// Decrypting runs whatever iteration count the stored JSON says: a cap keeps a corrupt or
// hostile backup from freezing the tab.
const MAX_ITERATIONS = 10_000_000;

const base64url = z.string().regex(/^[A-Za-z0-9_-]+$/);

export type KeyBackupVersion = 1 | 2;

const keyBackupSchema = z.object({
  version: z.union([z.literal(1), z.literal(2)]),
  /** Whose key this is; also bound into the ciphertext as AES-GCM additional data. */
  did: z.string().startsWith('did:key:'),
  kdf: z.object({
    name: z.literal('PBKDF2'),
    hash: z.literal('SHA-256'),
    iterations: z.number().int().min(1).max(MAX_ITERATIONS),
    salt: base64url,
  }),
  cipher: z.object({ name: z.literal('AES-GCM'), iv: base64url }),
  /** The PKCS#8 private key (v1) or the keys' JSON (v2), encrypted (16-byte GCM tag at the end). */
  ciphertext: base64url,
});

export type KeyBackup = z.infer<typeof keyBackupSchema>;

function buffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer
    ? (bytes as Uint8Array<ArrayBuffer>)
    : new Uint8Array(bytes);
}

/**
 * Binds the ciphertext to the backup's format and owner: editing `did` or `version` breaks
 * decryption (so a v2 backup cannot be passed off as a v1 one, or the reverse).
 */
function additionalData(version: KeyBackupVersion, did: string): Uint8Array<ArrayBuffer> {
  return buffer(utf8Encode(`swarm-key-backup:v${version}:${did}`));
}

const v2PayloadSchema = z.object({ signing: base64url, encryption: base64url });

function encodePayload(pkcs8: Uint8Array, encryptionPkcs8: Uint8Array | null): Uint8Array {
  if (!encryptionPkcs8) return pkcs8;
  return utf8Encode(
    canonicalJson({
      signing: base64urlEncode(pkcs8),
      encryption: base64urlEncode(encryptionPkcs8),
    }),
  );
}

function decodePayload(
  version: KeyBackupVersion,
  plain: Uint8Array,
): Result<{ pkcs8: Uint8Array; encryptionPkcs8: Uint8Array | null }> {
  if (version === 1) return ok({ pkcs8: plain, encryptionPkcs8: null });
  try {
    const parsed = v2PayloadSchema.safeParse(JSON.parse(utf8Decode(plain)));
    if (!parsed.success) throw new Error('shape');
    return ok({
      pkcs8: base64urlDecode(parsed.data.signing),
      encryptionPkcs8: base64urlDecode(parsed.data.encryption),
    });
  } catch {
    return err('Your key backup is damaged (its keys are not in the expected form).');
  } finally {
    plain.fill(0);
  }
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

/**
 * Encrypts the PKCS#8 signing key (and, when given, the PKCS#8 encryption key: version 2) under
 * `password`; returns the backup as JSON text.
 */
export async function encryptKeyBackup(input: {
  pkcs8: Uint8Array;
  encryptionPkcs8?: Uint8Array | null;
  did: string;
  password: string;
  /** Only tests lower this; real backups use the default. */
  iterations?: number;
}): Promise<string> {
  const iterations = input.iterations ?? PBKDF2_ITERATIONS;
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const version: KeyBackupVersion = input.encryptionPkcs8 ? 2 : 1;
  const key = await deriveKey(input.password, salt, iterations, 'encrypt');
  const plain = encodePayload(input.pkcs8, input.encryptionPkcs8 ?? null);
  let ciphertext: ArrayBuffer;
  try {
    ciphertext = await globalThis.crypto.subtle.encrypt(
      { name: 'AES-GCM', iv: buffer(iv), additionalData: additionalData(version, input.did) },
      key,
      buffer(plain),
    );
  } finally {
    if (plain !== input.pkcs8) plain.fill(0);
  }
  const backup: KeyBackup = {
    version,
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

export interface DecryptedKeyBackup {
  version: KeyBackupVersion;
  did: string;
  /** PKCS#8 of the signing key. */
  pkcs8: Uint8Array;
  /** PKCS#8 of the encryption key; null in a version 1 backup. */
  encryptionPkcs8: Uint8Array | null;
}

/** The PKCS#8 bytes, or a sentence saying why not (wrong password and tampering look the same). */
export async function decryptKeyBackup(
  text: string,
  password: string,
): Promise<Result<DecryptedKeyBackup>> {
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
  let plain: Uint8Array;
  try {
    const key = await deriveKey(password, salt, backup.kdf.iterations, 'decrypt');
    plain = new Uint8Array(
      await globalThis.crypto.subtle.decrypt(
        {
          name: 'AES-GCM',
          iv: buffer(iv),
          additionalData: additionalData(backup.version, backup.did),
        },
        key,
        buffer(ciphertext),
      ),
    );
  } catch {
    return err(WRONG_PASSWORD_OR_TAMPERED);
  }
  const keys = decodePayload(backup.version, plain);
  if (!keys.ok) return keys;
  return ok({ version: backup.version, did: backup.did, ...keys.value });
}
