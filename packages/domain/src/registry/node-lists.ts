import {
  formatTimestamp,
  type NodeListEntry,
  type NodeSummary,
  type SwarmStats,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { NodeInfoService } from '../node-info.service.ts';

/** What the registry answers about the nodes it knows: blocks, active peers, lists, stats. */
export interface NodeLists {
  isBlocked(domain: string): Promise<boolean>;
  blockedDomains(): Promise<Set<string>>;
  /** Verified nodes for public lists: active first, most recently seen first. */
  listNodes(limit: number): Promise<NodeListEntry[]>;
  nodeSummaries(limit: number): Promise<NodeSummary[]>;
  stats(): Promise<SwarmStats>;
  /** Active verified peers with their trust, for gossip peer selection. */
  activePeers(): Promise<{ domain: string; trustScore: number }[]>;
}

export function createNodeLists(deps: {
  self: string;
  db: Db;
  nodeInfo: NodeInfoService;
}): NodeLists {
  const { self, db, nodeInfo } = deps;
  const prisma = db.prisma;

  async function isBlocked(domain: string): Promise<boolean> {
    return (await prisma.nodeBlock.count({ where: { domain } })) > 0;
  }

  async function blockedDomains(): Promise<Set<string>> {
    const rows = await prisma.nodeBlock.findMany({ select: { domain: true } });
    return new Set(rows.map((r) => r.domain));
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

  return { isBlocked, blockedDomains, listNodes, nodeSummaries, stats, activePeers };
}
