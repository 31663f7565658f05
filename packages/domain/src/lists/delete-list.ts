import { ok, type Result } from '@swarm/contract';
import type { Refusal } from '../refusal.ts';
import { ownedList, type ListDeps } from './list-types.ts';

/** Deletes a list and its memberships (the people stay followed). */
export async function deleteList(
  deps: ListDeps,
  ownerId: string,
  listId: string,
): Promise<Result<null, Refusal>> {
  const prisma = deps.db.prisma;
  const list = await ownedList(prisma, ownerId, listId);
  if (!list.ok) return list;
  await prisma.userList.deleteMany({ where: { id: list.value.id, userId: ownerId } });
  return ok(null);
}
