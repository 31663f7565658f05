import { formatTimestamp, ok, type MessageEnvelope, type Result } from '@swarm/contract';
import type { Prisma } from '@swarm/db';
import { refuse, type Refusal } from '../refusal.ts';
import { toDeliveryView } from '../delivery/delivery-policy.ts';
import { latestPerConversationSql } from '../persistence/messages.sql.ts';
import type { MessageService } from './message-types.ts';
import {
  CONVERSATIONS_MAX,
  domainOf,
  handleOf,
  messageSelect,
  storedEncryptionKey,
  THREAD_PAGE,
  type MessageContext,
  type MessageRow,
} from './message-support.ts';
import type {
  ConversationView,
  MessageDeliveryView,
  MessageMeView,
  MessageStatusView,
  MessageView,
  SendResult,
  ThreadView,
} from './message-views.ts';
import { parsePersonAddress } from '../views/addresses.ts';

// What a user reads: their messaging identity, conversations, threads, unread counts.

export function createMessageReads(ctx: MessageContext): Pick<
  MessageService,
  'me' | 'conversations' | 'unreadCount' | 'thread'
> & {
  sendResult(id: string): Promise<SendResult>;
} {
  const { prisma, clock, self, addressOf, loadUser } = ctx;

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

  async function me(userId: string): Promise<Result<MessageMeView, Refusal>> {
    const user = await loadUser(userId);
    if (!user.ok) return user;
    return ok({
      address: addressOf(user.value),
      did: user.value.did,
      encryptionKey: storedEncryptionKey(user.value),
      messagePrivacy: user.value.messagePrivacy,
    });
  }

  return {
    me,
    /** The sender's view of a message just sent. */
    sendResult,

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
      >(latestPerConversationSql(userId));
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
      const other = parsePersonAddress(query.with, self);
      if (!other.ok) return refuse('INVALID_REQUEST', `Not a valid address: ${other.reason}.`);
      let before: Date | undefined;
      if (query.before) {
        before = new Date(query.before);
        if (Number.isNaN(before.getTime()))
          return refuse('INVALID_REQUEST', '`before` is not a timestamp.');
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
  };
}
