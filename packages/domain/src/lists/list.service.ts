import { addListMembers } from './add-list-members.ts';
import { createList } from './create-list.ts';
import { deleteList } from './delete-list.ts';
import { listsHolding } from './list-holding.ts';
import { listMembers } from './list-members.ts';
import { listTimeline } from './list-timeline.ts';
import { ownedList, type ListDeps, type ListService } from './list-types.ts';
import { listsWith, readLists } from './read-lists.ts';
import { removeListMembers } from './remove-list-members.ts';
import { updateList } from './update-list.ts';

/** A person's lists (list-types.ts); each use case in its own file. */
export function createListService(deps: ListDeps): ListService {
  return {
    lists: (ownerId) => readLists(deps, ownerId),
    get: (ownerId, listId) => ownedList(deps.db.prisma, ownerId, listId),
    create: (ownerId, input) => createList(deps, ownerId, input),
    update: (ownerId, listId, input) => updateList(deps, ownerId, listId, input),
    remove: (ownerId, listId) => deleteList(deps, ownerId, listId),
    members: (ownerId, listId) => listMembers(deps, ownerId, listId),
    addMembers: (ownerId, listId, refs) => addListMembers(deps, ownerId, listId, refs),
    removeMembers: (ownerId, listId, refs) => removeListMembers(deps, ownerId, listId, refs),
    listsWith: (ownerId, ref) => listsWith(deps, ownerId, ref),
    timeline: (viewer, listId, query) => listTimeline(deps, viewer, listId, query),
    holding: (listIds, authors) => listsHolding(deps, listIds, authors),
  };
}
