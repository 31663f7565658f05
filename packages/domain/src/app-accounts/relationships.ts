import { localActorKey, type Db } from '@swarm/db';
import { addressKey } from '../views/visibility.ts';
import type { AppAccount } from './account-records.ts';

/**
 * What a person has to do with others, as apps ask it in one call for a list of accounts:
 * whether they follow (accepted, or `requested` while another node has not answered), are
 * followed by, muted, blocked, are blocked by (only a local person's block is known here), and
 * muted the person's whole node (`domainBlocking`).
 */

export interface Relationship {
  id: string;
  following: boolean;
  requested: boolean;
  followedBy: boolean;
  muting: boolean;
  blocking: boolean;
  blockedBy: boolean;
  domainBlocking: boolean;
}

/** The actor key follows use for a record: `local:<id>` or the remote actor's URL. */
async function actorKeys(
  prisma: Db['prisma'],
  accounts: readonly AppAccount[],
): Promise<Map<string, string>> {
  const keys = new Map<string, string>();
  const remoteIds = accounts.filter((a) => a.isRemote).map((a) => a.id);
  for (const a of accounts) if (!a.isRemote) keys.set(a.id, localActorKey(a.id));
  if (remoteIds.length) {
    const rows = await prisma.remoteActor.findMany({
      where: { id: { in: remoteIds } },
      select: { id: true, actorUrl: true },
    });
    for (const row of rows) keys.set(row.id, row.actorUrl);
  }
  return keys;
}

export async function relationshipsOf(
  prisma: Db['prisma'],
  viewer: { id: string; handle: string },
  accounts: readonly AppAccount[],
  self: string,
): Promise<Relationship[]> {
  if (accounts.length === 0) return [];
  const me = localActorKey(viewer.id);
  const keys = await actorKeys(prisma, accounts);
  const others = [...keys.values()];
  const myAddress = `${viewer.handle}@${self}`;
  const localIds = accounts.filter((a) => !a.isRemote).map((a) => a.id);
  const [mine, theirs, mutes, blocks, blockers] = await Promise.all([
    prisma.follow.findMany({
      where: { followerKey: me, followeeKey: { in: others } },
      select: { followeeKey: true, state: true },
    }),
    prisma.follow.findMany({
      where: { followeeKey: me, followerKey: { in: others }, state: 'accepted' },
      select: { followerKey: true },
    }),
    prisma.userMute.findMany({
      where: { userId: viewer.id },
      select: { kind: true, target: true },
    }),
    prisma.userBlock.findMany({ where: { userId: viewer.id }, select: { blockedAddress: true } }),
    localIds.length
      ? prisma.userBlock.findMany({
          where: {
            userId: { in: localIds },
            blockedAddress: { equals: myAddress, mode: 'insensitive' },
          },
          select: { userId: true },
        })
      : [],
  ]);
  const followState = new Map(mine.map((f) => [f.followeeKey, f.state]));
  const followers = new Set(theirs.map((f) => f.followerKey));
  const mutedPeople = new Set(
    mutes.filter((m) => m.kind !== 'node').map((m) => m.target.toLowerCase()),
  );
  const mutedNodes = new Set(
    mutes.filter((m) => m.kind === 'node').map((m) => m.target.toLowerCase()),
  );
  const blocked = new Set(blocks.map((b) => b.blockedAddress.toLowerCase()));
  const blockedBy = new Set(blockers.map((b) => b.userId));
  return accounts.map((a) => {
    const key = keys.get(a.id) ?? '';
    const address = addressKey(a.handle, a.domain);
    const state = followState.get(key);
    return {
      id: a.id,
      following: state === 'accepted',
      requested: state === 'pending',
      followedBy: followers.has(key),
      muting: mutedPeople.has(address),
      blocking: blocked.has(address),
      blockedBy: blockedBy.has(a.id),
      domainBlocking: mutedNodes.has(a.domain.toLowerCase()),
    };
  });
}
