import { formatSwarmPostId, ok, parseSwarmPostId, uuidSchema, type Result } from '@swarm/contract';
import type { Prisma } from '@swarm/db';
import { refuse, type Refusal } from '../refusal.ts';

/**
 * The post row a bookmark names, from the ids pages and apps use (`PostView.id`): our UUID, or
 * `swarm:{domain}:{postId}`, which names a stored copy (or one of ours when the domain is this
 * node's). Reposts are bookmarked as the post they repeat, so the id is always an original's.
 */
export function bookmarkTarget(
  postId: string,
  self: string,
): Result<{ where: Prisma.PostWhereInput; domain: string }, Refusal> {
  const notFound = refuse('POST_NOT_FOUND', `There is no post ${postId} here.`);
  if (typeof postId !== 'string' || postId.length > 600) return notFound;
  if (!postId.startsWith('swarm:')) {
    return uuidSchema.safeParse(postId).success
      ? ok({ where: { id: postId, apId: null, repostOfId: null }, domain: self })
      : notFound;
  }
  const parsed = parseSwarmPostId(postId);
  if (!parsed.ok) return refuse('INVALID_REQUEST', `Not a valid post id: ${parsed.reason}.`);
  const { domain, postId: id } = parsed.value;
  if (domain === self) {
    return uuidSchema.safeParse(id).success
      ? ok({ where: { id, apId: null, repostOfId: null }, domain })
      : notFound;
  }
  return ok({ where: { apId: formatSwarmPostId(parsed.value), repostOfId: null }, domain });
}
