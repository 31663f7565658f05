import {
  LIMITS,
  MESSAGE_NOT_ACCEPTED_ERROR,
  SWARM_PATHS,
  canonicalJson,
  encryptionKeySchema,
  err,
  formatTimestamp,
  importEncryptionPublicKey,
  messageEnvelopeSchema,
  messageReceiptSchema,
  nodeInfoSchema,
  ok,
  parseDomain,
  parseHandleAddress,
  parseRemoteHandle,
  parseWith,
  swarmUserResponseSchema,
  verifyEncryptionKey,
  verifyEnvelopeSignature,
  verifyReceipt,
  type EncryptionKey,
  type ErrorCode,
  type MessageEnvelope,
  type MessagePrivacy,
  type MessageReceipt,
  type Result,
} from '@swarm/contract';
import type { Db, Prisma } from '@swarm/db';
import { refuse, TX_OPTIONS, type ActionOutcome } from '../actions/action-support.ts';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import { toDeliveryView } from '../delivery/delivery-policy.ts';
import type { DeliveryService } from '../delivery/index.ts';
import { upsertRemoteActor } from '../interactions/interaction-effects.ts';
import type { Logger } from '../logger.ts';
import { describePeerError, type PeerClient } from '../peers/index.ts';
import type { RegistryService } from '../registry/index.ts';
import { checkAcceptance } from './message-acceptance.ts';
import { createSenderDids } from './sender-dids.ts';
import { applyBlock } from '../moderation/blocks.ts';
import { ACCOUNT_FLAGS_SELECT, isHiddenAccount } from '../moderation/accounts.ts';
import type {
  BlockView,
  ConversationView,
  MessageDeliveryView,
  MessageMeView,
  MessageRecipientView,
  MessageStatusView,
  MessageView,
  SendResult,
  ThreadView,
} from './message-views.ts';

/**
 * Direct messages (issue #5, docs/protocol.md "Direct messages"). The node stores and relays
 * signed envelopes of ciphertext; the browser does all cryptography. It checks what it can
 * without the text: shapes, who speaks for whom, the sender's signature under the did pinned
 * for the sender, the recipient's privacy and blocks (`checkAcceptance`, one rule for local and
 * remote senders), idempotency by message id. Remote deliveries go through the durable outbox
 * (kinds `message` and `receipt`).
 */

export type InboundMessageErrorCode = Extract<
  ErrorCode,
  'INVALID_SIGNATURE' | 'FORBIDDEN' | 'USER_NOT_FOUND' | 'NOT_FOUND' | 'MESSAGE_CONFLICT'
>;

export interface InboundMessageError {
  code: InboundMessageErrorCode;
  message: string;
}

/** Receipts never conflict: a repeat or an older status is a 200 that changes nothing. */
export interface InboundReceiptError {
  code: Exclude<InboundMessageErrorCode, 'MESSAGE_CONFLICT'>;
  message: string;
}

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

  me(userId: string): Promise<ActionOutcome<MessageMeView>>;
  recipient(userId: string, address: string): Promise<ActionOutcome<MessageRecipientView>>;
  setEncryptionKey(
    userId: string,
    input: EncryptionKey & { encryptedKeyBackup: string },
  ): Promise<ActionOutcome<MessageMeView>>;
  send(userId: string, envelope: unknown): Promise<ActionOutcome<SendResult>>;
  conversations(userId: string): Promise<ActionOutcome<ConversationView[]>>;
  unreadCount(userId: string): Promise<number>;
  thread(
    userId: string,
    query: { with: string; before?: string | null },
  ): Promise<ActionOutcome<ThreadView>>;
  /** A receipt signed by the recipient's browser; recorded here and sent to a remote sender. */
  receipt(userId: string, receipt: unknown): Promise<ActionOutcome<{ status: MessageStatusView }>>;
  block(userId: string, address: string): Promise<ActionOutcome<BlockView[]>>;
  unblock(userId: string, address: string): Promise<ActionOutcome<BlockView[]>>;
  blocks(userId: string): Promise<BlockView[]>;
  privacy(userId: string): Promise<MessagePrivacy>;
  setPrivacy(userId: string, privacy: MessagePrivacy): Promise<ActionOutcome<MessagePrivacy>>;
  /** Can `domain` take direct messages? `unknown` when it cannot be asked now. */
  peerSupportsMessages(domain: string): Promise<'yes' | 'no' | 'unknown'>;
}

export interface MessageServiceDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  config: Pick<NodeConfig, 'domain'>;
  peers: Pick<PeerClient, 'getJson'>;
  delivery: DeliveryService;
  registry: Pick<RegistryService, 'isBlocked'>;
}

/** Thread page size. */
export const THREAD_PAGE = 50;
/** Conversations listed at most. */
export const CONVERSATIONS_MAX = 200;
/** The encrypted key backup is opaque JSON; this caps what a browser may store. */
export const KEY_BACKUP_MAX_BYTES = 64 * 1024;
export const UNSUPPORTED_REASON = 'their node does not support direct messages';

const STATUS_RANK: Record<string, number> = {
  sending: 0,
  failed: 0,
  sent: 1,
  delivered: 2,
  read: 3,
};

const messageSelect = {
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
type MessageRow = Prisma.MessageGetPayload<{ select: typeof messageSelect }>;

/** Thrown inside a transaction to roll it back; turned into a failure value right outside. */
class Refusal extends Error {
  constructor(readonly failure: InboundMessageError) {
    super(failure.message);
  }
}

const fail = <C extends InboundMessageErrorCode>(code: C, message: string) =>
  err({ code, message });

function isTimeAcceptable(at: string, now: Date): boolean {
  const t = new Date(at).getTime();
  return (
    Number.isFinite(t) &&
    t >= now.getTime() - LIMITS.messageMaxAgeMs &&
    t <= now.getTime() + LIMITS.messageMaxFutureMs
  );
}

function domainOf(address: string): string | null {
  const parsed = parseHandleAddress(address);
  return parsed.ok ? parsed.value.domain : null;
}

function handleOf(address: string): string {
  const parsed = parseHandleAddress(address);
  return parsed.ok ? parsed.value.handle : address;
}

/**
 * `alice`, `@alice`, `bob@beta.example`: the canonical `handle@domain`. Handles of this node are
 * lower-case (sign-up stores them so); others keep their node's spelling.
 */
export function parseMessageAddress(input: string, self: string): Result<string> {
  if (typeof input !== 'string') return err('the address must be a string');
  const text = input.trim().replace(/^@/, '');
  if (!text.includes('@')) {
    const handle = parseRemoteHandle(text);
    return handle.ok ? ok(`${handle.value.toLowerCase()}@${self}`) : handle;
  }
  const parsed = parseHandleAddress(text);
  if (!parsed.ok) return parsed;
  const { handle, domain } = parsed.value;
  return ok(domain === self ? `${handle.toLowerCase()}@${domain}` : `${handle}@${domain}`);
}

function parseCapabilities(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

function storedEncryptionKey(user: {
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

const userSelect = {
  id: true,
  handle: true,
  displayName: true,
  did: true,
  encryptionPublicKey: true,
  encryptionKeyCreatedAt: true,
  encryptionKeySignature: true,
  messagePrivacy: true,
} as const satisfies Prisma.UserSelect;

export function createMessageService(deps: MessageServiceDeps): MessageService {
  const { db, clock, logger, config, peers, delivery, registry } = deps;
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

  async function peerSupportsMessages(domain: string): Promise<'yes' | 'no' | 'unknown'> {
    const known = await prisma.swarmNode.findUnique({
      where: { domain },
      select: { capabilities: true },
    });
    const listed = known ? parseCapabilities(known.capabilities) : [];
    // An empty list means "info never read", not "no capabilities".
    if (listed.length > 0) return listed.includes('messages') ? 'yes' : 'no';
    const info = await peers.getJson(domain, SWARM_PATHS.info, nodeInfoSchema);
    if (!info.ok) return 'unknown';
    return info.value.capabilities.includes('messages') ? 'yes' : 'no';
  }

  /** Status moves forward only; returns the update for a receipt, or null when it changes nothing. */
  function advance(
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

  function deliveryView(
    outbox: Parameters<typeof toDeliveryView>[0] | undefined,
  ): MessageDeliveryView | undefined {
    if (!outbox) return undefined;
    const v = toDeliveryView(outbox, clock.now());
    return {
      id: v.id,
      status: v.status,
      attempts: v.attempts,
      nextAttemptAt: v.nextAttemptAt,
      summary: v.summary,
    };
  }

  function statusView(row: { status: string }, outbox?: MessageDeliveryView): MessageStatusView {
    // A failed message whose delivery was retried (Retry now) is on its way again.
    if ((row.status === 'sending' || row.status === 'failed') && outbox?.status === 'pending')
      return outbox.attempts > 0 ? 'retrying' : 'sending';
    return row.status as MessageStatusView;
  }

  async function outboxRows(ids: (string | null)[]) {
    const wanted = ids.filter((id): id is string => id !== null);
    if (wanted.length === 0) return new Map<string, MessageDeliveryView>();
    const rows = await prisma.outboxDelivery.findMany({ where: { id: { in: wanted } } });
    return new Map(rows.map((r) => [r.id, deliveryView(r)!]));
  }

  function toMessageView(
    row: MessageRow,
    userId: string,
    outboxes: Map<string, MessageDeliveryView>,
  ): MessageView {
    const outbox = row.outboxDeliveryId ? outboxes.get(row.outboxDeliveryId) : undefined;
    const direction = row.localSenderId === userId ? 'out' : 'in';
    const status = statusView(row, outbox);
    return {
      envelope: JSON.parse(row.envelope) as MessageEnvelope,
      direction,
      status,
      ...(status === 'failed' && row.failureReason ? { failureReason: row.failureReason } : {}),
      ...(direction === 'out' && outbox ? { delivery: outbox } : {}),
      deliveredAt: row.deliveredAt ? formatTimestamp(row.deliveredAt) : null,
      readAt: row.readAt ? formatTimestamp(row.readAt) : null,
    };
  }

  /** Display name and did of people by address, from this node's tables (no network). */
  async function knownPeople(
    addresses: string[],
  ): Promise<Map<string, { displayName: string; did: string | null }>> {
    const local = addresses.filter((a) => domainOf(a) === self).map(handleOf);
    const remote = addresses.filter((a) => domainOf(a) !== self);
    const select = { handle: true, displayName: true, did: true } as const;
    const [localUsers, remoteActors] = await Promise.all([
      local.length > 0 ? prisma.user.findMany({ where: { handle: { in: local } }, select }) : [],
      remote.length > 0
        ? prisma.remoteActor.findMany({
            where: {
              OR: remote.map((a) => ({ handle: handleOf(a), nodeDomain: domainOf(a) ?? '' })),
            },
            select: { ...select, nodeDomain: true },
          })
        : [],
    ]);
    const people = new Map<string, { displayName: string; did: string | null }>();
    for (const u of localUsers) people.set(`${u.handle}@${self}`, u);
    for (const a of remoteActors) people.set(`${a.handle}@${a.nodeDomain}`, a);
    return people;
  }

  async function blockedAddresses(userId: string): Promise<string[]> {
    const rows = await prisma.userBlock.findMany({
      where: { userId },
      select: { blockedAddress: true },
    });
    return rows.map((r) => r.blockedAddress);
  }

  async function listBlocks(userId: string): Promise<BlockView[]> {
    const rows = await prisma.userBlock.findMany({
      where: { userId },
      orderBy: [{ createdAt: 'desc' }, { blockedAddress: 'asc' }],
      select: { blockedAddress: true, createdAt: true },
    });
    return rows.map((r) => ({
      address: r.blockedAddress,
      createdAt: formatTimestamp(r.createdAt),
    }));
  }

  async function sendResult(id: string): Promise<SendResult> {
    const row = await prisma.message.findUniqueOrThrow({ where: { id }, select: messageSelect });
    const outboxes = await outboxRows([row.outboxDeliveryId]);
    const outbox = row.outboxDeliveryId ? outboxes.get(row.outboxDeliveryId) : undefined;
    return {
      id,
      status: statusView(row, outbox),
      ...(row.failureReason ? { failureReason: row.failureReason } : {}),
      ...(outbox ? { delivery: outbox } : {}),
    };
  }

  async function me(userId: string): Promise<ActionOutcome<MessageMeView>> {
    const user = await loadUser(userId);
    if (!user.ok) return user;
    return ok({
      address: addressOf(user.value),
      did: user.value.did,
      encryptionKey: storedEncryptionKey(user.value),
      messagePrivacy: user.value.messagePrivacy,
    });
  }

  async function recipient(
    userId: string,
    input: string,
  ): Promise<ActionOutcome<MessageRecipientView>> {
    const caller = await loadUser(userId);
    if (!caller.ok) return caller;
    const address = parseMessageAddress(input, self);
    if (!address.ok) return refuse('BAD_REQUEST', `Not a valid address: ${address.reason}.`);
    const target = address.value;
    const handle = handleOf(target);
    const domain = domainOf(target) ?? self;
    if (target === addressOf(caller.value)) {
      return ok({
        address: target,
        displayName: caller.value.displayName,
        did: caller.value.did,
        encryptionKey: storedEncryptionKey(caller.value),
        acceptsMessages: false,
        reason: 'You cannot send a message to yourself.',
      });
    }
    if (domain === self) {
      const user = await prisma.user.findUnique({ where: { handle }, select: userSelect });
      if (!user) return refuse('NOT_FOUND', `There is no user ${handle} on this node.`);
      const encryptionKey = storedEncryptionKey(user);
      const acceptance = await checkAcceptance(prisma, {
        recipient: user,
        senderAddress: addressOf(caller.value),
        self,
      });
      const reason = !encryptionKey
        ? `${target} has not set up direct messages yet.`
        : acceptance.accepted
          ? undefined
          : MESSAGE_NOT_ACCEPTED_ERROR;
      return ok({
        address: target,
        displayName: user.displayName,
        did: user.did,
        encryptionKey,
        acceptsMessages: reason === undefined,
        ...(reason ? { reason } : {}),
      });
    }
    if (await registry.isBlocked(domain)) {
      return refuse('FORBIDDEN', `This node does not talk to ${domain} (blocked).`);
    }
    const answer = await peers.getJson(
      domain,
      `${SWARM_PATHS.user(handle)}?limit=0`,
      swarmUserResponseSchema,
    );
    if (!answer.ok) {
      const e = answer.error;
      if (e.kind === 'http' && e.status === 404)
        return refuse('NOT_FOUND', `There is no user ${handle} on ${domain}.`);
      // Their node is down: the key their profile last published lets the message wait in the
      // outbox (the browser checks its binding to the did it pinned, as always).
      const known = await prisma.remoteActor.findUnique({
        where: { nodeDomain_handle: { nodeDomain: domain, handle } },
        select: {
          handle: true,
          displayName: true,
          did: true,
          encryptionPublicKey: true,
          encryptionKeyCreatedAt: true,
          encryptionKeySignature: true,
        },
      });
      const cachedKey = known ? storedEncryptionKey(known) : null;
      if (known?.did && cachedKey) {
        return ok({
          address: `${known.handle}@${domain}`,
          displayName: known.displayName,
          did: known.did,
          encryptionKey: cachedKey,
          acceptsMessages: true,
        });
      }
      return refuse(e.kind === 'timeout' ? 'GATEWAY_TIMEOUT' : 'BAD_GATEWAY', describePeerError(e));
    }
    const { profile } = answer.value;
    // The profile's spelling of the handle when it is the one asked for.
    const shown =
      profile.handle.toLowerCase() === handle.toLowerCase()
        ? `${profile.handle}@${domain}`
        : target;
    await upsertRemoteActor(
      prisma,
      {
        handle: handleOf(shown),
        domain,
        displayName: profile.displayName,
        avatarUrl: profile.avatarUrl,
        bio: profile.bio,
      },
      { now: clock.now(), didToPin: profile.did, fetched: true },
    );
    const did = profile.did ?? null;
    let encryptionKey = profile.encryptionKey ?? null;
    let reason: string | undefined;
    if (encryptionKey && did) {
      const bound = await verifyEncryptionKey({ address: shown, did, encryptionKey });
      if (!bound) {
        logger.warn({ address: shown }, 'published encryption key is not bound to the did');
        encryptionKey = null;
        reason = `${shown} publishes an encryption key that their did did not sign.`;
      }
    }
    if (!reason && (!encryptionKey || !did)) {
      reason = `${shown} has not set up direct messages yet.`;
    }
    // Kept for when their node is down (only a key bound to the did their node publishes).
    await prisma.remoteActor.updateMany({
      where: { nodeDomain: domain, handle: handleOf(shown) },
      data: {
        encryptionPublicKey: encryptionKey?.publicKey ?? null,
        encryptionKeyCreatedAt: encryptionKey ? new Date(encryptionKey.createdAt) : null,
        encryptionKeySignature: encryptionKey?.signature ?? null,
      },
    });
    if (!reason && (await peerSupportsMessages(domain)) === 'no') reason = UNSUPPORTED_REASON;
    return ok({
      address: shown,
      displayName: profile.displayName,
      did,
      encryptionKey,
      acceptsMessages: reason === undefined,
      ...(reason ? { reason } : {}),
    });
  }

  return {
    peerSupportsMessages,

    async receive(sourceDomain, envelope, rawBody) {
      const source = parseDomain(sourceDomain);
      const senderDomain = domainOf(envelope.sender);
      if (domainOf(envelope.recipient) !== self) {
        return fail('FORBIDDEN', `The recipient ${envelope.recipient} is not a user of ${self}.`);
      }
      if (!source.ok || senderDomain !== source.value) {
        return fail(
          'FORBIDDEN',
          `A node may only deliver its own users' messages: ${sourceDomain} sent a message by ${envelope.sender}.`,
        );
      }
      const recipient = await prisma.user.findUnique({
        where: { handle: handleOf(envelope.recipient) },
        select: { id: true, messagePrivacy: true, ...ACCOUNT_FLAGS_SELECT },
      });
      if (!recipient || isHiddenAccount(recipient)) return fail('USER_NOT_FOUND', 'User not found');
      // A retry of an envelope already stored (its answer was lost) is answered as the first
      // time, even if the recipient has since changed who may write to them: it did arrive.
      const stored = canonicalJson(rawBody);
      const conflict: InboundMessageError = {
        code: 'MESSAGE_CONFLICT',
        message: `A different message with id ${envelope.id} was already received.`,
      };
      const already = await prisma.message.findUnique({
        where: { id: envelope.id },
        select: { envelope: true },
      });
      if (already)
        return already.envelope === stored ? ok({ messageId: envelope.id }) : err(conflict);
      if (!isTimeAcceptable(envelope.createdAt, clock.now())) {
        return fail(
          'INVALID_SIGNATURE',
          'The message createdAt is stale (over 7 days old) or in the future (over 5 minutes ahead).',
        );
      }
      const proved = await dids.prove(
        envelope.sender,
        envelope.senderDid,
        async (did) => did === envelope.senderDid && (await verifyEnvelopeSignature(rawBody)),
      );
      if (!proved.ok) return fail('INVALID_SIGNATURE', `The message is refused: ${proved.reason}.`);
      const acceptance = await checkAcceptance(prisma, {
        recipient,
        senderAddress: envelope.sender,
        self,
      });
      if (!acceptance.accepted) return fail('FORBIDDEN', MESSAGE_NOT_ACCEPTED_ERROR);

      try {
        await prisma.$transaction(async (tx) => {
          const { count } = await tx.message.createMany({
            data: [
              {
                id: envelope.id,
                senderAddress: envelope.sender,
                senderDid: envelope.senderDid,
                recipientAddress: envelope.recipient,
                createdAt: new Date(envelope.createdAt),
                receivedAt: clock.now(),
                envelope: stored,
                localRecipientId: recipient.id,
                status: 'sent',
              },
            ],
            skipDuplicates: true,
          });
          if (count === 0) {
            // The same id stored meanwhile (a concurrent retry): answered as above.
            const existing = await tx.message.findUnique({
              where: { id: envelope.id },
              select: { envelope: true },
            });
            if (existing?.envelope !== stored) throw new Refusal(conflict);
            return;
          }
          await dids.pin(tx, proved.value.pin);
        }, TX_OPTIONS);
      } catch (error) {
        if (error instanceof Refusal) return err(error.failure);
        throw error;
      }
      return ok({ messageId: envelope.id });
    },

    async receiveReceipt(sourceDomain, receipt, rawBody) {
      const source = parseDomain(sourceDomain);
      const recipientDomain = domainOf(receipt.recipient);
      if (domainOf(receipt.sender) !== self) {
        return fail('FORBIDDEN', `The sender ${receipt.sender} is not a user of ${self}.`);
      }
      if (!source.ok || recipientDomain !== source.value) {
        return fail(
          'FORBIDDEN',
          `A node may only deliver its own users' receipts: ${sourceDomain} sent one by ${receipt.recipient}.`,
        );
      }
      const row = await prisma.message.findFirst({
        where: {
          id: receipt.messageId,
          senderAddress: receipt.sender,
          recipientAddress: receipt.recipient,
          localSenderId: { not: null },
        },
        select: { id: true, status: true, deliveredAt: true, readAt: true },
      });
      if (!row) return fail('NOT_FOUND', `No message ${receipt.messageId} between these people.`);
      if (!isTimeAcceptable(receipt.at, clock.now())) {
        return fail('INVALID_SIGNATURE', 'The receipt time is stale or in the future.');
      }
      const proved = await dids.prove(
        receipt.recipient,
        receipt.recipientDid,
        async (did) => did === receipt.recipientDid && (await verifyReceipt(rawBody)),
      );
      if (!proved.ok) return fail('INVALID_SIGNATURE', `The receipt is refused: ${proved.reason}.`);
      const update = advance(row, receipt.status, new Date(receipt.at));
      if (!update) return ok({ changed: false });
      // Conditional on the status read above: a concurrent receipt cannot move it backwards.
      const count = await prisma.$transaction(async (tx) => {
        const updated = await tx.message.updateMany({
          where: { id: row.id, status: row.status },
          data: update as Prisma.MessageUpdateManyMutationInput,
        });
        await dids.pin(tx, proved.value.pin);
        return updated.count;
      }, TX_OPTIONS);
      return ok({ changed: count === 1 });
    },

    me,
    recipient,

    async setEncryptionKey(userId, input) {
      const user = await loadUser(userId);
      if (!user.ok) return user;
      if (!user.value.did)
        return refuse('BAD_REQUEST', 'Register your signing key before an encryption key.');
      const { encryptedKeyBackup, ...binding } = input;
      const key = parseWith(encryptionKeySchema, binding);
      if (!key.ok) return refuse('BAD_REQUEST', `The encryption key is not valid: ${key.reason}.`);
      if (!(await importEncryptionPublicKey(key.value.publicKey)).ok)
        return refuse('BAD_REQUEST', 'The encryption key is not a P-256 public key.');
      const bound = await verifyEncryptionKey({
        address: addressOf(user.value),
        did: user.value.did,
        encryptionKey: key.value,
      });
      if (!bound)
        return refuse('BAD_REQUEST', 'The encryption key is not signed by your signing key.');
      if (typeof encryptedKeyBackup !== 'string' || encryptedKeyBackup.length === 0)
        return refuse('BAD_REQUEST', 'The key backup is missing.');
      if (new TextEncoder().encode(encryptedKeyBackup).length > KEY_BACKUP_MAX_BYTES)
        return refuse(
          'BAD_REQUEST',
          `The key backup is larger than ${KEY_BACKUP_MAX_BYTES} bytes.`,
        );
      let backup: unknown;
      try {
        backup = JSON.parse(encryptedKeyBackup);
      } catch {
        backup = null;
      }
      if (typeof backup !== 'object' || backup === null || Array.isArray(backup))
        return refuse('BAD_REQUEST', 'The key backup must be a JSON object.');
      if ((backup as { version?: unknown }).version !== 2)
        return refuse(
          'BAD_REQUEST',
          'The key backup must be version 2 (signing and encryption keys).',
        );
      // One UPDATE: the key and the backup that holds its private half change together.
      await prisma.user.update({
        where: { id: userId },
        data: {
          encryptionPublicKey: key.value.publicKey,
          encryptionKeyCreatedAt: new Date(key.value.createdAt),
          encryptionKeySignature: key.value.signature,
          encryptedKeyBackup,
        },
      });
      return me(userId);
    },

    async send(userId, raw) {
      const user = await loadUser(userId);
      if (!user.ok) return user;
      const parsed = parseWith(messageEnvelopeSchema, raw);
      if (!parsed.ok) return refuse('BAD_REQUEST', `The message is not valid: ${parsed.reason}.`);
      const envelope = parsed.value;
      const me = addressOf(user.value);
      if (envelope.sender !== me)
        return refuse('FORBIDDEN', `You can only send messages as yourself (${me}).`);
      if (!user.value.did || envelope.senderDid !== user.value.did)
        return refuse('BAD_REQUEST', 'senderDid is not the did of your registered key.');
      if (!isTimeAcceptable(envelope.createdAt, clock.now()))
        return refuse('BAD_REQUEST', 'The message time is too far from this node’s clock.');
      if (!(await verifyEnvelopeSignature(raw)))
        return refuse('BAD_REQUEST', 'The message signature does not verify under your key.');
      const stored = canonicalJson(raw);

      const existing = await prisma.message.findUnique({
        where: { id: envelope.id },
        select: { envelope: true, localSenderId: true },
      });
      if (existing) {
        if (existing.localSenderId === userId && existing.envelope === stored)
          return ok(await sendResult(envelope.id));
        return refuse('CONFLICT', `Another message with id ${envelope.id} exists.`);
      }

      const recipientDomain = domainOf(envelope.recipient)!;
      const base = {
        id: envelope.id,
        senderAddress: envelope.sender,
        senderDid: envelope.senderDid,
        recipientAddress: envelope.recipient,
        createdAt: new Date(envelope.createdAt),
        receivedAt: clock.now(),
        envelope: stored,
        localSenderId: userId,
      };

      if (recipientDomain === self) {
        const recipient = await prisma.user.findUnique({
          where: { handle: handleOf(envelope.recipient) },
          select: { id: true, messagePrivacy: true },
        });
        if (!recipient)
          return refuse('NOT_FOUND', `There is no user ${envelope.recipient} on this node.`);
        const acceptance = await checkAcceptance(prisma, {
          recipient,
          senderAddress: me,
          self,
        });
        if (!acceptance.accepted) return refuse('FORBIDDEN', MESSAGE_NOT_ACCEPTED_ERROR);
        const { count } = await prisma.message.createMany({
          data: [{ ...base, localRecipientId: recipient.id, status: 'sent' }],
          skipDuplicates: true,
        });
        if (count === 0)
          return refuse('CONFLICT', `Another message with id ${envelope.id} exists.`);
        return ok(await sendResult(envelope.id));
      }

      if (await registry.isBlocked(recipientDomain))
        return refuse('FORBIDDEN', `This node does not talk to ${recipientDomain} (blocked).`);
      if ((await peerSupportsMessages(recipientDomain)) === 'no') {
        await prisma.message.createMany({
          data: [{ ...base, status: 'failed', failureReason: UNSUPPORTED_REASON }],
          skipDuplicates: true,
        });
        return ok(await sendResult(envelope.id));
      }
      const outboxId = await prisma.$transaction(async (tx) => {
        const { count } = await tx.message.createMany({
          data: [{ ...base, status: 'sending' }],
          skipDuplicates: true,
        });
        if (count === 0) return null;
        const id = await delivery.enqueue(tx, {
          targetDomain: recipientDomain,
          kind: 'message',
          body: raw as Record<string, unknown>,
          interactionId: envelope.id,
          createdById: userId,
        });
        await tx.message.update({ where: { id: envelope.id }, data: { outboxDeliveryId: id } });
        return id;
      }, TX_OPTIONS);
      if (!outboxId) {
        // A concurrent send of the same id (a double submit) won the insert.
        const raced = await prisma.message.findUnique({
          where: { id: envelope.id },
          select: { envelope: true, localSenderId: true },
        });
        if (raced?.localSenderId === userId && raced.envelope === stored)
          return ok(await sendResult(envelope.id));
        return refuse('CONFLICT', `Another message with id ${envelope.id} exists.`);
      }
      await delivery.attempt([outboxId]);
      return ok(await sendResult(envelope.id));
    },

    async conversations(userId) {
      const user = await loadUser(userId);
      if (!user.ok) return user;
      const blocked = await blockedAddresses(userId);
      // Incoming messages of blocked people are hidden; one's own stay.
      const visible: Prisma.MessageWhereInput = {
        OR: [
          { localSenderId: userId },
          {
            localRecipientId: userId,
            ...(blocked.length > 0 ? { senderAddress: { notIn: blocked } } : {}),
          },
        ],
      };
      const latest = await prisma.$queryRaw<
        { other: string; id: string; created_at: Date; envelope: string }[]
      >`
        SELECT DISTINCT ON (other) other, id::text AS id, created_at, envelope FROM (
          SELECT CASE WHEN local_sender_id = ${userId}::uuid THEN recipient_address
                      ELSE sender_address END AS other, id, created_at, envelope
          FROM messages
          WHERE local_sender_id = ${userId}::uuid
             OR (local_recipient_id = ${userId}::uuid
                 AND NOT EXISTS (SELECT 1 FROM user_blocks b
                                 WHERE b.user_id = ${userId}::uuid
                                   AND b.blocked_address = messages.sender_address))
        ) m
        ORDER BY other, created_at DESC, id DESC`;
      const unread = await prisma.message.groupBy({
        by: ['senderAddress'],
        where: { AND: [visible, { localRecipientId: userId, readAt: null }] },
        _count: true,
      });
      const unreadBy = new Map(unread.map((u) => [u.senderAddress, u._count]));
      const names = await knownPeople(latest.map((l) => l.other));
      const list = latest
        .sort((a, b) => b.created_at.getTime() - a.created_at.getTime())
        .slice(0, CONVERSATIONS_MAX)
        .map((l): ConversationView => {
          const name = names.get(l.other)?.displayName;
          return {
            with: l.other,
            ...(name ? { withDisplayName: name } : {}),
            lastMessageAt: formatTimestamp(l.created_at),
            lastEnvelope: JSON.parse(l.envelope) as MessageEnvelope,
            unread: unreadBy.get(l.other) ?? 0,
          };
        });
      return ok(list);
    },

    async unreadCount(userId) {
      const blocked = await blockedAddresses(userId);
      return prisma.message.count({
        where: {
          localRecipientId: userId,
          readAt: null,
          ...(blocked.length > 0 ? { senderAddress: { notIn: blocked } } : {}),
        },
      });
    },

    async thread(userId, query) {
      const user = await loadUser(userId);
      if (!user.ok) return user;
      const other = parseMessageAddress(query.with, self);
      if (!other.ok) return refuse('BAD_REQUEST', `Not a valid address: ${other.reason}.`);
      let before: Date | undefined;
      if (query.before) {
        before = new Date(query.before);
        if (Number.isNaN(before.getTime()))
          return refuse('BAD_REQUEST', '`before` is not a timestamp.');
      }
      const blocked = await prisma.userBlock.findUnique({
        where: { userId_blockedAddress: { userId, blockedAddress: other.value } },
        select: { id: true },
      });
      const rows = await prisma.message.findMany({
        where: {
          OR: [
            { localSenderId: userId, recipientAddress: other.value },
            ...(blocked ? [] : [{ localRecipientId: userId, senderAddress: other.value }]),
          ],
          ...(before ? { createdAt: { lt: before } } : {}),
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: THREAD_PAGE,
        select: messageSelect,
      });
      const outboxes = await outboxRows(rows.map((r) => r.outboxDeliveryId));
      const messages = rows.reverse().map((r) => toMessageView(r, userId, outboxes));
      const oldest = rows[0];
      // Who the other person is, as this node knows them (no network: the thread is polled
      // while open; the browser asks `recipient` for their key).
      const known = (await knownPeople([other.value])).get(other.value);
      const withView: ThreadView['with'] = {
        address: other.value,
        displayName: known?.displayName ?? '',
        did: known?.did ?? null,
      };
      return ok({
        messages,
        with: withView,
        olderCursor:
          rows.length === THREAD_PAGE && oldest ? formatTimestamp(oldest.createdAt) : null,
      });
    },

    async receipt(userId, raw) {
      const user = await loadUser(userId);
      if (!user.ok) return user;
      const parsed = parseWith(messageReceiptSchema, raw);
      if (!parsed.ok) return refuse('BAD_REQUEST', `The receipt is not valid: ${parsed.reason}.`);
      const receipt = parsed.value;
      const me = addressOf(user.value);
      if (receipt.recipient !== me || receipt.recipientDid !== user.value.did)
        return refuse('FORBIDDEN', 'You can only sign receipts for messages sent to you.');
      if (!isTimeAcceptable(receipt.at, clock.now()))
        return refuse('BAD_REQUEST', 'The receipt time is too far from this node’s clock.');
      if (!(await verifyReceipt(raw)))
        return refuse('BAD_REQUEST', 'The receipt signature does not verify under your key.');
      const row = await prisma.message.findFirst({
        where: {
          id: receipt.messageId,
          localRecipientId: userId,
          senderAddress: receipt.sender,
          recipientAddress: me,
        },
        select: {
          id: true,
          status: true,
          deliveredAt: true,
          readAt: true,
          localSenderId: true,
        },
      });
      if (!row) return refuse('NOT_FOUND', `No message ${receipt.messageId} to you.`);
      const update = advance(row, receipt.status, clock.now());
      if (!update) return ok({ status: row.status as MessageStatusView });
      const senderDomain = domainOf(receipt.sender)!;
      const outboxId = await prisma.$transaction(async (tx) => {
        const { count } = await tx.message.updateMany({
          where: { id: row.id, status: row.status },
          data: update as Prisma.MessageUpdateManyMutationInput,
        });
        // The sender is on this node (same row) or has no node to tell.
        if (count === 0 || row.localSenderId || senderDomain === self) return null;
        return delivery.enqueue(tx, {
          targetDomain: senderDomain,
          kind: 'receipt',
          body: raw as Record<string, unknown>,
          interactionId: `${receipt.messageId}:${receipt.status}`,
          createdById: userId,
        });
      }, TX_OPTIONS);
      if (outboxId) await delivery.attempt([outboxId]);
      const now = await prisma.message.findUniqueOrThrow({
        where: { id: row.id },
        select: { status: true },
      });
      return ok({ status: now.status as MessageStatusView });
    },

    async block(userId, input) {
      const user = await loadUser(userId);
      if (!user.ok) return user;
      const address = parseMessageAddress(input, self);
      if (!address.ok) return refuse('BAD_REQUEST', `Not a valid address: ${address.reason}.`);
      if (address.value === addressOf(user.value))
        return refuse('BAD_REQUEST', 'You cannot block yourself.');
      // The one block list (issue #15): the same effects as blocking from a profile.
      await applyBlock(prisma, { userId, address: address.value, self, at: clock.now() });
      return ok(await listBlocks(userId));
    },

    async unblock(userId, input) {
      const address = parseMessageAddress(input, self);
      if (!address.ok) return refuse('BAD_REQUEST', `Not a valid address: ${address.reason}.`);
      await prisma.userBlock.deleteMany({ where: { userId, blockedAddress: address.value } });
      return ok(await listBlocks(userId));
    },

    blocks: listBlocks,

    async privacy(userId) {
      const user = await prisma.user.findUnique({
        where: { id: userId },
        select: { messagePrivacy: true },
      });
      return user?.messagePrivacy ?? 'everyone';
    },

    async setPrivacy(userId, privacy) {
      const { count } = await prisma.user.updateMany({
        where: { id: userId },
        data: { messagePrivacy: privacy },
      });
      return count === 1
        ? ok(privacy)
        : refuse('UNAUTHORIZED', 'Your account does not exist any more: sign in again.');
    },
  };
}
