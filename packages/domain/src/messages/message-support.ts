import {
  LIMITS,
  formatTimestamp,
  ok,
  parseHandleAddress,
  type EncryptionKey,
  type MessageEnvelope,
} from '@swarm/contract';
import type { Prisma } from '@swarm/db';
import { refuse } from '../refusal.ts';
import type { DeliveryService } from '../delivery/index.ts';
import type { RegistryService } from '../registry/index.ts';
import { createSenderDids } from './sender-dids.ts';
import type { PeerServiceDeps } from '../peers/service-deps.ts';

// What the message use cases share: the parsing of addresses, the stored rows' shapes, and one
// context built per service (the deps, this node's domain, the caller's account, sender dids).

export interface MessageServiceDeps extends PeerServiceDeps {
  delivery: DeliveryService;
  registry: Pick<RegistryService, 'isBlocked'>;
}

/** Thread page size. */
export const THREAD_PAGE = 50;
/** Conversations listed at most. */
export const CONVERSATIONS_MAX = 200;
export const UNSUPPORTED_REASON = 'their node does not support direct messages';

export const STATUS_RANK: Record<string, number> = {
  sending: 0,
  failed: 0,
  sent: 1,
  delivered: 2,
  read: 3,
};

export const messageSelect = {
  id: true,
  senderAddress: true,
  recipientAddress: true,
  envelope: true,
  localSenderId: true,
  localRecipientId: true,
  status: true,
  failureReason: true,
  deliveredAt: true,
  readAt: true,
  outboxDeliveryId: true,
  createdAt: true,
} as const satisfies Prisma.MessageSelect;
export type MessageRow = Prisma.MessageGetPayload<{ select: typeof messageSelect }>;

export function isTimeAcceptable(at: string, now: Date): boolean {
  const t = new Date(at).getTime();
  return (
    Number.isFinite(t) &&
    t >= now.getTime() - LIMITS.messageMaxAgeMs &&
    t <= now.getTime() + LIMITS.messageMaxFutureMs
  );
}

export function domainOf(address: string): string | null {
  const parsed = parseHandleAddress(address);
  return parsed.ok ? parsed.value.domain : null;
}

export function handleOf(address: string): string {
  const parsed = parseHandleAddress(address);
  return parsed.ok ? parsed.value.handle : address;
}

/** The columns a user or remote actor keeps its encryption key in (`storedEncryptionKey` reads them). */
export const ENCRYPTION_KEY_SELECT = {
  encryptionPublicKey: true,
  encryptionKeyCreatedAt: true,
  encryptionKeySignature: true,
} as const;

export function storedEncryptionKey(user: {
  encryptionPublicKey: string | null;
  encryptionKeyCreatedAt: Date | null;
  encryptionKeySignature: string | null;
}): EncryptionKey | null {
  if (!user.encryptionPublicKey || !user.encryptionKeyCreatedAt || !user.encryptionKeySignature)
    return null;
  return {
    publicKey: user.encryptionPublicKey,
    createdAt: formatTimestamp(user.encryptionKeyCreatedAt),
    signature: user.encryptionKeySignature,
  };
}

export const userSelect = {
  id: true,
  handle: true,
  displayName: true,
  did: true,
  ...ENCRYPTION_KEY_SELECT,
  messagePrivacy: true,
} as const satisfies Prisma.UserSelect;

/**
 * A message's row as both ends store it: the envelope's facts and the envelope itself (`stored`,
 * its canonical JSON); the caller adds the local side and the status.
 */
export function messageRow(envelope: MessageEnvelope, stored: string, receivedAt: Date) {
  return {
    id: envelope.id,
    senderAddress: envelope.sender,
    senderDid: envelope.senderDid,
    recipientAddress: envelope.recipient,
    createdAt: new Date(envelope.createdAt),
    receivedAt,
    envelope: stored,
  };
}

/** Status moves forward only; returns the update for a receipt, or null when it changes nothing. */
export function advance(
  row: { status: string; deliveredAt: Date | null; readAt: Date | null },
  status: 'delivered' | 'read',
  at: Date,
): Prisma.MessageUpdateInput | null {
  if ((STATUS_RANK[row.status] ?? 0) >= STATUS_RANK[status]!) return null;
  return {
    status,
    failureReason: null,
    deliveredAt: row.deliveredAt ?? at,
    ...(status === 'read' ? { readAt: row.readAt ?? at } : {}),
  };
}

export type MessageContext = ReturnType<typeof createMessageContext>;

export function createMessageContext(deps: MessageServiceDeps) {
  const { db, clock, logger, config, peers } = deps;
  const prisma = db.prisma;
  const self = config.domain;
  const addressOf = (user: { handle: string }) => `${user.handle}@${self}`;
  const dids = createSenderDids({ db, peers, clock, logger });

  async function loadUser(userId: string) {
    const user = await prisma.user.findUnique({ where: { id: userId }, select: userSelect });
    return user
      ? ok(user)
      : refuse('UNAUTHORIZED', 'Your account does not exist any more: sign in again.');
  }

  return { ...deps, prisma, self, addressOf, dids, loadUser };
}
