import type { Db } from '@swarm/db';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A post's author as the `list` stream sees it: a local user or a remote actor. */
export interface ListedAuthor {
  authorId: string | null;
  remoteAuthorId: string | null;
}

/**
 * Which of the lists `listIds` hold the authors of `posts`, in one query: the routing of the
 * client API's `list` stream (a new post goes to the streams of the lists holding its author).
 * Whether the owner may read the post is the stream's own check.
 */
export async function listsHolding(
  deps: { db: Db },
  listIds: readonly string[],
  authors: readonly ListedAuthor[],
): Promise<(listId: string, author: ListedAuthor) => boolean> {
  const lists = listIds.filter((id) => UUID.test(id));
  const users = [...new Set(authors.flatMap((a) => (a.authorId ? [a.authorId] : [])))];
  const actors = [...new Set(authors.flatMap((a) => (a.remoteAuthorId ? [a.remoteAuthorId] : [])))];
  if (lists.length === 0 || users.length + actors.length === 0) return () => false;
  const rows = await deps.db.prisma.listMember.findMany({
    where: {
      listId: { in: lists },
      OR: [{ memberUserId: { in: users } }, { memberRemoteActorId: { in: actors } }],
    },
    select: { listId: true, memberUserId: true, memberRemoteActorId: true },
  });
  const held = new Set(
    rows.map((r) => `${r.listId}\n${r.memberUserId ?? ''}\n${r.memberRemoteActorId ?? ''}`),
  );
  return (listId, author) =>
    held.has(`${listId}\n${author.authorId ?? ''}\n${author.remoteAuthorId ?? ''}`);
}
