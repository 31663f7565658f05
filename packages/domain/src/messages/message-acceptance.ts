import { formatActorUrl, parseHandleAddress, type MessagePrivacy } from '@swarm/contract';
import { localActorKey } from '@swarm/db';
import type { Tx } from '../interactions/interaction-effects.ts';

/**
 * Whether a recipient accepts a message from a sender: the one rule for messages from this
 * node's own users (tRPC send) and from other nodes (POST /api/swarm/messages), so a local
 * sender gets no way around privacy or blocks. Reads only.
 */

export interface AcceptanceInput {
  recipient: { id: string; messagePrivacy: MessagePrivacy };
  /** `handle@domain` of the sender. */
  senderAddress: string;
  /** This node's domain: a sender of this domain is a local user. */
  self: string;
}

export type Acceptance = { accepted: true } | { accepted: false; why: 'privacy' | 'blocked' };

/** Reads through a transaction or the client alike. */
type Reader = Pick<Tx, 'user' | 'follow' | 'userBlock'>;

export async function checkAcceptance(db: Reader, input: AcceptanceInput): Promise<Acceptance> {
  const { recipient, senderAddress, self } = input;
  const blocked = await db.userBlock.findUnique({
    where: { userId_blockedAddress: { userId: recipient.id, blockedAddress: senderAddress } },
    select: { id: true },
  });
  if (blocked) return { accepted: false, why: 'blocked' };
  if (recipient.messagePrivacy === 'everyone') return { accepted: true };
  if (recipient.messagePrivacy === 'nobody') return { accepted: false, why: 'privacy' };
  // `following`: the recipient follows the sender (an accepted follow, local or remote).
  const followeeKey = await actorKeyOf(db, senderAddress, self);
  if (!followeeKey) return { accepted: false, why: 'privacy' };
  const follow = await db.follow.findUnique({
    where: {
      followerKey_followeeKey: { followerKey: localActorKey(recipient.id), followeeKey },
    },
    select: { state: true },
  });
  return follow?.state === 'accepted' ? { accepted: true } : { accepted: false, why: 'privacy' };
}

/** `local:<id>` for a user of this node, the actor URL otherwise; null for no such local user. */
async function actorKeyOf(db: Reader, address: string, self: string): Promise<string | null> {
  const parsed = parseHandleAddress(address);
  if (!parsed.ok) return null;
  const { handle, domain } = parsed.value;
  if (domain !== self) return formatActorUrl({ handle, domain });
  const user = await db.user.findUnique({ where: { handle }, select: { id: true } });
  return user ? localActorKey(user.id) : null;
}
