import { p256 } from '@noble/curves/nist.js';
import {
  base58btcDecode,
  base58btcEncode,
  base64Decode,
  base64Encode,
  base64urlDecode,
  base64urlEncode,
  toBytes,
} from './encoding.ts';
import type { Result } from './result.ts';
import { err, ok } from './result.ts';

/**
 * ECDSA P-256 / SHA-256 over WebCrypto (`globalThis.crypto.subtle`), so the browser (user keys)
 * and Node (node keys) run the same code. Signatures are IEEE-P1363 (r‖s, 64 bytes) in base64url
 * without padding. Parsers of untrusted key material return a Result; verification never throws.
 */

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGN_PARAMS = { name: 'ECDSA', hash: 'SHA-256' } as const;

function subtle(): SubtleCrypto {
  return globalThis.crypto.subtle;
}

/** The two calls of `node:crypto` used here (typed locally: this package also runs in browsers). */
interface NodeCrypto {
  verify(
    algorithm: 'sha256',
    data: Uint8Array,
    key: { key: CryptoKey; dsaEncoding: 'ieee-p1363' },
    signature: Uint8Array,
  ): boolean;
  createHash(algorithm: 'sha256'): { update(data: Uint8Array): { digest(): Uint8Array } };
}

/**
 * `node:crypto` on Node, undefined in browsers. A node verifies two signatures and hashes a body
 * per signed request: WebCrypto runs each as a thread-pool job, whose hand-off cost the ingest
 * benchmark more main-thread time (~0.23 ms a verify) than verifying synchronously (~0.1 ms).
 * Same keys (Node's `verify` takes a WebCrypto `CryptoKey`), same answers.
 */
const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;

/** WebCrypto wants ArrayBuffer-backed views; copy only when given something else. */
function buffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer
    ? (bytes as Uint8Array<ArrayBuffer>)
    : new Uint8Array(bytes);
}

/**
 * A new P-256 signing key pair. The private key is non-extractable unless asked (a browser keeps
 * it in IndexedDB as is; a node passes `true` to persist it as PKCS#8).
 */
export async function generateSigningKeyPair(extractable = false): Promise<CryptoKeyPair> {
  return subtle().generateKey(ALGORITHM, extractable, ['sign', 'verify']);
}

const P256_ORDER = p256.Point.Fn.ORDER;

/** Low-S form: WebCrypto accepts either, some other libraries (noble's default) only low-S. */
function normaliseLowS(signature: Uint8Array): Uint8Array {
  const s = BigInt(
    `0x${Array.from(signature.subarray(32), (b) => b.toString(16).padStart(2, '0')).join('')}`,
  );
  if (s <= P256_ORDER >> 1n) return signature;
  const lowS = (P256_ORDER - s).toString(16).padStart(64, '0');
  const out = new Uint8Array(signature);
  for (let i = 0; i < 32; i++) out[32 + i] = Number.parseInt(lowS.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Signs `data` (UTF-8 if a string): base64url (no padding) of the 64-byte P1363 signature. */
export async function signBytes(privateKey: CryptoKey, data: Uint8Array | string): Promise<string> {
  const signature = new Uint8Array(
    await subtle().sign(SIGN_PARAMS, privateKey, buffer(toBytes(data))),
  );
  return base64urlEncode(normaliseLowS(signature));
}

/** True only for a valid signature; junk signatures, wrong lengths and wrong keys give false. */
export async function verifyBytes(
  publicKey: CryptoKey,
  data: Uint8Array | string,
  signature: string,
): Promise<boolean> {
  try {
    const sig = base64urlDecode(signature);
    if (sig.length !== 64) return false;
    if (nodeCrypto) {
      return nodeCrypto.verify(
        'sha256',
        toBytes(data),
        { key: publicKey, dsaEncoding: 'ieee-p1363' },
        sig,
      );
    }
    return await subtle().verify(SIGN_PARAMS, publicKey, buffer(sig), buffer(toBytes(data)));
  } catch {
    return false;
  }
}

/** base64url (no padding) of SHA-256 of `data` (UTF-8 if a string). */
export async function sha256Base64url(data: Uint8Array | string): Promise<string> {
  const bytes = toBytes(data);
  if (nodeCrypto) return base64urlEncode(nodeCrypto.createHash('sha256').update(bytes).digest());
  return base64urlEncode(new Uint8Array(await subtle().digest('SHA-256', buffer(bytes))));
}

function toPem(label: string, der: ArrayBuffer): string {
  const body = base64Encode(new Uint8Array(der)).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${body.join('\n')}\n-----END ${label}-----\n`;
}

function fromPem(label: string, pem: string): Result<Uint8Array> {
  if (typeof pem !== 'string') return err('PEM must be a string');
  // Tolerate CRLF and PEMs whose newlines arrived JSON-escaped twice ("\\n").
  const text = pem.replace(/\\n/g, '\n').trim();
  const match = new RegExp(
    `^-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----$`,
  ).exec(text);
  if (!match?.[1]) return err(`not a PEM "${label}" block`);
  try {
    return ok(base64Decode(match[1].replace(/\s+/g, '')));
  } catch {
    return err(`PEM "${label}" body is not valid base64`);
  }
}

/** SPKI PEM (`-----BEGIN PUBLIC KEY-----`), the `publicKey` of node info. */
export async function exportPublicKeyPem(publicKey: CryptoKey): Promise<string> {
  return toPem('PUBLIC KEY', await subtle().exportKey('spki', publicKey));
}

export async function importPublicKeyPem(pem: string): Promise<Result<CryptoKey>> {
  const der = fromPem('PUBLIC KEY', pem);
  if (!der.ok) return der;
  try {
    return ok(await subtle().importKey('spki', buffer(der.value), ALGORITHM, true, ['verify']));
  } catch {
    return err('PEM does not hold an ECDSA P-256 public key');
  }
}

/** PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`): how a node keeps its own key across restarts. */
export async function exportPrivateKeyPkcs8Pem(privateKey: CryptoKey): Promise<string> {
  return toPem('PRIVATE KEY', await subtle().exportKey('pkcs8', privateKey));
}

export async function importPrivateKeyPem(
  pem: string,
  extractable = false,
): Promise<Result<CryptoKey>> {
  const der = fromPem('PRIVATE KEY', pem);
  if (!der.ok) return der;
  try {
    return ok(
      await subtle().importKey('pkcs8', buffer(der.value), ALGORITHM, extractable, ['sign']),
    );
  } catch {
    return err('PEM does not hold an ECDSA P-256 private key');
  }
}

/** The public half of an extractable private key (WebCrypto has no direct call for it). */
export async function publicKeyFromPrivateKey(privateKey: CryptoKey): Promise<CryptoKey> {
  const { kty, crv, x, y } = await subtle().exportKey('jwk', privateKey);
  return subtle().importKey('jwk', { kty, crv, x, y, ext: true }, ALGORITHM, true, ['verify']);
}

// did:key for P-256 (W3C did:key, multicodec `p256-pub` = 0x1200 → varint bytes 0x80 0x24).
const DID_KEY_PREFIX = 'did:key:z';
const P256_PUB_MULTICODEC = [0x80, 0x24] as const;

/** `did:key:zDn…` from the 33-byte compressed point. */
export function didKeyFromCompressedPoint(point: Uint8Array): string {
  const bytes = new Uint8Array(2 + point.length);
  bytes.set(P256_PUB_MULTICODEC, 0);
  bytes.set(point, 2);
  return DID_KEY_PREFIX + base58btcEncode(bytes);
}

/**
 * Decodes a P-256 `did:key` (a `#fragment` is ignored) to its 33-byte compressed point, checking
 * the multicodec and that the point lies on the curve.
 */
export function parseDidKey(did: string): Result<Uint8Array> {
  if (typeof did !== 'string') return err('did must be a string');
  const id = did.split('#')[0] ?? '';
  if (!id.startsWith(DID_KEY_PREFIX))
    return err('not a did:key with a base58btc ("z") multibase value');
  let bytes: Uint8Array;
  try {
    bytes = base58btcDecode(id.slice(DID_KEY_PREFIX.length));
  } catch {
    return err('did:key value is not valid base58btc');
  }
  if (bytes[0] !== P256_PUB_MULTICODEC[0] || bytes[1] !== P256_PUB_MULTICODEC[1]) {
    return err('did:key is not a P-256 public key (multicodec 0x1200)');
  }
  if (bytes.length !== 35) return err('did:key P-256 key must be a 33-byte compressed point');
  const point = bytes.subarray(2);
  try {
    p256.Point.fromBytes(point).assertValidity();
  } catch {
    return err('did:key is not a point on the P-256 curve');
  }
  return ok(point);
}

export async function publicKeyToDidKey(publicKey: CryptoKey): Promise<string> {
  const raw = new Uint8Array(await subtle().exportKey('raw', publicKey));
  return didKeyFromCompressedPoint(p256.Point.fromBytes(raw).toBytes(true));
}

export async function didKeyToPublicKey(did: string): Promise<Result<CryptoKey>> {
  const point = parseDidKey(did);
  if (!point.ok) return point;
  // Browsers do not all import compressed points: decompress first.
  const raw = p256.Point.fromBytes(point.value).toBytes(false);
  try {
    return ok(await subtle().importKey('raw', buffer(raw), ALGORITHM, true, ['verify']));
  } catch {
    return err('did:key point could not be imported');
  }
}
