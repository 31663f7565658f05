import { LIMITS, formatTimestamp, type HandleEntry, type NodeSummary } from '@swarm/contract';
import type { Db } from '@swarm/db';

/** One capped page of changes, with the change time of its last entry. */
export type Page<T> = { items: T[]; capped: boolean; lastChange: Date | undefined };

type Prisma = Db['prisma'];

/** Verified active nodes changed at or after `since`, by change time, capped. */
export async function changedNodes(
  prisma: Prisma,
  since: Date | undefined,
  exclude: string[],
): Promise<Page<NodeSummary>> {
  const rows = await prisma.swarmNode.findMany({
    where: {
      isActive: true,
      isVerified: true,
      lastSeenAt: { not: null },
      domain: { notIn: exclude },
      ...(since ? { updatedAt: { gte: since } } : {}),
    },
    orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
    take: LIMITS.gossipMaxNodes,
    select: { domain: true, name: true, lastSeenAt: true, updatedAt: true },
  });
  return {
    items: rows.map((n) => ({
      domain: n.domain,
      name: n.name,
      lastSeenAt: formatTimestamp(n.lastSeenAt!),
    })),
    capped: rows.length >= LIMITS.gossipMaxNodes,
    lastChange: rows.at(-1)?.updatedAt,
  };
}

/** Handle entries changed at or after `since`, by change time, capped. */
export async function changedHandles(
  prisma: Prisma,
  since: Date | undefined,
  exclude: string[],
): Promise<Page<HandleEntry>> {
  const rows = await prisma.handleRegistryEntry.findMany({
    where: {
      nodeDomain: { notIn: exclude },
      ...(since ? { changedAt: { gte: since } } : {}),
    },
    orderBy: [{ changedAt: 'asc' }, { id: 'asc' }],
    take: LIMITS.gossipMaxHandles,
    select: { handle: true, did: true, nodeDomain: true, updatedAt: true, changedAt: true },
  });
  return {
    items: rows.map((h) => ({
      handle: h.handle,
      did: h.did,
      nodeDomain: h.nodeDomain,
      updatedAt: formatTimestamp(h.updatedAt),
    })),
    capped: rows.length >= LIMITS.gossipMaxHandles,
    lastChange: rows.at(-1)?.changedAt,
  };
}

/**
 * Where the next page starts: `fallback` when everything fit, else the change time of the
 * last entry sent (`since` is inclusive, so it is sent again: harmless, entries are idempotent).
 */
export function cursorAfter(fallback: Date, ...pages: Page<unknown>[]): Date {
  const bounds = pages.filter((p) => p.capped && p.lastChange).map((p) => p.lastChange!);
  return bounds.length ? new Date(Math.min(...bounds.map((d) => d.getTime()))) : fallback;
}

/** One row of the sync log: an exchange we started (`push`) or answered (`pull`). */
export async function writeSyncLog(
  prisma: Prisma,
  row: {
    remoteDomain: string;
    direction: 'push' | 'pull';
    nodesReceived: number;
    nodesSent: number;
    handlesReceived: number;
    handlesSent: number;
    success: boolean;
    refused?: boolean;
    errorMessage?: string;
    durationMs: number;
    createdAt: Date;
  },
) {
  await prisma.swarmSyncLog.create({ data: row });
}
