import {
  MESSAGE_NOT_ACCEPTED_ERROR,
  SWARM_PATHS,
  canonicalJson,
  messageEnvelopeSchema,
  messageReceiptSchema,
  nodeInfoSchema,
  ok,
  parseWith,
  swarmUserResponseSchema,
  verifyEncryptionKey,
  verifyEnvelopeSignature,
  verifyReceipt,
  type Result,
} from '@swarm/contract';
import type { Prisma } from '@swarm/db';
import { refuse, TX_OPTIONS, type Refusal } from '../refusal.ts';
import { upsertRemoteActor } from '../interactions/interaction-effects.ts';
import { describePeerError } from '../peers/index.ts';
import { checkAcceptance } from './message-acceptance.ts';
import type { MessageService } from './message-types.ts';
import {
  advance,
  domainOf,
  ENCRYPTION_KEY_SELECT,
  handleOf,
  isTimeAcceptable,
  messageRow,
  storedEncryptionKey,
  UNSUPPORTED_REASON,
  userSelect,
  type MessageContext,
} from './message-support.ts';
import { parseCapabilities } from '../registry/capabilities.ts';
import type { MessageRecipientView, MessageStatusView, SendResult } from './message-views.ts';
import { parsePersonAddress } from '../views/addresses.ts';

// What a user sends: messages and receipts, with the recipient's key and node looked up first.

export function createOutboundMessages(
  ctx: MessageContext,
  sendResult: (id: string) => Promise<SendResult>,
): Pick<MessageService, 'peerSupportsMessages' | 'recipient' | 'send' | 'receipt'> {
  const { prisma, clock, logger, self, peers, delivery, registry, addressOf, loadUser } = ctx;

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

  async function recipient(
    userId: string,
    input: string,
  ): Promise<Result<MessageRecipientView, Refusal>> {
    const caller = await loadUser(userId);
    if (!caller.ok) return caller;
    const address = parsePersonAddress(input, self);
    if (!address.ok) return refuse('INVALID_REQUEST', `Not a valid address: ${address.reason}.`);
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
      if (!user) return refuse('USER_NOT_FOUND', `There is no user ${handle} on this node.`);
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
      const e = answer.reason;
      if (e.kind === 'http' && e.status === 404)
        return refuse('USER_NOT_FOUND', `There is no user ${handle} on ${domain}.`);
      // Their node is down: the key their profile last published lets the message wait in the
      // outbox (the browser checks its binding to the did it pinned, as always).
      const known = await prisma.remoteActor.findUnique({
        where: { nodeDomain_handle: { nodeDomain: domain, handle } },
        select: {
          handle: true,
          displayName: true,
          did: true,
          ...ENCRYPTION_KEY_SELECT,
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
      return refuse(
        e.kind === 'timeout' ? 'PEER_TIMEOUT' : 'PEER_UNAVAILABLE',
        describePeerError(e),
      );
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
    // A node of the origin profile publishes no keys: its users did not fail to set anything up.
    if (!reason && (await peerSupportsMessages(domain)) === 'no') {
      reason = `${domain} cannot carry end-to-end encrypted messages, so ${shown} cannot be written to from here.`;
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
    recipient,

    async send(userId, raw) {
      const user = await loadUser(userId);
      if (!user.ok) return user;
      const parsed = parseWith(messageEnvelopeSchema, raw);
      if (!parsed.ok)
        return refuse('INVALID_REQUEST', `The message is not valid: ${parsed.reason}.`);
      const envelope = parsed.value;
      const me = addressOf(user.value);
      if (envelope.sender !== me)
        return refuse('FORBIDDEN', `You can only send messages as yourself (${me}).`);
      if (!user.value.did || envelope.senderDid !== user.value.did)
        return refuse('INVALID_REQUEST', 'senderDid is not the did of your registered key.');
      if (!isTimeAcceptable(envelope.createdAt, clock.now()))
        return refuse('INVALID_REQUEST', 'The message time is too far from this node’s clock.');
      if (!(await verifyEnvelopeSignature(raw)))
        return refuse('INVALID_REQUEST', 'The message signature does not verify under your key.');
      const stored = canonicalJson(raw);

      const existing = await prisma.message.findUnique({
        where: { id: envelope.id },
        select: { envelope: true, localSenderId: true },
      });
      if (existing) {
        if (existing.localSenderId === userId && existing.envelope === stored)
          return ok(await sendResult(envelope.id));
        return refuse('MESSAGE_CONFLICT', `Another message with id ${envelope.id} exists.`);
      }

      const recipientDomain = domainOf(envelope.recipient)!;
      const base = { ...messageRow(envelope, stored, clock.now()), localSenderId: userId };

      if (recipientDomain === self) {
        const recipient = await prisma.user.findUnique({
          where: { handle: handleOf(envelope.recipient) },
          select: { id: true, messagePrivacy: true },
        });
        if (!recipient)
          return refuse('USER_NOT_FOUND', `There is no user ${envelope.recipient} on this node.`);
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
          return refuse('MESSAGE_CONFLICT', `Another message with id ${envelope.id} exists.`);
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
        return refuse('MESSAGE_CONFLICT', `Another message with id ${envelope.id} exists.`);
      }
      await delivery.attempt([outboxId]);
      return ok(await sendResult(envelope.id));
    },

    async receipt(userId, raw) {
      const user = await loadUser(userId);
      if (!user.ok) return user;
      const parsed = parseWith(messageReceiptSchema, raw);
      if (!parsed.ok)
        return refuse('INVALID_REQUEST', `The receipt is not valid: ${parsed.reason}.`);
      const receipt = parsed.value;
      const me = addressOf(user.value);
      if (receipt.recipient !== me || receipt.recipientDid !== user.value.did)
        return refuse('FORBIDDEN', 'You can only sign receipts for messages sent to you.');
      if (!isTimeAcceptable(receipt.at, clock.now()))
        return refuse('INVALID_REQUEST', 'The receipt time is too far from this node’s clock.');
      if (!(await verifyReceipt(raw)))
        return refuse('INVALID_REQUEST', 'The receipt signature does not verify under your key.');
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
  };
}
