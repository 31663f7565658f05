import { ok, type Result } from '@swarm/contract';
import type { Refusal } from '../refusal.ts';
import {
  LIST_LIMITS,
  listViewSelect,
  toListView,
  type ListDeps,
  type ListView,
  type MemberRef,
} from './list-types.ts';
import { memberKeyOf } from './member-refs.ts';

/** The owner's lists, oldest first. */
export async function readLists(deps: ListDeps, ownerId: string): Promise<ListView[]> {
  const rows = await deps.db.prisma.userList.findMany({
    where: { userId: ownerId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: LIST_LIMITS.lists,
    select: listViewSelect,
  });
  return rows.map(toListView);
}

/** The owner's lists that hold the person `ref` names. */
export async function listsWith(
  deps: ListDeps,
  ownerId: string,
  ref: MemberRef,
): Promise<Result<ListView[], Refusal>> {
  const prisma = deps.db.prisma;
  const key = await memberKeyOf(prisma, ref, deps.config.domain);
  if (!key.ok) return key;
  if (!key.value) return ok([]);
  const rows = await prisma.userList.findMany({
    where: { userId: ownerId, members: { some: { memberKey: key.value } } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: LIST_LIMITS.lists,
    select: listViewSelect,
  });
  return ok(rows.map(toListView));
}
