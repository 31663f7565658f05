import { z } from 'zod';
import { parseHandleAddress } from './ids.ts';
import { LIMITS } from './limits.ts';
import { didSchema, signatureSchema, uuidSchema } from './primitives.ts';

/**
 * Direct messages (issue #5, docs/protocol.md "Direct messages"). Envelopes and receipts are
 * signed objects that nodes store and relay as received, so these schemas never normalise: every
 * member must already be in its one canonical form and unknown members are refused (strict
 * objects). The parsed value is then byte-for-byte the signed value.
 */

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** base64url (no padding) of exactly `bytes` bytes. */
function base64urlOfLength(bytes: number, what: string) {
  const chars = Math.ceil((bytes * 4) / 3);
  return z
    .string()
    .length(chars, { message: `${what} must be base64url of ${bytes} bytes (${chars} characters)` })
    .regex(BASE64URL, { message: `${what} must be base64url without padding` });
}

/** `handle@domain` exactly as formatted by us (domain lower-case, no leading `@`). */
export const messageAddressSchema = z
  .string()
  .max(320)
  .superRefine((value, ctx) => {
    const parsed = parseHandleAddress(value);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', message: parsed.reason });
    } else if (value.startsWith('@') || `${parsed.value.handle}@${parsed.value.domain}` !== value) {
      ctx.addIssue({
        code: 'custom',
        message: `must be written as ${parsed.value.handle}@${parsed.value.domain}`,
      });
    }
  });

/** ISO 8601 UTC with milliseconds (`2026-11-23T15:00:00.000Z`), the only accepted form. */
export const exactTimestampSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, {
    message: 'must be an ISO 8601 UTC timestamp with milliseconds (YYYY-MM-DDTHH:mm:ss.sssZ)',
  })
  .refine((value) => {
    const date = new Date(value);
    return !Number.isNaN(date.getTime()) && date.toISOString() === value;
  }, 'is not a valid date');

/** Lower-case UUID (as `crypto.randomUUID()` makes them): the message id. */
export const messageIdSchema = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, {
    message: 'must be a lower-case UUID',
  });

/** Public encryption key on the wire: base64url of the 65-byte uncompressed P-256 point. */
export const encryptionPublicKeySchema = base64urlOfLength(65, 'publicKey');

/** base64url SHA-256 of the raw public encryption key. */
export const encryptionKeyIdSchema = base64urlOfLength(32, 'keyId');

/**
 * The user's published encryption key, bound to the user's did by a signature of the signing
 * key (action `encryption-key`, see `signEncryptionKey`).
 */
export const encryptionKeySchema = z.strictObject({
  publicKey: encryptionPublicKeySchema,
  createdAt: exactTimestampSchema,
  signature: signatureSchema,
});
export type EncryptionKey = z.output<typeof encryptionKeySchema>;

/** One wrapped copy of the content key, for one reader's encryption key. */
export const messageKeyEntrySchema = z.strictObject({
  for: messageAddressSchema,
  keyId: encryptionKeyIdSchema,
  ephemeralKey: encryptionPublicKeySchema,
  /** AES-KW of the 32-byte content key: 40 bytes. */
  wrappedKey: base64urlOfLength(40, 'wrappedKey'),
});
export type MessageKeyEntry = z.output<typeof messageKeyEntrySchema>;

const envelopeHeader = {
  id: messageIdSchema,
  sender: messageAddressSchema,
  senderDid: didSchema,
  recipient: messageAddressSchema,
  createdAt: exactTimestampSchema,
};

const envelopeMembers = {
  ...envelopeHeader,
  iv: base64urlOfLength(12, 'iv'),
  ciphertext: z
    .string()
    .min(1)
    .max(LIMITS.messageCiphertextMaxChars, {
      message: `ciphertext is longer than ${LIMITS.messageCiphertextMaxChars} characters`,
    })
    .regex(BASE64URL, { message: 'ciphertext must be base64url without padding' }),
  keys: z.array(messageKeyEntrySchema).min(2).max(LIMITS.messageKeyEntriesMax),
};

function checkEnvelopeParties(
  envelope: { sender: string; recipient: string; keys: { for: string }[] },
  ctx: z.RefinementCtx,
): void {
  if (envelope.sender === envelope.recipient) {
    ctx.addIssue({ code: 'custom', path: ['recipient'], message: 'must differ from sender' });
  }
  const forRecipient = envelope.keys.filter((k) => k.for === envelope.recipient).length;
  const forSender = envelope.keys.filter((k) => k.for === envelope.sender).length;
  if (forRecipient < 1 || forSender < 1 || forRecipient + forSender !== envelope.keys.length) {
    ctx.addIssue({
      code: 'custom',
      path: ['keys'],
      message: 'needs an entry for the recipient and one for the sender, and no other readers',
    });
  }
}

/** The envelope without its signature: what the sender signs. */
export const unsignedEnvelopeSchema = z
  .strictObject(envelopeMembers)
  .superRefine(checkEnvelopeParties);
export type UnsignedEnvelope = z.output<typeof unsignedEnvelopeSchema>;

/** `POST /api/swarm/messages` body, and what nodes store. */
export const messageEnvelopeSchema = z
  .strictObject({ ...envelopeMembers, signature: signatureSchema })
  .superRefine(checkEnvelopeParties);
export type MessageEnvelope = z.output<typeof messageEnvelopeSchema>;

/** The header members, bound to the ciphertext as AES-GCM additional data. */
export type MessageHeader = Pick<
  MessageEnvelope,
  'id' | 'sender' | 'senderDid' | 'recipient' | 'createdAt'
>;

/** The decrypted content: `{ text }` (room for more members later). */
export const messageContentSchema = z.object({
  text: z
    .string()
    .min(1, { message: 'text is empty' })
    .max(LIMITS.messageTextMaxChars, {
      message: `text is longer than ${LIMITS.messageTextMaxChars} characters`,
    }),
});
export type MessageContent = z.output<typeof messageContentSchema>;

export const RECEIPT_STATUSES = ['delivered', 'read'] as const;
export type ReceiptStatus = (typeof RECEIPT_STATUSES)[number];

const receiptMembers = {
  messageId: messageIdSchema,
  status: z.enum(RECEIPT_STATUSES),
  /** The message's sender (the receipt goes to the sender's node). */
  sender: messageAddressSchema,
  /** The message's recipient, who signs the receipt. */
  recipient: messageAddressSchema,
  recipientDid: didSchema,
  at: exactTimestampSchema,
};

export const unsignedReceiptSchema = z.strictObject(receiptMembers);
export type UnsignedReceipt = z.output<typeof unsignedReceiptSchema>;

/** `POST /api/swarm/messages/receipts` body. */
export const messageReceiptSchema = z.strictObject({
  ...receiptMembers,
  signature: signatureSchema,
});
export type MessageReceipt = z.output<typeof messageReceiptSchema>;

/** Answer of `POST /api/swarm/messages`. */
export const messageResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  messageId: uuidSchema,
});
export type MessageResponse = z.output<typeof messageResponseSchema>;

/** Answer of `POST /api/swarm/messages/receipts`. */
export const receiptResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
});
export type ReceiptResponse = z.output<typeof receiptResponseSchema>;

/** Who may message a user (the recipient's node enforces it). */
export const MESSAGE_PRIVACY = ['everyone', 'following', 'nobody'] as const;
export type MessagePrivacy = (typeof MESSAGE_PRIVACY)[number];
export const messagePrivacySchema = z.enum(MESSAGE_PRIVACY);

/** Statuses of a message as its sender sees them. */
export const MESSAGE_STATUSES = ['sending', 'sent', 'delivered', 'read', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** The wire error of a privacy or block refusal (403), also the tRPC FORBIDDEN message. */
export const MESSAGE_NOT_ACCEPTED_ERROR = 'The recipient does not accept messages from you';
