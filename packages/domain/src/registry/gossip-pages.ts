import { LIMITS, formatTimestamp, type HandleEntry, type NodeSummary } from '@swarm/contract';
import type { Db } from '@swarm/db';
import { KNOWN_FILTER } from './known-filter.ts';

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

/**
 * Verified active nodes the requester's `known` filter does not hold (docs/protocol.md, Gossip):
 * a random `cap` of them, so two partners answering one requester rarely repeat each other.
 * Not a page by change time (never `capped`): the answer's `since` cursor bounds only its handles.
 */
export async function missingNodes(
  prisma: Prisma,
  isKnown: (domain: string) => boolean,
  exclude: string[],
  random: () => number,
): Promise<Page<NodeSummary>> {
  const rows = await prisma.swarmNode.findMany({
    where: {
      isActive: true,
      isVerified: true,
      lastSeenAt: { not: null },
      domain: { notIn: exclude },
    },
    orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
    take: KNOWN_FILTER.scanMax,
    select: { domain: true, name: true, lastSeenAt: true },
  });
  const missing = rows.filter((n) => !isKnown(n.domain));
  // A partial Fisher–Yates shuffle: the first `answerNodes` are a uniform sample.
  const take = Math.min(KNOWN_FILTER.answerNodes, missing.length);
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(random() * (missing.length - i));
    [missing[i], missing[j]] = [missing[j]!, missing[i]!];
  }
  const items = missing.slice(0, take).map((n) => ({
    domain: n.domain,
    name: n.name,
    lastSeenAt: formatTimestamp(n.lastSeenAt!),
  }));
  return { items, capped: false, lastChange: undefined };
}

/**
 * The domains our `known` filter holds: every node we verified, and hints whose probe has not
 * failed yet. A hint whose probe failed is left out, so peers listing it active bring its next
 * probe forward (`noteHints` with `vouched`).
 */
export async function heldDomains(prisma: Prisma): Promise<string[]> {
  const rows = await prisma.swarmNode.findMany({
    where: { OR: [{ isVerified: true }, { consecutiveFailures: 0 }] },
    select: { domain: true },
  });
  return rows.map((r) => r.domain);
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
