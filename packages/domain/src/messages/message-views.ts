import type { EncryptionKey, MessageEnvelope, MessagePrivacy } from '@swarm/contract';

/**
 * What the messages procedures answer. The node never sees message text: envelopes go to the
 * browser, which verifies and decrypts them (packages/contract message-crypto.ts).
 */

/** A person one can message, as the sender's browser needs them to encrypt. */
export interface MessageRecipientView {
  address: string;
  /** As their profile says (empty when they set none). */
  displayName: string;
  did: string | null;
  /** The published key with its binding signature (the browser verifies it), or null. */
  encryptionKey: EncryptionKey | null;
  acceptsMessages: boolean;
  /** Why not, in words, when `acceptsMessages` is false. */
  reason?: string;
}

export interface MessageMeView {
  address: string;
  did: string | null;
  encryptionKey: EncryptionKey | null;
  messagePrivacy: MessagePrivacy;
}

/** `retrying` is `sending` with a failed attempt behind it (outbox row pending, attempts > 0). */
export type MessageStatusView = 'sending' | 'retrying' | 'sent' | 'delivered' | 'read' | 'failed';

export interface MessageDeliveryView {
  /** The outbox row (for `deliveries.retry`). */
  id: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  nextAttemptAt: string | null;
  /** `queued`, `retrying, next in 4 min`, … (as deliveries show it). */
  summary: string;
}

export interface MessageView {
  envelope: MessageEnvelope;
  direction: 'in' | 'out';
  status: MessageStatusView;
  failureReason?: string;
  /** The outbox row of an outgoing message to another node. */
  delivery?: MessageDeliveryView;
  deliveredAt: string | null;
  readAt: string | null;
}

export interface SendResult {
  id: string;
  status: MessageStatusView;
  failureReason?: string;
  delivery?: MessageDeliveryView;
}

export interface ConversationView {
  with: string;
  withDisplayName?: string;
  lastMessageAt: string;
  lastEnvelope: MessageEnvelope;
  /** Incoming messages not read yet. */
  unread: number;
}

export interface ThreadView {
  /** Oldest first: the newest page before `before`. */
  messages: MessageView[];
  /** As this node knows them; their current key comes from `recipient` (it asks their node). */
  with: {
    address: string;
    /** Empty when unknown (never seen here). */
    displayName: string;
    did: string | null;
  };
  /** Pass as `before` for the previous page; null when this is the first message. */
  olderCursor: string | null;
}

export interface BlockView {
  address: string;
  createdAt: string;
}
