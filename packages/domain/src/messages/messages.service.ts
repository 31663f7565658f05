import type {
  EncryptionKey,
  MessageEnvelope,
  MessagePrivacy,
  MessageReceipt,
  Result,
} from '@swarm/contract';
import { createInboundMessages } from './message-inbound.ts';
import type { InboundMessageError, InboundReceiptError } from './message-inbound.ts';
import { createOutboundMessages } from './message-outbound.ts';
import { createMessageReads } from './message-reads.ts';
import { createMessageSettings } from './message-settings.ts';
import { createMessageContext, type MessageServiceDeps } from './message-support.ts';
import type {
  BlockView,
  ConversationView,
  MessageMeView,
  MessageRecipientView,
  MessageStatusView,
  SendResult,
  ThreadView,
} from './message-views.ts';

export type {
  InboundMessageError,
  InboundMessageErrorCode,
  InboundReceiptError,
} from './message-inbound.ts';
export {
  CONVERSATIONS_MAX,
  parseMessageAddress,
  THREAD_PAGE,
  UNSUPPORTED_REASON,
  type MessageServiceDeps,
} from './message-support.ts';
import type { Refused } from '../refusal.ts';

/**
 * Direct messages (issue #5, docs/protocol.md "Direct messages"). The node stores and relays
 * signed envelopes of ciphertext; the browser does all cryptography. It checks what it can
 * without the text: shapes, who speaks for whom, the sender's signature under the did pinned
 * for the sender, the recipient's privacy and blocks (`checkAcceptance`, one rule for local and
 * remote senders), idempotency by message id. Remote deliveries go through the durable outbox
 * (kinds `message` and `receipt`).
 */

export interface MessageService {
  /** `POST /api/swarm/messages`: `sourceDomain` as the node signature proved it. */
  receive(
    sourceDomain: string,
    envelope: MessageEnvelope,
    rawBody: unknown,
  ): Promise<Result<{ messageId: string }, InboundMessageError>>;
  /** `POST /api/swarm/messages/receipts`. */
  receiveReceipt(
    sourceDomain: string,
    receipt: MessageReceipt,
    rawBody: unknown,
  ): Promise<Result<{ changed: boolean }, InboundReceiptError>>;

  me(userId: string): Promise<Refused<MessageMeView>>;
  recipient(userId: string, address: string): Promise<Refused<MessageRecipientView>>;
  setEncryptionKey(
    userId: string,
    input: EncryptionKey & { encryptedKeyBackup: string },
  ): Promise<Refused<MessageMeView>>;
  send(userId: string, envelope: unknown): Promise<Refused<SendResult>>;
  conversations(userId: string): Promise<Refused<ConversationView[]>>;
  unreadCount(userId: string): Promise<number>;
  thread(
    userId: string,
    query: { with: string; before?: string | null },
  ): Promise<Refused<ThreadView>>;
  /** A receipt signed by the recipient's browser; recorded here and sent to a remote sender. */
  receipt(userId: string, receipt: unknown): Promise<Refused<{ status: MessageStatusView }>>;
  block(userId: string, address: string): Promise<Refused<BlockView[]>>;
  unblock(userId: string, address: string): Promise<Refused<BlockView[]>>;
  blocks(userId: string): Promise<BlockView[]>;
  privacy(userId: string): Promise<MessagePrivacy>;
  setPrivacy(userId: string, privacy: MessagePrivacy): Promise<Refused<MessagePrivacy>>;
  /** Can `domain` take direct messages? `unknown` when it cannot be asked now. */
  peerSupportsMessages(domain: string): Promise<'yes' | 'no' | 'unknown'>;
}

/**
 * One service over four use cases: inbound (`message-inbound.ts`: relay and receipts from other
 * nodes), outbound (`message-outbound.ts`: sending, receipts, recipient look-up and capability
 * probing), reads (`message-reads.ts`) and settings (`message-settings.ts`: key setup, blocks,
 * privacy).
 */
export function createMessageService(deps: MessageServiceDeps): MessageService {
  const ctx = createMessageContext(deps);
  const { sendResult, ...reads } = createMessageReads(ctx);
  return {
    ...createInboundMessages(ctx),
    ...createOutboundMessages(ctx, sendResult),
    ...reads,
    ...createMessageSettings(ctx, reads.me),
  };
}
