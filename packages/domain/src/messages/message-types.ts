import type {
  EncryptionKey,
  ErrorCode,
  MessageEnvelope,
  MessagePrivacy,
  MessageReceipt,
  Result,
} from '@swarm/contract';
import type { Refusal } from '../refusal.ts';
import type {
  BlockView,
  ConversationView,
  MessageMeView,
  MessageRecipientView,
  MessageStatusView,
  SendResult,
  ThreadView,
} from './message-views.ts';

// The direct messages service's shape, shared by its use cases (inbound, outbound, reads,
// settings) and the service that puts them together (messages.service.ts).

export type InboundMessageErrorCode = Extract<
  ErrorCode,
  'INVALID_SIGNATURE' | 'FORBIDDEN' | 'USER_NOT_FOUND' | 'NOT_FOUND' | 'MESSAGE_CONFLICT'
>;

export type InboundMessageError = Refusal<InboundMessageErrorCode>;

/** Receipts never conflict: a repeat or an older status is a 200 that changes nothing. */
export type InboundReceiptError = Refusal<Exclude<InboundMessageErrorCode, 'MESSAGE_CONFLICT'>>;

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

  me(userId: string): Promise<Result<MessageMeView, Refusal>>;
  recipient(userId: string, address: string): Promise<Result<MessageRecipientView, Refusal>>;
  setEncryptionKey(
    userId: string,
    input: EncryptionKey & { encryptedKeyBackup: string },
  ): Promise<Result<MessageMeView, Refusal>>;
  send(userId: string, envelope: unknown): Promise<Result<SendResult, Refusal>>;
  conversations(userId: string): Promise<Result<ConversationView[], Refusal>>;
  unreadCount(userId: string): Promise<number>;
  thread(
    userId: string,
    query: { with: string; before?: string | null },
  ): Promise<Result<ThreadView, Refusal>>;
  /** A receipt signed by the recipient's browser; recorded here and sent to a remote sender. */
  receipt(
    userId: string,
    receipt: unknown,
  ): Promise<Result<{ status: MessageStatusView }, Refusal>>;
  block(userId: string, address: string): Promise<Result<BlockView[], Refusal>>;
  unblock(userId: string, address: string): Promise<Result<BlockView[], Refusal>>;
  blocks(userId: string): Promise<BlockView[]>;
  privacy(userId: string): Promise<MessagePrivacy>;
  setPrivacy(userId: string, privacy: MessagePrivacy): Promise<Result<MessagePrivacy, Refusal>>;
  /** Can `domain` take direct messages? `unknown` when it cannot be asked now. */
  peerSupportsMessages(domain: string): Promise<'yes' | 'no' | 'unknown'>;
}
