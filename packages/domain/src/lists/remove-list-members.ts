import { ok, type Result } from '@swarm/contract';
import { refuse, type Refusal } from '../refusal.ts';
import { LIST_LIMITS, ownedList, type ListDeps, type MemberRef } from './list-types.ts';
import { memberKeyOf } from './member-refs.ts';

/** Takes people off a list (whether or not the owner still follows them). */
export async function removeListMembers(
  deps: ListDeps,
  ownerId: string,
  listId: string,
  refs: readonly MemberRef[],
): Promise<Result<null, Refusal>> {
  const prisma = deps.db.prisma;
  const list = await ownedList(prisma, ownerId, listId);
  if (!list.ok) return list;
  if (refs.length > LIST_LIMITS.members) {
    return refuse('INVALID_REQUEST', `A list holds at most ${LIST_LIMITS.members} people.`);
  }
  const keys: string[] = [];
  for (const ref of refs) {
    const key = await memberKeyOf(prisma, ref, deps.config.domain);
    if (!key.ok) return key;
    if (key.value) keys.push(key.value);
  }
  if (keys.length > 0) {
    await prisma.listMember.deleteMany({
      where: { listId: list.value.id, memberKey: { in: keys } },
    });
  }
  return ok(null);
}
