import type { Db, Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { advisoryXactLockSql } from '../persistence/ops.sql.ts';
import { hintCountsSql } from '../persistence/registry.sql.ts';
import type { ChangeStamper } from './change-stamp.ts';
import { PROBE_BACKOFF } from '../persistence/registry.sql.ts';

/** How a node entered the registry (`discovered_via`). */
export type DiscoveredVia =
  'seed' | 'announce' | 'admin' | 'discover' | 'gossip' | `gossip:${string}` | `hint:${string}`;

/**
 * Bounds on nodes known only by hearsay (docs/protocol.md, "Registry bounds"): unverified rows
 * learnt from a gossip mention or an unsigned announcement. Anyone can send unsigned gossip and
 * name any sender, so unsigned hints share one small pool; a verified sender's mentions are
 * capped per sender; all unverified rows together are capped. What does not fit is dropped
 * (the same node is heard of again from others, or later). Unverified rows whose probes keep
 * failing, or that stayed unreached for a day, are deleted.
 */
export const HINT_BOUNDS = {
  /** Unverified nodes waiting for a probe that one verified gossip sender made us store. */
  perSource: 1_000,
  /** Unverified nodes from unsigned gossip and unsigned announcements, all senders together. */
  unsigned: 500,
  /** New hints one unsigned gossip request may add. */
  unsignedPerRequest: 50,
  /** Unverified nodes in total. */
  total: 5_000,
  /** Of the due probes of a round, at most this many go to unsigned hints. */
  unsignedProbesPerRound: 20,
  /** A never-reached node is deleted at this many failed probes (after ~31 min of backoff). */
  pruneAfterFailedProbes: 6,
  /** A never-reached node is deleted this long after it was first heard of, probed or not. */
  pruneAfterMs: 24 * 60 * 60_000,
  /**
   * A hint deleted a second time within this long stays in our gossip `known` filter for this
   * long, so peers that still list it (a dead node they have not contacted since) do not make us
   * probe it again and again; per process, at most `prunedKnownMax` domains remembered. A first
   * deletion is remembered but not held (`afterPrune`).
   */
  prunedKnownMs: 6 * 60 * 60_000,
  prunedKnownMax: 20_000,
} as const;

/** What we remember of a pruned hint: until when, and whether our `known` filter holds it. */
export interface PrunedHint {
  until: number;
  held: boolean;
}

/**
 * A hint pruned at `now` (ms), given what we remembered of it. Held in our filter only when it
 * was pruned before within `HINT_BOUNDS.prunedKnownMs`: partners answer a filter with only what
 * it does not hold, so a held node is never named to us again until the hold ends. A node that
 * is up but lost its first probes (six in a row: ~10⁻⁶ at 10 % loss, i.e. dozens of pairs in a
 * swarm of 10,000) would stay unknown for hours; unheld, the next partner listing it brings it
 * back as a hint. A dead node still listed costs six more probes, then is held.
 */
export function afterPrune(previous: PrunedHint | undefined, now: number): PrunedHint {
  return {
    until: now + HINT_BOUNDS.prunedKnownMs,
    held: previous !== undefined && previous.until > now,
  };
}

/** Postgres advisory lock key serialising hint inserts (their caps are counted) ("HINT"). */
const HINT_LOCK_KEY = 0x48494e54;

/** Domains remembered as having a node row (beyond this, the database is asked). */
const ROW_KNOWN_MAX = 100_000;
/**
 * How long this process trusts that memory: hints that never answer are pruned (possibly by
 * another replica), and a pruned domain mentioned again must be stored again.
 */
const ROW_KNOWN_TTL_MS = 10 * 60_000;

/** Unverified rows whose hint nobody vouched for (unsigned gossip or announce; as in SQL). */
export function isUnsignedHint(via: string): boolean {
  return via === 'announce' || via === 'gossip' || via.startsWith('hint:');
}

/** Nodes we only heard of: stored under the hint bounds, vouched for, pruned. */
export interface NodeHints {
  /**
   * A node we only heard of (gossip mention, unsigned announcement): stored inactive and
   * unverified, due for a probe now. Returns true when it was new.
   */
  noteHint(domain: string, via: DiscoveredVia, name?: string): Promise<boolean>;
  /**
   * `noteHint` for many domains at once; returns how many were new. With `vouched` (the hints
   * come from a verified peer that lists them as active), a never-reached node whose probes
   * failed gets its next probe within the first backoff step again (see PROBE_BACKOFF).
   */
  noteHints(
    hints: { domain: string; name?: string }[],
    via: DiscoveredVia,
    options?: { vouched?: boolean },
  ): Promise<number>;
  /**
   * Deletes never-reached, unverified rows (`pruneHintSql`, `pruneHintsHeardBeforeSql`; never a
   * seed), and forgets them. Returns how many went.
   */
  pruneHints(statement: Prisma.Sql): Promise<number>;
  /** The node answered: no longer backed off from. */
  reached(domain: string): void;
  /** A never-verified node whose probe failed (waiting on its backoff). */
  unreached(domain: string): void;
  /** Hints pruned a second time lately (`afterPrune`; this process): our filter holds them. */
  prunedLately(): string[];
}

export function createNodeHints(deps: {
  self: string;
  db: Db;
  clock: Clock;
  logger: Logger;
  stamper: ChangeStamper;
  blockedDomains: () => Promise<Set<string>>;
}): NodeHints {
  const { self, db, clock, logger, stamper, blockedDomains } = deps;
  const prisma = db.prisma;
  /**
   * Domains known to have a node row, until when (our clock). It spares the insert of every
   * gossip mention (a full answer names every node of the swarm). Pruned rows are forgotten
   * here at once, and by other replicas when their entry expires.
   */
  const rowKnown = new Map<string, number>();
  const isRowKnown = (domain: string) => (rowKnown.get(domain) ?? 0) > clock.now().getTime();
  /** Never-verified nodes whose probe failed (waiting on their backoff), per process. */
  const unreached = new Set<string>();
  /** Pruned hints (our clock): remembered, and held in our gossip `known` filter, until then. */
  const pruned = new Map<string, PrunedHint>();

  async function pruneHints(statement: Prisma.Sql): Promise<number> {
    const gone = await prisma.$queryRaw<{ domain: string }[]>(statement);
    const now = clock.now().getTime();
    for (const { domain } of gone) {
      rowKnown.delete(domain);
      unreached.delete(domain);
      const next = afterPrune(pruned.get(domain), now);
      // Re-inserted last: the map stays ordered by expiry, oldest first.
      pruned.delete(domain);
      if (pruned.size >= HINT_BOUNDS.prunedKnownMax) pruned.delete(pruned.keys().next().value!);
      pruned.set(domain, next);
    }
    if (gone.length > 0) logger.debug({ pruned: gone.length }, 'never-reached nodes pruned');
    return gone.length;
  }

  async function noteHint(domain: string, via: DiscoveredVia, name?: string): Promise<boolean> {
    return (await noteHints([{ domain, name }], via)) > 0;
  }

  async function noteHints(
    hints: { domain: string; name?: string }[],
    via: DiscoveredVia,
    options: { vouched?: boolean } = {},
  ) {
    if (options.vouched) await vouchFor(hints.map((h) => h.domain));
    const unknown = hints.filter((h) => h.domain !== self && !isRowKnown(h.domain));
    if (unknown.length === 0) return 0;
    const blocked = await blockedDomains();
    const fresh = new Map<string, string>();
    for (const { domain, name } of unknown) {
      if (!blocked.has(domain) && !fresh.has(domain)) fresh.set(domain, name ?? '');
    }
    if (fresh.size === 0) return 0;
    const unsigned = isUnsignedHint(via);
    const now = clock.now();
    // Counting and inserting under one lock, so concurrent requests (or replicas) cannot
    // together overshoot a cap.
    const outcome = await prisma.$transaction(async (tx) => {
      await tx.$queryRaw(advisoryXactLockSql(HINT_LOCK_KEY));
      const existing = await tx.swarmNode.findMany({
        where: { domain: { in: [...fresh.keys()] } },
        select: { domain: true },
      });
      for (const { domain } of existing) {
        fresh.delete(domain);
        rememberRow(domain);
      }
      if (fresh.size === 0) return { created: 0, dropped: 0 };
      const [counts] = await tx.$queryRaw<{ total: number; unsigned: number; source: number }[]>(
        hintCountsSql(via),
      );
      const room = Math.max(
        0,
        Math.min(
          HINT_BOUNDS.total - (counts?.total ?? 0),
          unsigned
            ? Math.min(
                HINT_BOUNDS.unsigned - (counts?.unsigned ?? 0),
                HINT_BOUNDS.unsignedPerRequest,
              )
            : HINT_BOUNDS.perSource - (counts?.source ?? 0),
        ),
      );
      const taken = [...fresh].slice(0, room);
      if (taken.length === 0) return { created: 0, dropped: fresh.size };
      const created = await tx.swarmNode.createMany({
        data: taken.map(([domain, name]) => ({
          domain,
          name,
          discoveredVia: via,
          discoveredAt: now,
          isActive: false,
          isVerified: false,
          trustScore: 0,
          nextProbeAt: now,
          updatedAt: stamper.next(),
        })),
        skipDuplicates: true,
      });
      for (const [domain] of taken) rememberRow(domain);
      return { created: created.count, dropped: fresh.size - taken.length };
    });
    if (outcome.dropped > 0) {
      logger.warn({ via, dropped: outcome.dropped }, 'node hints dropped: registry bounds reached');
    }
    return outcome.created;
  }

  function rememberRow(domain: string) {
    if (rowKnown.size >= ROW_KNOWN_MAX) rowKnown.clear();
    rowKnown.set(domain, clock.now().getTime() + ROW_KNOWN_TTL_MS);
  }

  /**
   * A verified peer lists these nodes as active: those we never reached and back off from get
   * their next probe within a minute again. Under message loss, a hint's first probes can fail
   * although the node is up; without this, 4 lost probes in a row put it 8 rounds away (the tail
   * of the 200-node benchmark). Bounded: one due probe per such node and round at most.
   */
  async function vouchFor(domains: string[]) {
    const backedOff = [...new Set(domains)].filter((d) => unreached.has(d));
    if (backedOff.length === 0) return;
    for (const domain of backedOff) unreached.delete(domain);
    const soon = new Date(clock.now().getTime() + PROBE_BACKOFF.firstMs);
    await prisma.swarmNode.updateMany({
      where: { domain: { in: backedOff }, isVerified: false, nextProbeAt: { gt: soon } },
      data: { nextProbeAt: soon },
    });
  }

  return {
    noteHint,
    noteHints,
    pruneHints,
    reached: (domain) => unreached.delete(domain),
    unreached: (domain) => {
      if (unreached.size < ROW_KNOWN_MAX) unreached.add(domain);
    },
    prunedLately() {
      const now = clock.now().getTime();
      for (const [domain, { until }] of pruned) {
        if (until > now) break;
        pruned.delete(domain);
      }
      return [...pruned].filter(([, p]) => p.held).map(([domain]) => domain);
    },
  };
}
