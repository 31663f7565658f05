import { canonicalJson } from './canonical-json.ts';
import { didKeyToPublicKey } from './crypto.ts';
import {
  base64urlDecode,
  base64urlEncode,
  randomBytes,
  utf8Decode,
  utf8Encode,
} from './encoding.ts';
import { parseHandleAddress } from './ids.ts';
import { LIMITS } from './limits.ts';
import type {
  EncryptionKey,
  MessageEnvelope,
  MessageHeader,
  MessageKeyEntry,
  MessageReceipt,
  ReceiptStatus,
  UnsignedEnvelope,
} from './message-schemas.ts';
import {
  messageContentSchema,
  messageEnvelopeSchema,
  messageReceiptSchema,
} from './message-schemas.ts';
import type { Result } from './result.ts';
import { err, ok } from './result.ts';
import { signUserAction, verifyUserAction } from './signing.ts';

/**
 * End-to-end encryption of direct messages (docs/protocol.md "Direct messages"), WebCrypto only
 * so the browser and Node run the same code:
 * - each user has a static ECDH P-256 encryption key, bound to the did by a user signature;
 * - a message is AES-256-GCM under a fresh content key, the header is the additional data;
 * - the content key is wrapped per reader with AES-KW under HKDF-SHA-256(ECDH(ephemeral, reader));
 * - the sender signs the whole envelope with the signing key (action `message`).
 * Functions that read untrusted input return a Result or a boolean and never throw.
 */

const ECDH = { name: 'ECDH', namedCurve: 'P-256' } as const;
const HKDF_INFO_PREFIX = 'swarm-dm-v1';

function subtle(): SubtleCrypto {
  return globalThis.crypto.subtle;
}

/** WebCrypto wants ArrayBuffer-backed views; copy only when given something else. */
function buffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer
    ? (bytes as Uint8Array<ArrayBuffer>)
    : new Uint8Array(bytes);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function domainOf(address: string): string {
  const parsed = parseHandleAddress(address);
  if (!parsed.ok) throw new TypeError(parsed.reason);
  return parsed.value.domain;
}

/**
 * A new ECDH P-256 key pair. The private key is non-extractable unless asked (the browser asks
 * for `true` once, to put it into the encrypted key backup, then stores a non-extractable copy).
 */
export async function generateEncryptionKeyPair(extractable = false): Promise<CryptoKeyPair> {
  return subtle().generateKey(ECDH, extractable, ['deriveBits']) as Promise<CryptoKeyPair>;
}

/** base64url (no padding) of the 65-byte uncompressed point: the wire form. */
export async function exportEncryptionPublicKey(publicKey: CryptoKey): Promise<string> {
  return base64urlEncode(new Uint8Array(await subtle().exportKey('raw', publicKey)));
}

function decodePublicKey(publicKeyB64: string): Result<Uint8Array> {
  if (typeof publicKeyB64 !== 'string') return err('encryption key must be a string');
  let raw: Uint8Array;
  try {
    raw = base64urlDecode(publicKeyB64);
  } catch {
    return err('encryption key is not base64url');
  }
  if (raw.length !== 65 || raw[0] !== 0x04)
    return err('encryption key must be a 65-byte uncompressed P-256 point');
  return ok(raw);
}

/** Parses a wire public key; points off the curve and other junk give `ok: false`. */
export async function importEncryptionPublicKey(publicKeyB64: string): Promise<Result<CryptoKey>> {
  const raw = decodePublicKey(publicKeyB64);
  if (!raw.ok) return raw;
  try {
    return ok(await subtle().importKey('raw', buffer(raw.value), ECDH, true, []));
  } catch {
    return err('encryption key is not a point on the P-256 curve');
  }
}

/** PKCS#8 of an extractable private key, for the key backup (base64url). */
export async function exportEncryptionPrivateKey(privateKey: CryptoKey): Promise<string> {
  return base64urlEncode(new Uint8Array(await subtle().exportKey('pkcs8', privateKey)));
}

/** Imports a backed-up PKCS#8 private encryption key (non-extractable unless asked). */
export async function importEncryptionPrivateKey(
  pkcs8B64: string,
  extractable = false,
): Promise<Result<CryptoKey>> {
  try {
    return ok(
      await subtle().importKey('pkcs8', buffer(base64urlDecode(pkcs8B64)), ECDH, extractable, [
        'deriveBits',
      ]),
    );
  } catch {
    return err('not an ECDH P-256 private key (PKCS#8)');
  }
}

/** Key id: base64url SHA-256 of the raw public key bytes (the wire string decoded). */
export async function encryptionKeyId(publicKeyB64: string): Promise<string> {
  const raw = decodePublicKey(publicKeyB64);
  if (!raw.ok) throw new TypeError(raw.reason);
  return base64urlEncode(new Uint8Array(await subtle().digest('SHA-256', buffer(raw.value))));
}

/** The body the user signs to bind an encryption key to the did (`encryption-key` action). */
function encryptionKeyBindingBody(input: {
  address: string;
  did: string;
  publicKey: string;
  createdAt: string;
}): Record<string, unknown> {
  return {
    address: input.address,
    did: input.did,
    publicKey: input.publicKey,
    createdAt: input.createdAt,
  };
}

/** Signature binding `publicKey` to the user's did; targetDomain is the user's own domain. */
export async function signEncryptionKey(input: {
  signingKey: CryptoKey;
  address: string;
  did: string;
  publicKey: string;
  createdAt: string;
}): Promise<string> {
  return signUserAction({
    privateKey: input.signingKey,
    action: 'encryption-key',
    targetDomain: domainOf(input.address),
    body: encryptionKeyBindingBody(input),
  });
}

/** True only when the binding was signed by the key inside `did`. */
export async function verifyEncryptionKey(input: {
  address: string;
  did: string;
  encryptionKey: EncryptionKey;
}): Promise<boolean> {
  try {
    const key = await didKeyToPublicKey(input.did);
    if (!key.ok) return false;
    const { publicKey, createdAt, signature } = input.encryptionKey;
    return await verifyUserAction({
      publicKey: key.value,
      action: 'encryption-key',
      targetDomain: domainOf(input.address),
      body: {
        ...encryptionKeyBindingBody({
          address: input.address,
          did: input.did,
          publicKey,
          createdAt,
        }),
        signature,
      },
    });
  } catch {
    return false;
  }
}

function headerOf(envelope: MessageHeader): MessageHeader {
  return {
    id: envelope.id,
    sender: envelope.sender,
    senderDid: envelope.senderDid,
    recipient: envelope.recipient,
    createdAt: envelope.createdAt,
  };
}

/** AES-GCM additional data: canonical JSON of the header members. */
function additionalData(header: MessageHeader): Uint8Array {
  return utf8Encode(canonicalJson(headerOf(header)));
}

/** AES-KW key from ECDH(privateKey, publicKey), bound to both points, the message and the reader. */
async function keyEncryptionKey(input: {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  ephemeralRaw: Uint8Array;
  readerRaw: Uint8Array;
  messageId: string;
  reader: string;
}): Promise<CryptoKey> {
  const shared = await subtle().deriveBits(
    { name: 'ECDH', public: input.publicKey },
    input.privateKey,
    256,
  );
  const ikm = await subtle().importKey('raw', shared, 'HKDF', false, ['deriveKey']);
  const salt = await subtle().digest(
    'SHA-256',
    buffer(concat(input.ephemeralRaw, input.readerRaw)),
  );
  return subtle().deriveKey(
    {
      name: 'HKDF',
      hash: 'SHA-256',
      salt,
      info: buffer(utf8Encode(`${HKDF_INFO_PREFIX}|${input.messageId}|${input.reader}`)),
    },
    ikm,
    { name: 'AES-KW', length: 256 },
    false,
    ['wrapKey', 'unwrapKey'],
  );
}

async function wrapFor(input: {
  contentKey: CryptoKey;
  messageId: string;
  reader: string;
  readerPublicKey: string;
}): Promise<MessageKeyEntry> {
  const readerRaw = decodePublicKey(input.readerPublicKey);
  if (!readerRaw.ok) throw new TypeError(`key of ${input.reader}: ${readerRaw.reason}`);
  const readerKey = await importEncryptionPublicKey(input.readerPublicKey);
  if (!readerKey.ok) throw new TypeError(`key of ${input.reader}: ${readerKey.reason}`);
  const ephemeral = await generateEncryptionKeyPair();
  const ephemeralRaw = new Uint8Array(await subtle().exportKey('raw', ephemeral.publicKey));
  const kek = await keyEncryptionKey({
    privateKey: ephemeral.privateKey,
    publicKey: readerKey.value,
    ephemeralRaw,
    readerRaw: readerRaw.value,
    messageId: input.messageId,
    reader: input.reader,
  });
  const wrapped = await subtle().wrapKey('raw', input.contentKey, kek, 'AES-KW');
  return {
    for: input.reader,
    keyId: await encryptionKeyId(input.readerPublicKey),
    ephemeralKey: base64urlEncode(ephemeralRaw),
    wrappedKey: base64urlEncode(new Uint8Array(wrapped)),
  };
}

/** Checks the text a person typed: 1..5000 characters, not only white space. */
export function checkMessageText(text: string): Result<string> {
  if (typeof text !== 'string' || text.trim() === '') return err('The message is empty');
  if (text.length > LIMITS.messageTextMaxChars)
    return err(`The message is longer than ${LIMITS.messageTextMaxChars} characters`);
  return ok(text);
}

/**
 * Encrypts and signs a message. Throws (TypeError) on bad input of our own making: empty or too
 * long text, a malformed key or address — check the text with `checkMessageText` first.
 */
export async function sealMessage(input: {
  id?: string;
  sender: string;
  senderDid: string;
  recipient: string;
  createdAt?: string;
  text: string;
  recipientPublicKey: string;
  senderPublicKey: string;
  signingKey: CryptoKey;
}): Promise<MessageEnvelope> {
  const text = checkMessageText(input.text);
  if (!text.ok) throw new TypeError(text.reason);
  const header: MessageHeader = {
    id: input.id ?? globalThis.crypto.randomUUID(),
    sender: input.sender,
    senderDid: input.senderDid,
    recipient: input.recipient,
    createdAt: input.createdAt ?? new Date().toISOString(),
  };
  const contentKey = await subtle().importKey(
    'raw',
    buffer(randomBytes(32)),
    { name: 'AES-GCM' },
    true,
    ['encrypt'],
  );
  const iv = randomBytes(12);
  const ciphertext = new Uint8Array(
    await subtle().encrypt(
      { name: 'AES-GCM', iv: buffer(iv), additionalData: buffer(additionalData(header)) },
      contentKey,
      buffer(utf8Encode(canonicalJson({ text: text.value }))),
    ),
  );
  const keys = [
    await wrapFor({
      contentKey,
      messageId: header.id,
      reader: header.recipient,
      readerPublicKey: input.recipientPublicKey,
    }),
    await wrapFor({
      contentKey,
      messageId: header.id,
      reader: header.sender,
      readerPublicKey: input.senderPublicKey,
    }),
  ];
  const unsigned: UnsignedEnvelope = {
    ...header,
    iv: base64urlEncode(iv),
    ciphertext: base64urlEncode(ciphertext),
    keys,
  };
  if (unsigned.ciphertext.length > LIMITS.messageCiphertextMaxChars)
    throw new TypeError('The message is too long once encrypted');
  const signature = await signUserAction({
    privateKey: input.signingKey,
    action: 'message',
    targetDomain: domainOf(header.recipient),
    body: unsigned,
  });
  const envelope = { ...unsigned, signature };
  const parsed = messageEnvelopeSchema.safeParse(envelope);
  if (!parsed.success) throw new TypeError(`sealMessage: ${parsed.error.issues[0]?.message}`);
  return envelope;
}

/**
 * True when `signature` is the sender's signature (under `senderDid`) over the envelope; the
 * envelope must have the schema's exact shape. The caller separately checks that `senderDid` is
 * the did known for `sender` (node: the pinned did; browser: the did seen before).
 */
export async function verifyEnvelopeSignature(envelope: unknown): Promise<boolean> {
  const parsed = messageEnvelopeSchema.safeParse(envelope);
  if (!parsed.success) return false;
  try {
    const key = await didKeyToPublicKey(parsed.data.senderDid);
    if (!key.ok) return false;
    return await verifyUserAction({
      publicKey: key.value,
      action: 'message',
      targetDomain: domainOf(parsed.data.recipient),
      body: parsed.data,
    });
  } catch {
    return false;
  }
}

/**
 * Decrypts an envelope for `reader` (an address with an entry in `keys`), using the reader's
 * private ECDH key; `publicKey` (the reader's wire key) picks the entry by key id. Verifies the
 * sender's signature first. Any tampering, a wrong key or a missing entry gives `ok: false`.
 */
export async function openMessage(input: {
  envelope: unknown;
  reader: string;
  privateKey: CryptoKey;
  publicKey: string;
}): Promise<Result<{ text: string; envelope: MessageEnvelope }>> {
  const parsed = messageEnvelopeSchema.safeParse(input.envelope);
  if (!parsed.success) return err('not a valid message envelope');
  const envelope = parsed.data;
  if (!(await verifyEnvelopeSignature(envelope)))
    return err('the sender signature does not verify');
  const readerRaw = decodePublicKey(input.publicKey);
  if (!readerRaw.ok) return readerRaw;
  const keyId = await encryptionKeyId(input.publicKey);
  const entry = envelope.keys.find((k) => k.for === input.reader && k.keyId === keyId);
  if (!entry) return err('the message was not encrypted for this key');
  const ephemeral = await importEncryptionPublicKey(entry.ephemeralKey);
  if (!ephemeral.ok) return ephemeral;
  try {
    const kek = await keyEncryptionKey({
      privateKey: input.privateKey,
      publicKey: ephemeral.value,
      ephemeralRaw: base64urlDecode(entry.ephemeralKey),
      readerRaw: readerRaw.value,
      messageId: envelope.id,
      reader: input.reader,
    });
    const contentKey = await subtle().unwrapKey(
      'raw',
      buffer(base64urlDecode(entry.wrappedKey)),
      kek,
      'AES-KW',
      { name: 'AES-GCM' },
      false,
      ['decrypt'],
    );
    const plaintext = await subtle().decrypt(
      {
        name: 'AES-GCM',
        iv: buffer(base64urlDecode(envelope.iv)),
        additionalData: buffer(additionalData(envelope)),
      },
      contentKey,
      buffer(base64urlDecode(envelope.ciphertext)),
    );
    const content = messageContentSchema.safeParse(
      JSON.parse(utf8Decode(new Uint8Array(plaintext))),
    );
    if (!content.success) return err('the decrypted content is not a message');
    return ok({ text: content.data.text, envelope });
  } catch {
    return err('the message could not be decrypted (tampered with, or not for this key)');
  }
}

/** A receipt signed by the message's recipient (targetDomain: the sender's domain). */
export async function signReceipt(input: {
  signingKey: CryptoKey;
  messageId: string;
  status: ReceiptStatus;
  sender: string;
  recipient: string;
  recipientDid: string;
  at?: string;
}): Promise<MessageReceipt> {
  const unsigned = {
    messageId: input.messageId,
    status: input.status,
    sender: input.sender,
    recipient: input.recipient,
    recipientDid: input.recipientDid,
    at: input.at ?? new Date().toISOString(),
  };
  const signature = await signUserAction({
    privateKey: input.signingKey,
    action: 'receipt',
    targetDomain: domainOf(input.sender),
    body: unsigned,
  });
  return { ...unsigned, signature };
}

/** True when the receipt has the exact shape and is signed under its `recipientDid`. */
export async function verifyReceipt(receipt: unknown): Promise<boolean> {
  const parsed = messageReceiptSchema.safeParse(receipt);
  if (!parsed.success) return false;
  try {
    const key = await didKeyToPublicKey(parsed.data.recipientDid);
    if (!key.ok) return false;
    return await verifyUserAction({
      publicKey: key.value,
      action: 'receipt',
      targetDomain: domainOf(parsed.data.sender),
      body: parsed.data,
    });
  } catch {
    return false;
  }
}
