import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import { advisoryXactLockOnTextSql } from '../persistence/ops.sql.ts';
import {
  staleLocalHandlesSql,
  storedStampsSql,
  trimNodeHandlesSql,
} from '../persistence/registry.sql.ts';
import type { RegistryService } from './registry.service.ts';

/**
 * Handle entries kept per node (docs/protocol.md, "Registry bounds"): what the node reports as
 * its user count (`userCount` of its info) plus slack, never more than `maxPerNode`. A node's
 * entries replace its earlier ones: one entry per did (a renamed user's new handle replaces the
 * old one), and beyond the cap the entries with the oldest `updatedAt` (its own clock) go. Before
 * anything is dropped, a node over its cap is asked for its info again (its count may have
 * grown), at most once per `recountEveryMs`.
 */
export const HANDLE_BOUNDS = {
  slackMin: 50,
  slackRatio: 0.1,
  maxPerNode: 100_000,
  recountEveryMs: 10 * 60_000,
} as const;

/** How many handle entries of a node reporting `userCount` users are kept. */
export function handleCapFor(userCount: number): number {
  const users = Math.max(0, userCount);
  return Math.min(
    users + Math.max(HANDLE_BOUNDS.slackMin, Math.ceil(users * HANDLE_BOUNDS.slackRatio)),
    HANDLE_BOUNDS.maxPerNode,
  );
}

/** Postgres advisory lock namespace for one node's handle entries (their cap is counted). */
const HANDLE_LOCK_SPACE = 0x48414e44;

/** Handles whose did this process remembers (beyond this, the database is asked). */
const HELD_DIDS_MAX = 100_000;

/** One handle entry as written to the registry. */
export interface HandleWrite {
  handle: string;
  did: string;
  updatedAt: Date;
  source: string;
}

/** The handle entries of the registry: our own, the cap per node, and writes under that cap. */
export interface HandleEntries {
  /** Another replica may have stamped later than this process: never issue older stamps. */
  observeStoredStamps(): Promise<void>;
  /** Our local users (with a did) as our own handle entries; returns how many changed. */
  syncLocalHandles(): Promise<number>;
  handleCap(domain: string, adding: number): Promise<number>;
  writeNodeHandles(domain: string, cap: number, entries: HandleWrite[]): Promise<void>;
  /** Notes the did held for `handle@nodeDomain` (a cache of the registry). */
  remember(e: { handle: string; nodeDomain: string; did: string }): void;
  /** The did last seen in the registry for `handle@nodeDomain`, if this process remembers it. */
  heldDid(handle: string, nodeDomain: string): string | undefined;
}

export function createHandleEntries(deps: {
  self: string;
  db: Db;
  clock: Clock;
  registry: RegistryService;
}): HandleEntries {
  const { self, db, clock, registry } = deps;
  const prisma = db.prisma;
  const stamper = registry.stamper;
  /**
   * The did last seen in our registry per `handle@node`, so claims we hold cost no query. Another
   * replica's writes can make it stale: then a claim is looked up once more, never wrongly taken.
   */
  const heldDids = new Map<string, string>();
  /** When each node's user count may next be fetched again because its entries passed the cap. */
  const recounted = new Map<string, number>();
  const remember = (e: { handle: string; nodeDomain: string; did: string }) => {
    if (heldDids.size < HELD_DIDS_MAX) heldDids.set(`${e.handle}@${e.nodeDomain}`, e.did);
  };

  async function observeStoredStamps() {
    const [row] =
      await prisma.$queryRaw<{ nodes: Date | null; handles: Date | null }[]>(storedStampsSql());
    stamper.observe(row?.nodes);
    stamper.observe(row?.handles);
  }

  async function syncLocalHandles(): Promise<number> {
    const stale = await prisma.$queryRaw<{ handle: string; did: string }[]>(
      staleLocalHandlesSql(self),
    );
    if (stale.length === 0) return 0;
    await observeStoredStamps();
    const now = clock.now();
    await prisma.$transaction(
      stale.map(({ handle, did }) => {
        const changedAt = stamper.next();
        return prisma.handleRegistryEntry.upsert({
          where: { handle_nodeDomain: { handle, nodeDomain: self } },
          create: { handle, did, nodeDomain: self, updatedAt: now, source: 'local', changedAt },
          update: { did, updatedAt: now, source: 'local', changedAt },
        });
      }),
    );
    return stale.length;
  }

  /**
   * The cap on `domain`'s handle entries. When `adding` more would pass it, its info is fetched
   * again first (at most once per HANDLE_BOUNDS.recountEveryMs), so a node that grew keeps all
   * its entries.
   */
  async function handleCap(domain: string, adding: number): Promise<number> {
    const read = async () =>
      (await prisma.swarmNode.findUnique({ where: { domain }, select: { userCount: true } }))
        ?.userCount ?? 0;
    const cap = handleCapFor(await read());
    const held = await prisma.handleRegistryEntry.count({ where: { nodeDomain: domain } });
    if (held + adding <= cap) return cap;
    const now = clock.now().getTime();
    if ((recounted.get(domain) ?? 0) > now) return cap;
    if (recounted.size >= HELD_DIDS_MAX) recounted.clear();
    recounted.set(domain, now + HANDLE_BOUNDS.recountEveryMs);
    await registry.probe(domain, 'gossip');
    return handleCapFor(await read());
  }

  /**
   * Writes entries of `domain` (one per did; the caller keeps at most `cap`) so that they
   * replace its earlier ones: another handle with the same did and an older `updatedAt` goes,
   * an entry losing to a newer one with its did is skipped, and beyond `cap` the oldest entries
   * (by `updatedAt`, then change time) go. Under a per-node lock: concurrent gossip of one node
   * cannot pass the cap together.
   */
  async function writeNodeHandles(domain: string, cap: number, entries: HandleWrite[]) {
    if (entries.length === 0) return;
    await prisma.$transaction(async (tx) => {
      await tx.$queryRaw(advisoryXactLockOnTextSql(HANDLE_LOCK_SPACE, domain));
      const sameDid = await tx.handleRegistryEntry.findMany({
        where: {
          nodeDomain: domain,
          did: { in: entries.map((e) => e.did) },
          handle: { notIn: entries.map((e) => e.handle) },
        },
        select: { id: true, did: true, updatedAt: true },
      });
      const stale: string[] = [];
      const skip = new Set<string>();
      for (const row of sameDid) {
        const entry = entries.find((e) => e.did === row.did)!;
        if (row.updatedAt.getTime() > entry.updatedAt.getTime()) skip.add(entry.handle);
        else stale.push(row.id);
      }
      if (stale.length > 0)
        await tx.handleRegistryEntry.deleteMany({ where: { id: { in: stale } } });
      for (const entry of entries) {
        if (skip.has(entry.handle)) continue;
        const data = {
          did: entry.did,
          updatedAt: entry.updatedAt,
          source: entry.source,
          changedAt: stamper.next(),
        };
        await tx.handleRegistryEntry.upsert({
          where: { handle_nodeDomain: { handle: entry.handle, nodeDomain: domain } },
          create: { handle: entry.handle, nodeDomain: domain, ...data },
          update: data,
        });
      }
      await tx.$executeRaw(trimNodeHandlesSql(domain, cap));
    });
  }

  return {
    observeStoredStamps,
    syncLocalHandles,
    handleCap,
    writeNodeHandles,
    remember,
    heldDid: (handle, nodeDomain) => heldDids.get(`${handle}@${nodeDomain}`),
  };
}
