import { ok, type Result } from '@swarm/contract';
import type { Refusal } from '../refusal.ts';
import {
  checkPolicy,
  checkTitle,
  listViewSelect,
  ownedList,
  toListView,
  type ListDeps,
  type ListSettings,
  type ListView,
} from './list-types.ts';

/** Renames a list or changes its replies policy or exclusivity; what is left out stays. */
export async function updateList(
  deps: ListDeps,
  ownerId: string,
  listId: string,
  input: ListSettings,
): Promise<Result<ListView, Refusal>> {
  const prisma = deps.db.prisma;
  const list = await ownedList(prisma, ownerId, listId);
  if (!list.ok) return list;
  const title = input.title === undefined ? null : checkTitle(input.title);
  if (title && !title.ok) return title;
  const policy = checkPolicy(input.repliesPolicy);
  if (!policy.ok) return policy;
  const row = await prisma.userList.update({
    where: { id: list.value.id },
    data: {
      ...(title ? { title: title.value } : {}),
      ...(policy.value ? { repliesPolicy: policy.value } : {}),
      ...(input.exclusive === undefined ? {} : { exclusive: input.exclusive }),
      updatedAt: deps.clock.now(),
    },
    select: listViewSelect,
  });
  return ok(toListView(row));
}
