import type { PrismaClient } from '@swarm/db';
import type { ThreadService } from '../feeds/index.ts';
import type { Logger } from '../logger.ts';
import { viewerFilter } from '../views/visibility.ts';
import type { ClientViewer, StatusRecord } from './client-records.ts';
import { readableRowId } from './status-access.ts';
import { loadStatusRecords } from './status-loader.ts';

/**
 * A status's thread for apps (`GET /api/v1/statuses/:id/context`): its ancestors, root first,
 * and its descendants in reading order, from this node's database. A copy of another node's
 * post goes through the thread service first, as its post page does: it stores what the post's
 * node answers (in the background when a copy is here, within the visitors' budgets), so the
 * replies read there get rows, and ids apps can open. Both sides are bounded.
 */

/** Parents followed up from a post, at most. */
export const CONTEXT_MAX_ANCESTORS = 40;
/** Replies (at any depth) answered, at most; read breadth first. */
export const CONTEXT_MAX_DESCENDANTS = 60;

export interface StatusContext {
  ancestors: StatusRecord[];
  descendants: StatusRecord[];
}

export interface ContextDeps {
  prisma: PrismaClient;
  self: string;
  logger: Logger;
  threads: Pick<ThreadService, 'get'>;
}

/**
 * A copy's thread through the thread service, which stores what its node answers: a copy
 * already here is answered at once and refreshed in the background when old, so the context
 * reads the database right after without waiting on the post's node.
 */
async function refreshRemoteThread(deps: ContextDeps, viewer: ClientViewer | null, rowId: string) {
  const { prisma, threads, logger } = deps;
  const row = await prisma.post.findUnique({ where: { id: rowId }, select: { apId: true } });
  if (!row?.apId) return;
  const page = await threads.get(viewer ? { ...viewer, showNsfw: true } : null, row.apId);
  if (!page.ok)
    logger.debug({ post: row.apId, reason: page.reason.message }, 'remote thread not read');
}

export async function statusContext(
  deps: ContextDeps,
  viewer: ClientViewer | null,
  rowId: string,
): Promise<StatusContext> {
  const { prisma, self } = deps;
  await refreshRemoteThread(deps, viewer, rowId);

  const ancestorIds: string[] = [];
  let current = await prisma.post.findUnique({ where: { id: rowId }, select: { replyToId: true } });
  const seen = new Set([rowId]);
  while (current?.replyToId && ancestorIds.length < CONTEXT_MAX_ANCESTORS) {
    const parentId: string = current.replyToId;
    if (seen.has(parentId)) break;
    seen.add(parentId);
    ancestorIds.unshift(parentId);
    current = await prisma.post.findUnique({
      where: { id: parentId },
      select: { replyToId: true },
    });
  }

  // Breadth first, each level oldest first; then in reading order (depth first, by age).
  const childrenOf = new Map<string, string[]>();
  let level = [rowId];
  let found = 0;
  while (level.length > 0 && found < CONTEXT_MAX_DESCENDANTS) {
    const rows = await prisma.post.findMany({
      where: { replyToId: { in: level }, deletedAt: null, repostOfId: null },
      orderBy: [{ apiId: 'asc' }],
      take: CONTEXT_MAX_DESCENDANTS - found,
      select: { id: true, replyToId: true },
    });
    found += rows.length;
    level = [];
    for (const row of rows) {
      if (seen.has(row.id)) continue;
      seen.add(row.id);
      const siblings = childrenOf.get(row.replyToId!) ?? [];
      siblings.push(row.id);
      childrenOf.set(row.replyToId!, siblings);
      level.push(row.id);
    }
  }
  const descendantIds: string[] = [];
  const walk = (id: string) => {
    for (const child of childrenOf.get(id) ?? []) {
      descendantIds.push(child);
      walk(child);
    }
  };
  walk(rowId);

  const readable = async (ids: string[]) => {
    const checks = await Promise.all(ids.map((id) => readableRowId(prisma, viewer, id, self)));
    return ids.filter((_, i) => checks[i]);
  };
  const [ancestorRows, descendantRows, filter] = await Promise.all([
    readable(ancestorIds),
    readable(descendantIds),
    viewerFilter(prisma, { viewer, self, operatorMutes: false }),
  ]);
  const [ancestors, descendants] = await Promise.all([
    loadStatusRecords(prisma, { rowIds: ancestorRows, viewer, self }),
    loadStatusRecords(prisma, { rowIds: descendantRows, viewer, self }),
  ]);
  const shown = (r: StatusRecord) => !filter.hides({ author: r.account, repostedBy: null });
  return { ancestors: ancestors.filter(shown), descendants: descendants.filter(shown) };
}
