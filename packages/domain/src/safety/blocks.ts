import { formatActorUrl, parseHandleAddress } from '@swarm/contract';
import { localActorKey, type Db } from '@swarm/db';
import { removeFollow } from '../interactions/interaction-effects.ts';

/**
 * The block and its effect, in one transaction: the row (idempotent), and the blocked person's
 * follow of the blocker removed (counters and the follow notification with it). Used by the
 * settings and by the messages' block button alike.
 */
export async function applyBlock(
  prisma: Db['prisma'],
  input: { userId: string; address: string; self: string; at: Date },
): Promise<void> {
  const parsed = parseHandleAddress(input.address);
  await prisma.$transaction(async (tx) => {
    await tx.userBlock.createMany({
      data: [{ userId: input.userId, blockedAddress: input.address, createdAt: input.at }],
      skipDuplicates: true,
    });
    if (!parsed.ok) return;
    const { handle, domain } = parsed.value;
    let followerKey: string | null;
    if (domain === input.self) {
      const user = await tx.user.findUnique({
        where: { handle: handle.toLowerCase() },
        select: { id: true },
      });
      followerKey = user ? localActorKey(user.id) : null;
    } else {
      followerKey = formatActorUrl({ handle, domain });
    }
    if (followerKey) {
      await removeFollow(tx, { followerKey, followeeKey: localActorKey(input.userId) });
    }
  });
}
