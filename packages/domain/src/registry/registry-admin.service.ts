import { ok, refuse, type AdminAction, type Refusal, type Result } from '@swarm/contract';
import type { Db, Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { parseCapabilities } from './capabilities.ts';
import type { GossipService } from './gossip.service.ts';
import type { ContactReport, RegistryService } from './registry.service.ts';

// Operator view of the registry: nodes (list, detail with sync history), seeds, node blocks and
// the operator actions (announce, discover, gossip). Shared by the gateway's admin API (CLI) and
// the web app's admin area; the swarm-facing rules (blocked nodes refused, seeds contacted) live
// in the registry service, which reads the same tables.

export interface SeedSummary {
  domain: string;
  priority: number;
  isEnabled: boolean;
  lastContactAt: Date | null;
  consecutiveFailures: number;
}

export interface BlockSummary {
  domain: string;
  reason: string | null;
  createdAt: Date;
}

/** A handle registry entry as the operator sees it. */
export interface HandleSummary {
  handle: string;
  nodeDomain: string;
  did: string;
  updatedAt: Date;
  /** Where this node learnt it: `local`, `gossip:<domain>`, `lookup:<domain>`, … */
  source: string;
}

/** One row of the operator's nodes table. */
export interface AdminNodeRow {
  domain: string;
  name: string;
  trustScore: number;
  isActive: boolean;
  isVerified: boolean;
  consecutiveFailures: number;
  lastSeenAt: Date | null;
  userCount: number;
  postCount: number;
  discoveredVia: string;
  discoveredAt: Date;
  isBlocked: boolean;
}

export const ADMIN_NODE_SORTS = [
  'domain',
  'name',
  'trust',
  'active',
  'verified',
  'failures',
  'lastSeen',
  'users',
  'posts',
  'discoveredVia',
] as const;
export type AdminNodeSort = (typeof ADMIN_NODE_SORTS)[number];
export const ADMIN_NODE_STATUSES = ['all', 'active', 'inactive', 'blocked'] as const;
export type AdminNodeStatus = (typeof ADMIN_NODE_STATUSES)[number];

export interface AdminNodeQuery {
  /** Case-insensitive substring of the domain or the name. */
  q?: string;
  status?: AdminNodeStatus;
  sort?: AdminNodeSort;
  dir?: 'asc' | 'desc';
  limit?: number;
}

export interface AdminNodeList {
  nodes: AdminNodeRow[];
  /** Rows matching the filter (may exceed `nodes.length` when capped by `limit`). */
  matched: number;
  /** Every node this node knows. */
  total: number;
}

export interface AdminNodeRecord extends AdminNodeRow {
  description: string;
  logoUrl: string | null;
  softwareVersion: string | null;
  capabilities: string[];
  isNsfw: boolean;
  hasPublicKey: boolean;
  keyPinnedAt: Date | null;
  /** `swarm` (ours), `origin` (body signatures, docs/protocol.md), null until detected. */
  protocolProfile: string | null;
  lastSyncAt: Date | null;
  nextProbeAt: Date | null;
  lastError: string | null;
}

export interface SyncLogRow {
  id: string;
  direction: 'push' | 'pull';
  nodesSent: number;
  nodesReceived: number;
  handlesSent: number;
  handlesReceived: number;
  success: boolean;
  /** The peer refused the exchange (4xx): a disagreement, not an outage. */
  refused: boolean;
  errorMessage: string | null;
  durationMs: number;
  createdAt: Date;
}

/** One gossip exchange on the sync history chart. */
export interface SyncPoint {
  at: Date;
  durationMs: number;
  success: boolean;
  direction: 'push' | 'pull';
}

export interface AdminNodeDetail {
  domain: string;
  /** Null when the domain has no registry row (e.g. blocked before it was ever contacted). */
  node: AdminNodeRecord | null;
  block: BlockSummary | null;
  seed: SeedSummary | null;
  /** Most recent exchanges first. */
  syncLog: SyncLogRow[];
  /** Oldest first, for a chart. */
  history: SyncPoint[];
}

/** A peer's outcome in an operator action; gossip adds what was exchanged. */
export interface PeerActionResult extends ContactReport {
  nodesSent?: number;
  nodesReceived?: number;
  handlesSent?: number;
  handlesReceived?: number;
}

export interface AdminActionReport {
  action: AdminAction['action'];
  /** True when every contacted peer answered (always true for a successful addSeed). */
  ok: boolean;
  results: PeerActionResult[];
  seed?: { domain: string; priority: number };
}

export interface RegistryAdminService {
  listNodes(query?: AdminNodeQuery): Promise<AdminNodeList>;
  /** Undefined when the domain is unknown here (no node row, block, seed or sync log). */
  nodeDetail(domain: string, options?: { logLimit?: number }): Promise<AdminNodeDetail | undefined>;
  listSeeds(): Promise<SeedSummary[]>;
  /** Adds a seed (enabled), or sets the priority of an existing one and enables it again. */
  addSeed(
    domain: string,
    priority: number,
  ): Promise<Result<SeedSummary, Refusal<'INVALID_REQUEST'>>>;
  /** The updated seed, or undefined when there is no such seed. */
  setSeedPriority(domain: string, priority: number): Promise<SeedSummary | undefined>;
  /** The updated seed, or undefined when there is no such seed. */
  setSeedEnabled(domain: string, isEnabled: boolean): Promise<SeedSummary | undefined>;
  listBlocks(): Promise<BlockSummary[]>;
  /** The handle registry (newest change first), optionally one node's handles only. */
  listHandles(query?: {
    nodeDomain?: string;
    limit?: number;
  }): Promise<{ total: number; handles: HandleSummary[] }>;
  /**
   * Blocks a domain (again: the reason is updated) and marks its node row inactive. Refused for
   * this node's own domain.
   */
  blockNode(
    domain: string,
    reason: string | undefined,
    createdById?: string,
  ): Promise<Result<BlockSummary, Refusal<'INVALID_REQUEST'>>>;
  /** True when a block existed. The node stays inactive until it is contacted again. */
  unblockNode(domain: string): Promise<boolean>;
  /** Announce, discover, gossip or add a seed, reporting peer by peer. */
  runAction(action: AdminAction): Promise<AdminActionReport>;
}

export interface RegistryAdminDeps {
  db: Db;
  clock: Clock;
  config: Pick<NodeConfig, 'domain'>;
  logger: Logger;
  registry: RegistryService;
  gossip: GossipService;
}

const SEED = {
  domain: true,
  priority: true,
  isEnabled: true,
  lastContactAt: true,
  consecutiveFailures: true,
} as const;
const BLOCK = { domain: true, reason: true, createdAt: true } as const;
const ROW = {
  domain: true,
  name: true,
  trustScore: true,
  isActive: true,
  isVerified: true,
  consecutiveFailures: true,
  lastSeenAt: true,
  userCount: true,
  postCount: true,
  discoveredVia: true,
  discoveredAt: true,
} as const;

const NODE_LIST_MAX = 1000;
const SYNC_LOG_MAX = 200;
const HISTORY_POINTS = 100;

const SORT_COLUMN: Record<AdminNodeSort, keyof Prisma.SwarmNodeOrderByWithRelationInput> = {
  domain: 'domain',
  name: 'name',
  trust: 'trustScore',
  active: 'isActive',
  verified: 'isVerified',
  failures: 'consecutiveFailures',
  lastSeen: 'lastSeenAt',
  users: 'userCount',
  posts: 'postCount',
  discoveredVia: 'discoveredVia',
};

export function createRegistryAdminService(deps: RegistryAdminDeps): RegistryAdminService {
  const { prisma } = deps.db;
  const { registry, gossip, logger } = deps;
  const self = deps.config.domain;

  async function listNodes(query: AdminNodeQuery = {}): Promise<AdminNodeList> {
    const { status = 'all', sort = 'domain', dir = 'asc' } = query;
    const limit = Math.min(Math.max(query.limit ?? NODE_LIST_MAX, 1), NODE_LIST_MAX);
    const q = query.q?.trim();
    const blocked = [...(await registry.blockedDomains())];
    const where: Prisma.SwarmNodeWhereInput = {
      ...(q
        ? {
            OR: [
              { domain: { contains: q, mode: 'insensitive' } },
              { name: { contains: q, mode: 'insensitive' } },
            ],
          }
        : {}),
      ...(status === 'active' ? { isActive: true, domain: { notIn: blocked } } : {}),
      ...(status === 'inactive' ? { isActive: false } : {}),
      ...(status === 'blocked' ? { domain: { in: blocked } } : {}),
    };
    const column = SORT_COLUMN[sort];
    // Never-seen nodes go last whatever the direction: "no contact yet" is not a time.
    const primary =
      column === 'lastSeenAt'
        ? { lastSeenAt: { sort: dir, nulls: 'last' as const } }
        : { [column]: dir };
    const [rows, matched, total] = await Promise.all([
      prisma.swarmNode.findMany({
        where,
        select: ROW,
        orderBy: [primary, { domain: 'asc' }],
        take: limit,
      }),
      prisma.swarmNode.count({ where }),
      prisma.swarmNode.count(),
    ]);
    const isBlocked = new Set(blocked);
    return {
      nodes: rows.map((r) => ({ ...r, isBlocked: isBlocked.has(r.domain) })),
      matched,
      total,
    };
  }

  async function nodeDetail(
    domain: string,
    options: { logLimit?: number } = {},
  ): Promise<AdminNodeDetail | undefined> {
    const logLimit = Math.min(Math.max(options.logLimit ?? 50, 1), SYNC_LOG_MAX);
    const [row, block, seed, syncLog, history] = await Promise.all([
      prisma.swarmNode.findUnique({
        where: { domain },
        select: {
          ...ROW,
          description: true,
          logoUrl: true,
          softwareVersion: true,
          capabilities: true,
          isNsfw: true,
          publicKey: true,
          keyPinnedAt: true,
          protocolProfile: true,
          lastSyncAt: true,
          nextProbeAt: true,
          lastError: true,
        },
      }),
      prisma.nodeBlock.findUnique({ where: { domain }, select: BLOCK }),
      prisma.swarmSeed.findUnique({ where: { domain }, select: SEED }),
      prisma.swarmSyncLog.findMany({
        where: { remoteDomain: domain },
        orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
        take: logLimit,
        select: {
          id: true,
          direction: true,
          nodesSent: true,
          nodesReceived: true,
          handlesSent: true,
          handlesReceived: true,
          success: true,
          refused: true,
          errorMessage: true,
          durationMs: true,
          createdAt: true,
        },
      }),
      prisma.swarmSyncLog.findMany({
        where: { remoteDomain: domain },
        orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
        take: HISTORY_POINTS,
        select: { createdAt: true, durationMs: true, success: true, direction: true },
      }),
    ]);
    if (!row && !block && !seed && syncLog.length === 0) return undefined;
    let node: AdminNodeRecord | null = null;
    if (row) {
      const { publicKey, capabilities, ...rest } = row;
      node = {
        ...rest,
        capabilities: parseCapabilities(capabilities),
        hasPublicKey: publicKey !== null,
        isBlocked: block !== null,
      };
    }
    return {
      domain,
      node,
      block,
      seed,
      syncLog,
      history: history.reverse().map((h) => ({
        at: h.createdAt,
        durationMs: h.durationMs,
        success: h.success,
        direction: h.direction,
      })),
    };
  }

  const findSeed = async (domain: string) =>
    (await prisma.swarmSeed.findUnique({ where: { domain }, select: SEED })) ?? undefined;

  async function addSeed(
    domain: string,
    priority: number,
  ): Promise<Result<SeedSummary, Refusal<'INVALID_REQUEST'>>> {
    if (domain === self) return refuse('INVALID_REQUEST', 'A node cannot be its own seed.');
    await registry.addSeed(domain, priority);
    const seed = await findSeed(domain);
    return seed ? ok(seed) : refuse('INVALID_REQUEST', `${domain} could not be added as a seed.`);
  }

  async function setSeedPriority(domain: string, priority: number) {
    const updated = await prisma.swarmSeed.updateMany({ where: { domain }, data: { priority } });
    return updated.count === 0 ? undefined : findSeed(domain);
  }

  async function setSeedEnabled(domain: string, isEnabled: boolean) {
    const updated = await prisma.swarmSeed.updateMany({ where: { domain }, data: { isEnabled } });
    return updated.count === 0 ? undefined : findSeed(domain);
  }

  async function blockNode(
    domain: string,
    reason: string | undefined,
    createdById?: string,
  ): Promise<Result<BlockSummary, Refusal<'INVALID_REQUEST'>>> {
    if (domain === self) return refuse('INVALID_REQUEST', 'A node cannot block its own domain.');
    // Block row and inactive node together; the node row is left otherwise as it was.
    const block = await prisma.$transaction(async (tx) => {
      const saved = await tx.nodeBlock.upsert({
        where: { domain },
        create: {
          domain,
          reason: reason ?? null,
          createdAt: deps.clock.now(),
          createdById: createdById ?? null,
        },
        update: { reason: reason ?? null },
        select: BLOCK,
      });
      await tx.swarmNode.updateMany({ where: { domain }, data: { isActive: false } });
      return saved;
    });
    logger.info({ peer: domain, reason }, 'node blocked');
    return ok(block);
  }

  async function unblockNode(domain: string) {
    const deleted = await prisma.nodeBlock.deleteMany({ where: { domain } });
    if (deleted.count > 0) logger.info({ peer: domain }, 'node unblocked');
    return deleted.count > 0;
  }

  async function runAction(action: AdminAction): Promise<AdminActionReport> {
    const report = (results: PeerActionResult[]): AdminActionReport => ({
      action: action.action,
      ok: results.every((r) => r.ok),
      results,
    });
    switch (action.action) {
      case 'announce':
        return report(
          action.domain
            ? [await registry.announceTo(action.domain, 'admin')]
            : await registry.announceToSeeds(),
        );
      case 'discover':
        return report([await registry.probe(action.domain, 'discover')]);
      case 'gossip':
        return report(
          action.domain ? [await gossip.exchangeWith(action.domain)] : await gossip.round(),
        );
      case 'addSeed': {
        const added = await addSeed(action.domain, action.priority);
        if (!added.ok)
          return report([{ domain: action.domain, ok: false, ms: 0, error: added.reason.message }]);
        return { ...report([]), seed: { domain: action.domain, priority: action.priority } };
      }
    }
  }

  return {
    listNodes,
    nodeDetail,
    listSeeds: () =>
      prisma.swarmSeed.findMany({
        select: SEED,
        orderBy: [{ priority: 'asc' }, { domain: 'asc' }],
      }),
    addSeed,
    setSeedPriority,
    setSeedEnabled,
    listBlocks: () =>
      prisma.nodeBlock.findMany({
        select: BLOCK,
        orderBy: [{ createdAt: 'desc' }, { domain: 'asc' }],
      }),
    listHandles: async ({ nodeDomain, limit = 100 } = {}) => {
      const where = nodeDomain ? { nodeDomain } : {};
      const [total, handles] = await Promise.all([
        prisma.handleRegistryEntry.count({ where }),
        prisma.handleRegistryEntry.findMany({
          where,
          select: { handle: true, nodeDomain: true, did: true, updatedAt: true, source: true },
          orderBy: [{ changedAt: 'desc' }, { id: 'desc' }],
          take: limit,
        }),
      ]);
      return { total, handles };
    },
    blockNode,
    unblockNode,
    runAction,
  };
}
