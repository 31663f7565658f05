// Over 500 lines on purpose: one table (`swarm_nodes`) and its bounded hint list, whose rules
// (announce, refresh, prune, block) share the same row and lock; its raw statements live in
// persistence/registry.sql.ts.

import {
  SWARM_PATHS,
  formatTimestamp,
  ok,
  refuse,
  type Refusal,
  nodeInfoSchema,
  type Announcement,
  type NodeInfo,
  type NodeListEntry,
  type NodeSummary,
  type SwarmStats,
  type Result,
} from '@swarm/contract';
import type { Db, Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { NodeInfoService } from '../node-info.service.ts';
import {
  describePeerError,
  isRefusal,
  type PeerClient,
  type PeerProfiles,
  type PeerResult,
} from '../peers/index.ts';
import { advisoryXactLockSql } from '../persistence/ops.sql.ts';
import {
  contactFailedSql,
  contactSucceededSql,
  dueKnownNodesSql,
  dueUnsignedHintsSql,
  hintCountsSql,
  pruneHintSql,
  pruneHintsHeardBeforeSql,
  recordRefusalSql,
} from '../persistence/registry.sql.ts';
import { mapBounded } from './bounded.ts';
import { createChangeStamper, type ChangeStamper } from './change-stamp.ts';
import { PROBE_BACKOFF } from '../persistence/registry.sql.ts';

/** What happened when this node contacted one peer (admin reports, scheduler logs). */
export interface ContactReport {
  domain: string;
  ok: boolean;
  /** Wall time of the exchange. */
  ms: number;
  error?: string;
  /** The peer answered with a refusal (4xx): recorded, not counted as a failed contact. */
  refused?: boolean;
}

/**
 * An inbound announcement's answer, or why it was refused: NODE_BLOCKED (a blocked sender),
 * FORBIDDEN (our own domain, or signed by another node than it speaks for); nothing recorded.
 */
export type AnnounceOutcome = Result<
  { answer: Announcement; recorded: 'direct' | 'hint' },
  Refusal<'NODE_BLOCKED' | 'FORBIDDEN'>
>;

/** How a node entered the registry (`discovered_via`). */
export type DiscoveredVia =
  'seed' | 'announce' | 'admin' | 'discover' | 'gossip' | `gossip:${string}` | `hint:${string}`;

export interface RegistryService {
  /** Change times for gossip paging; shared with the gossip service. */
  readonly stamper: ChangeStamper;
  isBlocked(domain: string): Promise<boolean>;
  blockedDomains(): Promise<Set<string>>;
  /** A successful direct contact (it answered us, or announced/gossiped signed). */
  recordSuccess(domain: string, info: NodeInfo | undefined, via: DiscoveredVia): Promise<void>;
  /** A failed direct contact with a known node. */
  recordFailure(domain: string, reason: string): Promise<void>;
  /**
   * The node answered our request with a refusal (4xx, see `isRefusal`): it is up but disagrees.
   * Only `last_error` changes: no failed contact, no trust change, no deactivation.
   */
  recordRefusal(domain: string, reason: string): Promise<void>;
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
  /** Probe `GET /api/swarm/info` and record the outcome. */
  probe(domain: string, via: DiscoveredVia): Promise<ContactReport>;
  /**
   * Re-probe nodes whose `next_probe_at` is due (inactive nodes, fresh hints), oldest first, at
   * most `limit` (default PROBES_PER_ROUND), a few at a time.
   */
  probeDue(limit?: number): Promise<ContactReport[]>;
  /** Outbound announce (node-signed) to one node. */
  announceTo(domain: string, via: DiscoveredVia): Promise<ContactReport>;
  /** Announce to the enabled seeds, one after the other by priority. */
  announceToSeeds(): Promise<ContactReport[]>;
  /** Announce to the known active nodes that are not seeds. */
  announceToActive(): Promise<ContactReport[]>;
  /** Inbound `POST /api/swarm/announce`; `sourceDomain` is set when it was validly node-signed. */
  receiveAnnouncement(
    body: Announcement,
    sourceDomain: string | undefined,
  ): Promise<AnnounceOutcome>;
  /** Configured seeds (`SWARM_SEEDS`) into the seed table, keeping existing priorities. */
  ensureSeeds(domains: readonly string[]): Promise<void>;
  addSeed(domain: string, priority: number): Promise<void>;
  /** Enabled seed domains, by priority (configured seeds included). */
  seedDomains(): Promise<string[]>;
  /** Verified nodes for public lists: active first, most recently seen first. */
  listNodes(limit: number): Promise<NodeListEntry[]>;
  nodeSummaries(limit: number): Promise<NodeSummary[]>;
  stats(): Promise<SwarmStats>;
  /** Active verified peers with their trust, for gossip peer selection. */
  activePeers(): Promise<{ domain: string; trustScore: number }[]>;
}

export interface RegistryDeps {
  config: Pick<NodeConfig, 'domain' | 'seeds'>;
  db: Db;
  clock: Clock;
  logger: Logger;
  peers: PeerClient;
  nodeInfo: NodeInfoService;
  /** Which profile each peer speaks: stored once the node's row exists. */
  profiles?: Pick<PeerProfiles, 'persist'> | undefined;
}

const ERROR_CHARS = 500;

/**
 * Due probes per background round. A node joining a swarm of N hears of the N others within a
 * few rounds and must probe each before it trusts it (docs/protocol.md): at 20 a round, joining a
 * swarm of 200 took 10 rounds of probing alone. A probe is one small GET.
 */
export const PROBES_PER_ROUND = 100;
/** Probes in flight at once. */
export const PROBE_CONCURRENCY = 8;
/** Domains remembered as having a node row (beyond this, the database is asked). */
const ROW_KNOWN_MAX = 100_000;
/**
 * How long this process trusts that memory: hints that never answer are pruned (possibly by
 * another replica), and a pruned domain mentioned again must be stored again.
 */
const ROW_KNOWN_TTL_MS = 10 * 60_000;

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
} as const;

/** Postgres advisory lock key serialising hint inserts (their caps are counted) ("HINT"). */
const HINT_LOCK_KEY = 0x48494e54;

/** Unverified rows whose hint nobody vouched for (unsigned gossip or announce; as in SQL). */
/**
 * Why a peer's inbound announce or gossip from `domain` is refused, if it is: signed by another
 * node than it speaks for (`sourceDomain`, when signed), our own domain, or a blocked sender.
 * Nothing is recorded for a refused sender.
 */
export async function refuseSender(
  domain: string,
  sourceDomain: string | undefined,
  self: string,
  isBlocked: (domain: string) => boolean | Promise<boolean>,
): Promise<{ ok: false; reason: Refusal<'NODE_BLOCKED' | 'FORBIDDEN'> } | undefined> {
  if (sourceDomain !== undefined && sourceDomain !== domain) {
    return refuse(
      'FORBIDDEN',
      `The request is signed by ${sourceDomain} but speaks for ${domain}.`,
    );
  }
  if (domain === self) return refuse('FORBIDDEN', `${domain} is this node's own domain.`);
  if (await isBlocked(domain)) return refuse('NODE_BLOCKED', `${domain} is blocked on this node.`);
  return undefined;
}

export function isUnsignedHint(via: string): boolean {
  return via === 'announce' || via === 'gossip' || via.startsWith('hint:');
}

export function createRegistryService(deps: RegistryDeps): RegistryService {
  const { config, db, clock, logger, peers, nodeInfo } = deps;
  const prisma = db.prisma;
  const stamper = createChangeStamper(clock);
  const self = config.domain;
  /**
   * Domains known to have a node row, until when (our clock). It spares the insert of every
   * gossip mention (a full answer names every node of the swarm). Pruned rows are forgotten
   * here at once, and by other replicas when their entry expires.
   */
  const rowKnown = new Map<string, number>();
  const isRowKnown = (domain: string) => (rowKnown.get(domain) ?? 0) > clock.now().getTime();
  /** Never-verified nodes whose probe failed (waiting on their backoff), per process. */
  const unreached = new Set<string>();

  async function isBlocked(domain: string): Promise<boolean> {
    return (await prisma.nodeBlock.count({ where: { domain } })) > 0;
  }

  async function blockedDomains(): Promise<Set<string>> {
    const rows = await prisma.nodeBlock.findMany({ select: { domain: true } });
    return new Set(rows.map((r) => r.domain));
  }

  async function recordSuccess(domain: string, info: NodeInfo | undefined, via: DiscoveredVia) {
    await contactSucceeded(domain, info, via, false);
  }

  /**
   * A successful contact in one statement (a round makes hundreds): the seed's health when
   * `seedContact` (our own request to it), the block check, and the node row.
   */
  async function contactSucceeded(
    domain: string,
    info: NodeInfo | undefined,
    via: DiscoveredVia,
    seedContact: boolean,
  ) {
    if (domain === self) return;
    unreached.delete(domain);
    await prisma.$executeRaw(
      contactSucceededSql({
        domain,
        via,
        now: clock.now(),
        stamp: stamper.next(),
        seedContact,
        info: info && { ...info, capabilities: JSON.stringify(info.capabilities) },
      }),
    );
    await deps.profiles?.persist(domain);
  }

  async function recordFailure(domain: string, reason: string) {
    await contactFailed(domain, reason, false);
  }

  async function recordRefusal(domain: string, reason: string) {
    // Raw SQL: Prisma would bump updated_at, which peers must only see for gossiped changes.
    await prisma.$executeRaw(recordRefusalSql(domain, reason.slice(0, ERROR_CHARS)));
  }

  /** A failed contact in one statement: the seed's health when `seedContact`, the node row. */
  async function contactFailed(domain: string, reason: string, seedContact: boolean) {
    const rows = await prisma.$queryRaw<
      { is_verified: boolean; last_seen_at: Date | null; consecutive_failures: number }[]
    >(
      contactFailedSql({
        domain,
        message: reason.slice(0, ERROR_CHARS),
        now: clock.now(),
        stamp: stamper.next(),
        seedContact,
      }),
    );
    const row = rows[0];
    if (row?.is_verified !== false) return;
    if (
      row.last_seen_at === null &&
      row.consecutive_failures >= HINT_BOUNDS.pruneAfterFailedProbes
    ) {
      await pruneHints(pruneHintSql(domain));
      return;
    }
    if (unreached.size < ROW_KNOWN_MAX) unreached.add(domain);
  }

  /**
   * Deletes never-reached, unverified rows (`pruneHintSql`, `pruneHintsHeardBeforeSql`; never a
   * seed), and forgets them. Returns how many went.
   */
  async function pruneHints(statement: Prisma.Sql): Promise<number> {
    const gone = await prisma.$queryRaw<{ domain: string }[]>(statement);
    for (const { domain } of gone) {
      rowKnown.delete(domain);
      unreached.delete(domain);
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

  async function probe(domain: string, via: DiscoveredVia): Promise<ContactReport> {
    if (domain === self) return { domain, ok: false, ms: 0, error: 'This is our own domain.' };
    if (await isBlocked(domain)) {
      return { domain, ok: false, ms: 0, error: `${domain} is blocked on this node.` };
    }
    return probeUnchecked(domain, via);
  }

  /** A probe of a node known not to be us nor blocked. */
  async function probeUnchecked(domain: string, via: DiscoveredVia): Promise<ContactReport> {
    const result = await peers.getJson(domain, SWARM_PATHS.info, nodeInfoSchema);
    return recordAnswer(domain, result, via);
  }

  /** Records the outcome of a contact whose answer is the peer's node info. */
  async function recordAnswer(
    domain: string,
    result: PeerResult<NodeInfo>,
    via: DiscoveredVia,
  ): Promise<ContactReport> {
    let error: string | undefined;
    if (!result.ok) error = describePeerError(result.error);
    else if (result.value.domain !== domain) {
      error = `${domain} answered as ${result.value.domain}.`;
    }
    if (!result.ok && isRefusal(result.error)) {
      // It answered: a refusal of what we sent (e.g. our announce), not an outage.
      await recordRefusal(domain, error!);
      return { domain, ok: false, ms: result.ms, error, refused: true };
    }
    if (error !== undefined) {
      await contactFailed(domain, error, true);
      return { domain, ok: false, ms: result.ms, error };
    }
    await contactSucceeded(domain, (result as { value: NodeInfo }).value, via, true);
    return { domain, ok: true, ms: result.ms };
  }

  async function probeDue(limit = PROBES_PER_ROUND): Promise<ContactReport[]> {
    const now = clock.now();
    // Hints nobody reached within a day go, probed or not (a flood can outpace the probes).
    await pruneHints(pruneHintsHeardBeforeSql(new Date(now.getTime() - HINT_BOUNDS.pruneAfterMs)));
    const blocked = await blockedDomains();
    const notIn = [...blocked, self];
    // Unsigned hints get a bounded share of the round; known nodes and vouched hints the rest.
    type Due = { domain: string; discovered_via: string };
    const unsignedDue = await prisma.$queryRaw<Due[]>(
      dueUnsignedHintsSql(now, notIn, Math.min(HINT_BOUNDS.unsignedProbesPerRound, limit)),
    );
    const otherDue = await prisma.$queryRaw<Due[]>(
      dueKnownNodesSql(now, notIn, limit - unsignedDue.length),
    );
    const due = [...otherDue, ...unsignedDue];
    return mapBounded(due, PROBE_CONCURRENCY, (n) =>
      probeUnchecked(n.domain, n.discovered_via as DiscoveredVia),
    );
  }

  async function announceTo(domain: string, via: DiscoveredVia): Promise<ContactReport> {
    if (domain === self) return { domain, ok: false, ms: 0, error: 'This is our own domain.' };
    if (await isBlocked(domain)) {
      return { domain, ok: false, ms: 0, error: `${domain} is blocked on this node.` };
    }
    const body: Announcement = {
      ...(await nodeInfo.get()),
      timestamp: formatTimestamp(clock.now()),
    };
    // The answer is the peer's info "in the same format": read tolerantly (timestamp optional).
    const result = await peers.postJson(domain, SWARM_PATHS.announce, body, nodeInfoSchema);
    return recordAnswer(domain, result, via);
  }

  async function seedDomains(): Promise<string[]> {
    const rows = await prisma.swarmSeed.findMany({
      where: { isEnabled: true },
      orderBy: [{ priority: 'asc' }, { domain: 'asc' }],
      select: { domain: true },
    });
    const domains = rows.map((r) => r.domain);
    for (const seed of config.seeds) if (!domains.includes(seed)) domains.push(seed);
    return domains.filter((d) => d !== self);
  }

  async function announceToSeeds(): Promise<ContactReport[]> {
    const reports: ContactReport[] = [];
    for (const domain of await seedDomains()) reports.push(await announceTo(domain, 'seed'));
    return reports;
  }

  async function announceToActive(): Promise<ContactReport[]> {
    const seeds = new Set(await seedDomains());
    const active = (await activePeers()).filter((p) => !seeds.has(p.domain));
    return Promise.all(active.map((p) => announceTo(p.domain, 'announce')));
  }

  async function receiveAnnouncement(
    body: Announcement,
    sourceDomain: string | undefined,
  ): Promise<AnnounceOutcome> {
    const refused = await refuseSender(body.domain, sourceDomain, self, isBlocked);
    if (refused) return refused;
    let recorded: 'direct' | 'hint';
    if (sourceDomain !== undefined) {
      await recordSuccess(body.domain, body, 'announce');
      recorded = 'direct';
    } else {
      // Unsigned: anyone could have sent it. Remember the domain and let the next round probe
      // its /api/swarm/info; nothing it claims is stored.
      await noteHint(body.domain, 'announce', undefined);
      recorded = 'hint';
    }
    logger.debug({ peer: body.domain, recorded }, 'announcement received');
    return ok({
      answer: { ...(await nodeInfo.get()), timestamp: formatTimestamp(clock.now()) },
      recorded,
    });
  }

  async function ensureSeeds(domains: readonly string[]) {
    const seeds = domains.filter((d) => d !== self);
    if (seeds.length === 0) return;
    await prisma.swarmSeed.createMany({
      data: seeds.map((domain, priority) => ({ domain, priority })),
      skipDuplicates: true,
    });
  }

  async function addSeed(domain: string, priority: number) {
    await prisma.swarmSeed.upsert({
      where: { domain },
      create: { domain, priority },
      update: { priority, isEnabled: true },
    });
  }

  async function listedNodes(limit: number) {
    if (limit <= 0) return [];
    const blocked = await blockedDomains();
    return prisma.swarmNode.findMany({
      where: { isVerified: true, lastSeenAt: { not: null }, domain: { notIn: [...blocked, self] } },
      orderBy: [{ isActive: 'desc' }, { lastSeenAt: 'desc' }, { domain: 'asc' }],
      take: limit,
      select: {
        domain: true,
        name: true,
        lastSeenAt: true,
        userCount: true,
        postCount: true,
        protocolProfile: true,
      },
    });
  }

  async function listNodes(limit: number): Promise<NodeListEntry[]> {
    return (await listedNodes(limit)).map((n) => ({
      domain: n.domain,
      name: n.name,
      lastSeenAt: formatTimestamp(n.lastSeenAt!),
      userCount: n.userCount,
      postCount: n.postCount,
      ...(n.protocolProfile ? { protocolProfile: n.protocolProfile } : {}),
    }));
  }

  async function nodeSummaries(limit: number): Promise<NodeSummary[]> {
    return (await listedNodes(limit)).map((n) => ({
      domain: n.domain,
      name: n.name,
      lastSeenAt: formatTimestamp(n.lastSeenAt!),
    }));
  }

  async function stats(): Promise<SwarmStats> {
    // This node counts as one of the swarm's nodes; users and posts are ours plus what the
    // active nodes last reported about themselves.
    const blocked = [...(await blockedDomains()), self];
    const [own, known, active] = await Promise.all([
      nodeInfo.get(),
      prisma.swarmNode.count({ where: { isVerified: true, domain: { notIn: blocked } } }),
      prisma.swarmNode.aggregate({
        where: { isActive: true, isVerified: true, domain: { notIn: blocked } },
        _count: { _all: true },
        _sum: { userCount: true, postCount: true },
      }),
    ]);
    return {
      totalNodes: known + 1,
      activeNodes: active._count._all + 1,
      totalUsers: own.userCount + (active._sum.userCount ?? 0),
      totalPosts: own.postCount + (active._sum.postCount ?? 0),
    };
  }

  async function activePeers() {
    const blocked = await blockedDomains();
    return prisma.swarmNode.findMany({
      where: { isActive: true, isVerified: true, domain: { notIn: [...blocked, self] } },
      select: { domain: true, trustScore: true },
    });
  }

  return {
    stamper,
    isBlocked,
    blockedDomains,
    recordSuccess,
    recordFailure,
    recordRefusal,
    noteHint,
    noteHints,
    probe,
    probeDue,
    announceTo,
    announceToSeeds,
    announceToActive,
    receiveAnnouncement,
    ensureSeeds,
    addSeed,
    seedDomains,
    listNodes,
    nodeSummaries,
    stats,
    activePeers,
  };
}
