import type { Db } from '@swarm/db';

// Who may act on a local user: the one block list (safety/), read by every use case that a
// blocked person could reach (interactions in and out, posts, messages).

/** Whether the local user `ownerId` blocked `address` (`handle@domain`, any case). */
export async function isBlockedBy(
  prisma: Pick<Db['prisma'], 'userBlock'>,
  ownerId: string,
  address: string,
): Promise<boolean> {
  const count = await prisma.userBlock.count({
    where: { userId: ownerId, blockedAddress: { equals: address, mode: 'insensitive' } },
  });
  return count > 0;
}

/** The refusal a blocked local user meets (the same words everywhere). */
export const BLOCKED_MESSAGE = 'This person does not accept interactions from you.';
