import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import { advisoryXactLockOnTextSql } from '../persistence/ops.sql.ts';
import {
  staleLocalHandlesSql,
  storedStampsSql,
  trimAllHandlesSql,
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
  /**
   * An entry whose person's profile was read here this recently is needed (removed only after
   * every other entry, by either bound), like one of a person someone here follows.
   */
  neededForMs: 30 * 24 * 60 * 60_000,
  /**
   * Past the total bound (config `handlesMax`), entries are removed down to this share of it,
   * so a full registry is not trimmed again at every gossip answer.
   */
  trimToRatio: 0.95,
} as const;

/** Where the total bound trims down to: below `max`, by at least one entry. */
export function handleTrimTarget(max: number): number {
  return Math.min(max - 1, Math.floor(max * HANDLE_BOUNDS.trimToRatio));
}

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
/** The key in that namespace for the total bound (no domain is spelled like this). */
const ALL_HANDLES_LOCK = '*';

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
  /**
   * `handle@nodeDomain` was read from its own node just now (a profile page, a search for the
   * exact address): stored as its entry (source `lookup:<node>`) unless held with that did.
   */
  noteResolved(e: { handle: string; nodeDomain: string; did: string }): Promise<void>;
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
  /** Entries of other nodes kept at most (config `handlesMax`). */
  maxTotal: number;
}): HandleEntries {
  const { self, db, clock, registry, maxTotal } = deps;
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
   * (by `updatedAt`, then change time) go, needed ones last. Then the total bound: past
   * `maxTotal`, entries are removed (`trimAllHandlesSql`) down to `handleTrimTarget`. Under a
   * per-node lock and one for the total: concurrent writes cannot pass either bound together.
   */
  async function writeNodeHandles(domain: string, cap: number, entries: HandleWrite[]) {
    if (entries.length === 0) return;
    const neededSince = new Date(clock.now().getTime() - HANDLE_BOUNDS.neededForMs);
    await prisma.$transaction(async (tx) => {
      await tx.$queryRaw(advisoryXactLockOnTextSql(HANDLE_LOCK_SPACE, domain));
      await tx.$queryRaw(advisoryXactLockOnTextSql(HANDLE_LOCK_SPACE, ALL_HANDLES_LOCK));
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
      const held = await tx.handleRegistryEntry.count({ where: { nodeDomain: domain } });
      if (held > cap) await tx.$executeRaw(trimNodeHandlesSql(domain, cap, neededSince));
      const total = await tx.handleRegistryEntry.count({ where: { nodeDomain: { not: self } } });
      if (total > maxTotal) {
        await tx.$executeRaw(
          trimAllHandlesSql(self, total - handleTrimTarget(maxTotal), neededSince),
        );
      }
    });
  }

  async function noteResolved(e: { handle: string; nodeDomain: string; did: string }) {
    if (e.nodeDomain === self) return;
    const row = await prisma.handleRegistryEntry.findUnique({
      where: { handle_nodeDomain: { handle: e.handle, nodeDomain: e.nodeDomain } },
      select: { did: true },
    });
    if (row?.did === e.did) return remember(e);
    const cap = await handleCap(e.nodeDomain, 1);
    await observeStoredStamps();
    // Our clock stands in for the node's own `updatedAt` (the profile answer carries none); its
    // next gossip replaces the entry whenever the two differ.
    await writeNodeHandles(e.nodeDomain, cap, [
      { handle: e.handle, did: e.did, updatedAt: clock.now(), source: `lookup:${e.nodeDomain}` },
    ]);
    remember(e);
  }

  return {
    observeStoredStamps,
    syncLocalHandles,
    handleCap,
    writeNodeHandles,
    noteResolved,
    remember,
    heldDid: (handle, nodeDomain) => heldDids.get(`${handle}@${nodeDomain}`),
  };
}
