import { ok, type Result } from '@swarm/contract';
import { commitIfOk, refuse, type Refusal } from '../refusal.ts';
import {
  LIST_LIMITS,
  ownedList,
  type ListDeps,
  type ListMemberView,
  type MemberRef,
} from './list-types.ts';
import { memberViews } from './list-members.ts';
import { followedMember, type FollowedMember } from './member-refs.ts';

/**
 * Adds people the owner follows to a list, all or none: someone not followed, or a list that
 * would pass `LIST_LIMITS.members`, refuses the whole call. Answers the members added (those
 * already on the list included).
 */
export async function addListMembers(
  deps: ListDeps,
  ownerId: string,
  listId: string,
  refs: readonly MemberRef[],
): Promise<Result<ListMemberView[], Refusal>> {
  const prisma = deps.db.prisma;
  const self = deps.config.domain;
  const list = await ownedList(prisma, ownerId, listId);
  if (!list.ok) return list;
  if (refs.length === 0) return refuse('INVALID_REQUEST', 'Say whom to add.');
  if (refs.length > LIST_LIMITS.members) {
    return refuse('INVALID_REQUEST', `A list holds at most ${LIST_LIMITS.members} people.`);
  }
  const found = new Map<string, FollowedMember>();
  for (const ref of refs) {
    const member = await followedMember(prisma, ownerId, ref, self);
    if (!member.ok) return member;
    found.set(member.value.memberKey, member.value);
  }
  const keys = [...found.keys()];
  const now = deps.clock.now();
  const added = await commitIfOk(deps.db, async (tx) => {
    await tx.listMember.createMany({
      data: [...found.values()].map((m) => ({ listId: list.value.id, createdAt: now, ...m })),
      skipDuplicates: true,
    });
    // Counted after the insert, in the same transaction: two calls at once cannot both pass.
    const held = await tx.listMember.count({ where: { listId: list.value.id } });
    if (held > LIST_LIMITS.members) {
      return refuse(
        'INVALID_REQUEST',
        `A list holds at most ${LIST_LIMITS.members} people: remove someone first.`,
      );
    }
    return ok(null);
  });
  if (!added.ok) return added;
  return ok(await memberViews(prisma, { listId: list.value.id, memberKey: { in: keys } }, self));
}
