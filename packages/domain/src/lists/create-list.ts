import { ok, type Result } from '@swarm/contract';
import { refuse, type Refusal } from '../refusal.ts';
import {
  checkPolicy,
  checkTitle,
  LIST_LIMITS,
  listViewSelect,
  toListView,
  type ListDeps,
  type ListSettings,
  type ListView,
} from './list-types.ts';

/** A new, empty list (at most `LIST_LIMITS.lists` a person). */
export async function createList(
  deps: ListDeps,
  ownerId: string,
  input: ListSettings & { title: string },
): Promise<Result<ListView, Refusal>> {
  const prisma = deps.db.prisma;
  const title = checkTitle(input.title);
  if (!title.ok) return title;
  const policy = checkPolicy(input.repliesPolicy);
  if (!policy.ok) return policy;
  const held = await prisma.userList.count({ where: { userId: ownerId } });
  if (held >= LIST_LIMITS.lists) {
    return refuse(
      'INVALID_REQUEST',
      `You can have at most ${LIST_LIMITS.lists} lists: delete one first.`,
    );
  }
  const now = deps.clock.now();
  const row = await prisma.userList.create({
    data: {
      userId: ownerId,
      title: title.value,
      repliesPolicy: policy.value ?? 'list',
      exclusive: input.exclusive === true,
      createdAt: now,
      updatedAt: now,
    },
    select: listViewSelect,
  });
  return ok(toListView(row));
}
