import {
  SWARM_PATHS,
  formatTimestamp,
  nodeInfoSchema,
  type Announcement,
  type NodeInfo,
  type NodeListEntry,
  type NodeSummary,
  type SwarmStats,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { NodeInfoService } from '../node-info.service.ts';
import { describePeerError, type PeerClient, type PeerResult } from '../peers/index.ts';
import { createChangeStamper, type ChangeStamper } from './change-stamp.ts';
import { INACTIVE_AFTER_FAILURES, PROBE_BACKOFF, TRUST } from './trust.ts';

/** What happened when this node contacted one peer (admin reports, scheduler logs). */
export interface ContactReport {
  domain: string;
  ok: boolean;
  /** Wall time of the exchange. */
  ms: number;
  error?: string;
}

/** Why an inbound announcement was refused (mapped to HTTP at the edge). */
export type AnnounceRefusal =
  | { kind: 'blocked'; domain: string }
  | { kind: 'self'; domain: string }
  | { kind: 'sender_mismatch'; signedBy: string; announced: string };

export type AnnounceOutcome =
  | { ok: true; answer: Announcement; recorded: 'direct' | 'hint' }
  | { ok: false; refusal: AnnounceRefusal };

/** How a node entered the registry (`discovered_via`). */
export type DiscoveredVia =
  'seed' | 'announce' | 'admin' | 'discover' | 'gossip' | `gossip:${string}`;

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
   * A node we only heard of (gossip mention, unsigned announcement): stored inactive and
   * unverified, due for a probe now. Returns true when it was new.
   */
  noteHint(domain: string, via: DiscoveredVia, name?: string): Promise<boolean>;
  /** Probe `GET /api/swarm/info` and record the outcome. */
  probe(domain: string, via: DiscoveredVia): Promise<ContactReport>;
  /** Re-probe nodes whose `next_probe_at` is due (inactive nodes, fresh hints), oldest first. */
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
}

const ERROR_CHARS = 500;

export function createRegistryService(deps: RegistryDeps): RegistryService {
  const { config, db, clock, logger, peers, nodeInfo } = deps;
  const prisma = db.prisma;
  const stamper = createChangeStamper(clock);
  const self = config.domain;

  async function isBlocked(domain: string): Promise<boolean> {
    return (await prisma.nodeBlock.count({ where: { domain } })) > 0;
  }

  async function blockedDomains(): Promise<Set<string>> {
    const rows = await prisma.nodeBlock.findMany({ select: { domain: true } });
    return new Set(rows.map((r) => r.domain));
  }

  async function recordSuccess(domain: string, info: NodeInfo | undefined, via: DiscoveredVia) {
    if (domain === self || (await isBlocked(domain))) return;
    const now = clock.now();
    const stamp = stamper.next();
    const capabilities = info ? JSON.stringify(info.capabilities) : null;
    const publicKey = info?.publicKey ? info.publicKey : null;
    // Insert-or-update in one statement (two replicas may record the same node at once). Trust
    // follows DESIGN §3: a first direct contact (new, or a gossip hint now verified) sets 50,
    // later successes add 1 up to 100. Peers hear about the row (updated_at) only when something
    // they gossip changes: it appears, turns verified or active, or is renamed.
    await prisma.$executeRaw`
      INSERT INTO swarm_nodes (domain, name, description, logo_url, public_key, software_version,
        user_count, post_count, capabilities, discovered_via, discovered_at, last_seen_at,
        consecutive_failures, is_active, is_verified, trust_score, next_probe_at, updated_at)
      VALUES (${domain}, COALESCE(${info?.name ?? null}::text, ''),
        COALESCE(${info?.description ?? null}::text, ''), ${info?.logoUrl || null}::text,
        ${publicKey}::text, ${info?.softwareVersion ?? null}::text,
        COALESCE(${info?.userCount ?? null}::int, 0), COALESCE(${info?.postCount ?? null}::int, 0),
        COALESCE(${capabilities}::text, '[]'), ${via}, ${now}::timestamptz, ${now}::timestamptz,
        0, true, true, ${TRUST.direct}, ${info ? null : now}::timestamptz, ${stamp}::timestamptz)
      ON CONFLICT (domain) DO UPDATE SET
        trust_score = CASE WHEN swarm_nodes.is_verified
          THEN LEAST(swarm_nodes.trust_score + ${TRUST.successStep}, ${TRUST.max})
          ELSE GREATEST(swarm_nodes.trust_score, ${TRUST.direct}) END,
        consecutive_failures = 0,
        last_seen_at = ${now}::timestamptz,
        last_error = NULL,
        next_probe_at = CASE WHEN ${info === undefined} AND swarm_nodes.name = ''
          THEN ${now}::timestamptz ELSE NULL END,
        updated_at = CASE WHEN NOT swarm_nodes.is_active OR NOT swarm_nodes.is_verified
            OR (${info?.name ?? null}::text IS NOT NULL AND swarm_nodes.name <> ${info?.name ?? null}::text)
          THEN ${stamp}::timestamptz ELSE swarm_nodes.updated_at END,
        is_active = true,
        is_verified = true,
        name = COALESCE(${info?.name ?? null}::text, swarm_nodes.name),
        description = COALESCE(${info?.description ?? null}::text, swarm_nodes.description),
        logo_url = COALESCE(${info?.logoUrl || null}::text, swarm_nodes.logo_url),
        public_key = CASE WHEN swarm_nodes.key_pinned_at IS NULL
          THEN COALESCE(${publicKey}::text, swarm_nodes.public_key) ELSE swarm_nodes.public_key END,
        software_version = COALESCE(${info?.softwareVersion ?? null}::text, swarm_nodes.software_version),
        user_count = COALESCE(${info?.userCount ?? null}::int, swarm_nodes.user_count),
        post_count = COALESCE(${info?.postCount ?? null}::int, swarm_nodes.post_count),
        capabilities = COALESCE(${capabilities}::text, swarm_nodes.capabilities)`;
  }

  /** Seed health: our outbound contacts with a seed, whether or not it has a node row. */
  async function recordSeedContact(domain: string, ok: boolean) {
    await prisma.swarmSeed.updateMany({
      where: { domain },
      data: ok
        ? { lastContactAt: clock.now(), consecutiveFailures: 0 }
        : { consecutiveFailures: { increment: 1 } },
    });
  }

  async function recordFailure(domain: string, reason: string) {
    const now = clock.now();
    const stamp = stamper.next();
    const message = reason.slice(0, ERROR_CHARS);
    // Atomic: −5 trust (min 0), +1 failure; a verified node goes inactive at the 5th failure in a
    // row; inactive (or never reached) nodes get their next probe 1 min × 2^(failed probes − 1),
    // at most 24 h. All expressions read the row's values from before this update.
    await prisma.$executeRaw`
      UPDATE swarm_nodes SET
        trust_score = GREATEST(trust_score - ${TRUST.failureStep}, ${TRUST.min}),
        consecutive_failures = consecutive_failures + 1,
        last_error = ${message},
        is_active = CASE WHEN consecutive_failures + 1 >= ${INACTIVE_AFTER_FAILURES}
          THEN false ELSE is_active END,
        next_probe_at = CASE
          WHEN NOT is_verified OR consecutive_failures + 1 >= ${INACTIVE_AFTER_FAILURES}
          THEN ${now}::timestamptz + make_interval(secs => LEAST(
            ${PROBE_BACKOFF.firstMs / 1000}::float8 * power(2::float8, LEAST(GREATEST(
              CASE WHEN is_verified THEN consecutive_failures + 1 - ${INACTIVE_AFTER_FAILURES}
                ELSE consecutive_failures END, 0), 30)),
            ${PROBE_BACKOFF.maxMs / 1000}::float8))
          ELSE next_probe_at END,
        updated_at = CASE WHEN is_active AND consecutive_failures + 1 >= ${INACTIVE_AFTER_FAILURES}
          THEN ${stamp}::timestamptz ELSE updated_at END
      WHERE domain = ${domain}`;
  }

  async function noteHint(domain: string, via: DiscoveredVia, name?: string): Promise<boolean> {
    if (domain === self || (await isBlocked(domain))) return false;
    const created = await prisma.swarmNode.createMany({
      data: [
        {
          domain,
          name: name ?? '',
          discoveredVia: via,
          discoveredAt: clock.now(),
          isActive: false,
          isVerified: false,
          trustScore: 0,
          nextProbeAt: clock.now(),
          updatedAt: stamper.next(),
        },
      ],
      skipDuplicates: true,
    });
    return created.count > 0;
  }

  async function probe(domain: string, via: DiscoveredVia): Promise<ContactReport> {
    if (domain === self) return { domain, ok: false, ms: 0, error: 'This is our own domain.' };
    if (await isBlocked(domain)) {
      return { domain, ok: false, ms: 0, error: `${domain} is blocked on this node.` };
    }
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
    await recordSeedContact(domain, error === undefined);
    if (error !== undefined) {
      await recordFailure(domain, error);
      return { domain, ok: false, ms: result.ms, error };
    }
    await recordSuccess(domain, (result as { value: NodeInfo }).value, via);
    return { domain, ok: true, ms: result.ms };
  }

  async function probeDue(limit = 20): Promise<ContactReport[]> {
    const blocked = await blockedDomains();
    const due = await prisma.swarmNode.findMany({
      where: { nextProbeAt: { lte: clock.now() }, domain: { notIn: [...blocked, self] } },
      orderBy: { nextProbeAt: 'asc' },
      take: limit,
      select: { domain: true, discoveredVia: true },
    });
    return Promise.all(due.map((n) => probe(n.domain, n.discoveredVia as DiscoveredVia)));
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
    if (body.domain === self) return { ok: false, refusal: { kind: 'self', domain: body.domain } };
    if (sourceDomain !== undefined && sourceDomain !== body.domain) {
      return {
        ok: false,
        refusal: { kind: 'sender_mismatch', signedBy: sourceDomain, announced: body.domain },
      };
    }
    if (await isBlocked(body.domain)) {
      return { ok: false, refusal: { kind: 'blocked', domain: body.domain } };
    }
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
    return {
      ok: true,
      answer: { ...(await nodeInfo.get()), timestamp: formatTimestamp(clock.now()) },
      recorded,
    };
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
      select: { domain: true, name: true, lastSeenAt: true, userCount: true, postCount: true },
    });
  }

  async function listNodes(limit: number): Promise<NodeListEntry[]> {
    return (await listedNodes(limit)).map((n) => ({
      domain: n.domain,
      name: n.name,
      lastSeenAt: formatTimestamp(n.lastSeenAt!),
      userCount: n.userCount,
      postCount: n.postCount,
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
    noteHint,
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
