import {
  MESSAGE_NOT_ACCEPTED_ERROR,
  canonicalJson,
  err,
  ok,
  parseDomain,
  verifyEnvelopeSignature,
  verifyReceipt,
} from '@swarm/contract';
import type { Prisma } from '@swarm/db';
import { inTransaction, RefusalError, TX_OPTIONS } from '../refusal.ts';
import { checkAcceptance } from './message-acceptance.ts';
import { ACCOUNT_FLAGS_SELECT, isHiddenAccount } from '../views/visibility.ts';
import type {
  InboundMessageError,
  InboundMessageErrorCode,
  MessageService,
} from './message-types.ts';
import {
  advance,
  domainOf,
  handleOf,
  isTimeAcceptable,
  messageRow,
  type MessageContext,
} from './message-support.ts';

// Messages and receipts other nodes deliver (`POST /api/swarm/messages`, `.../receipts`).

const fail = <C extends InboundMessageErrorCode>(code: C, message: string) =>
  err({ code, message });

export function createInboundMessages(
  ctx: MessageContext,
): Pick<MessageService, 'receive' | 'receiveReceipt'> {
  const { db, prisma, clock, self, dids } = ctx;

  return {
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
      // A suspended account (or one waiting for approval) answers as one that does not exist.
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

      const written = await inTransaction<void, InboundMessageErrorCode>(db, async (tx) => {
        const { count } = await tx.message.createMany({
          data: [
            {
              ...messageRow(envelope, stored, clock.now()),
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
          if (existing?.envelope !== stored) throw new RefusalError(conflict);
          return;
        }
        await dids.pin(tx, proved.value.pin);
      });
      if (!written.ok) return written;
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
  };
}
