import { ok, type Result } from '@swarm/contract';
import type { Db, Prisma } from '@swarm/db';
import { actorView } from '../feeds/post-views.ts';
import type { Refusal } from '../refusal.ts';
import { LIST_LIMITS, ownedList, type ListDeps, type ListMemberView } from './list-types.ts';

const memberSelect = {
  createdAt: true,
  memberUser: { select: { id: true, handle: true, displayName: true, avatarUrl: true } },
  memberRemoteActor: {
    select: { id: true, handle: true, nodeDomain: true, displayName: true, avatarUrl: true },
  },
} as const satisfies Prisma.ListMemberSelect;

/** Member rows as views (rows whose person is gone are left out). */
export async function memberViews(
  prisma: Db['prisma'],
  where: Prisma.ListMemberWhereInput,
  self: string,
): Promise<ListMemberView[]> {
  const rows = await prisma.listMember.findMany({
    where,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: LIST_LIMITS.members,
    select: memberSelect,
  });
  return rows.flatMap((row) => {
    const addedAt = row.createdAt.toISOString();
    if (row.memberUser) {
      const { id, ...person } = row.memberUser;
      return [{ accountId: id, actor: actorView({ ...person, domain: self }, self), addedAt }];
    }
    if (row.memberRemoteActor) {
      const { id, nodeDomain, ...person } = row.memberRemoteActor;
      return [
        { accountId: id, actor: actorView({ ...person, domain: nodeDomain }, self), addedAt },
      ];
    }
    return [];
  });
}

/** The people on a list, most recently added first. */
export async function listMembers(
  deps: ListDeps,
  ownerId: string,
  listId: string,
): Promise<Result<ListMemberView[], Refusal>> {
  const prisma = deps.db.prisma;
  const list = await ownedList(prisma, ownerId, listId);
  if (!list.ok) return list;
  return ok(await memberViews(prisma, { listId: list.value.id }, deps.config.domain));
}
