import { ok, type Result } from '@swarm/contract';
import type { Db } from '@swarm/db';
import { localActorKey } from '@swarm/db';
import { refuse, type Refusal } from '../refusal.ts';
import { parsePersonAddress } from '../views/addresses.ts';
import type { MemberRef } from './list-types.ts';

/** A person named by a `MemberRef` whom the owner follows: their follow row's keys. */
export interface FollowedMember {
  memberKey: string;
  memberUserId: string | null;
  memberRemoteActorId: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function shown(ref: MemberRef): string {
  return ('address' in ref ? ref.address : ref.accountId).slice(0, 100);
}

/**
 * Where `ref` names a person: a local user or a remote actor stored here (an account id is
 * either one's UUID), or null when nobody here has that address or id.
 */
async function personWhere(
  prisma: Db['prisma'],
  ref: MemberRef,
  self: string,
): Promise<Result<{ followeeUserId: string } | { followeeRemoteActorId: string } | null, Refusal>> {
  if ('accountId' in ref) {
    if (typeof ref.accountId !== 'string' || !UUID.test(ref.accountId)) return ok(null);
    const [user, actor] = await Promise.all([
      prisma.user.findUnique({ where: { id: ref.accountId }, select: { id: true } }),
      prisma.remoteActor.findUnique({ where: { id: ref.accountId }, select: { id: true } }),
    ]);
    if (user) return ok({ followeeUserId: user.id });
    return ok(actor ? { followeeRemoteActorId: actor.id } : null);
  }
  const address = parsePersonAddress(ref.address, self);
  if (!address.ok) {
    return refuse('INVALID_REQUEST', `Not a valid address: ${address.reason}.`, {
      field: 'address',
    });
  }
  const at = address.value.lastIndexOf('@');
  const handle = address.value.slice(0, at);
  const domain = address.value.slice(at + 1);
  if (domain === self) {
    const user = await prisma.user.findUnique({ where: { handle }, select: { id: true } });
    return ok(user ? { followeeUserId: user.id } : null);
  }
  const actor = await prisma.remoteActor.findFirst({
    where: { nodeDomain: domain, handle: { equals: handle, mode: 'insensitive' } },
    select: { id: true },
  });
  return ok(actor ? { followeeRemoteActorId: actor.id } : null);
}

/** The person `ref` names, if the owner follows them (accepted, or pending on another node). */
export async function followedMember(
  prisma: Db['prisma'],
  ownerId: string,
  ref: MemberRef,
  self: string,
): Promise<Result<FollowedMember, Refusal>> {
  const person = await personWhere(prisma, ref, self);
  if (!person.ok) return person;
  const follow = person.value
    ? await prisma.follow.findFirst({
        where: { followerKey: localActorKey(ownerId), ...person.value },
        select: { followeeKey: true, followeeUserId: true, followeeRemoteActorId: true },
      })
    : null;
  if (!follow) {
    return refuse('NOT_FOLLOWED', `Lists hold people you follow: follow ${shown(ref)} first.`, {
      field: 'address',
    });
  }
  return ok({
    memberKey: follow.followeeKey,
    memberUserId: follow.followeeUserId,
    memberRemoteActorId: follow.followeeRemoteActorId,
  });
}

/** The member key of `ref` (whether followed or not), or null for nobody known here. */
export async function memberKeyOf(
  prisma: Db['prisma'],
  ref: MemberRef,
  self: string,
): Promise<Result<string | null, Refusal>> {
  const person = await personWhere(prisma, ref, self);
  if (!person.ok) return person;
  if (!person.value) return ok(null);
  if ('followeeUserId' in person.value) return ok(localActorKey(person.value.followeeUserId));
  const actor = await prisma.remoteActor.findUnique({
    where: { id: person.value.followeeRemoteActorId },
    select: { actorUrl: true },
  });
  return ok(actor?.actorUrl ?? null);
}
