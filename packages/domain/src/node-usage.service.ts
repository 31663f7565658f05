import type { Db } from '@swarm/db';
import type { Clock } from './clock.ts';

/**
 * What the node tells directories and apps about itself besides its node info: how many people
 * use it and who to contact (nodeinfo's `usage`, the client API's instance document).
 */

export interface NodeUsage {
  users: number;
  /** People who signed in or posted in the last 30 days, and in the last 180. */
  activeMonth: number;
  activeHalfyear: number;
  localPosts: number;
  /** Other nodes this node knows. */
  knownNodes: number;
}

/** A person of this node as apps show them (the first admin is the node's contact). */
export interface NodeContact {
  id: string;
  handle: string;
  displayName: string;
  bio: string;
  avatarUrl: string | null;
  headerUrl: string | null;
  isBot: boolean;
  followersCount: number;
  followingCount: number;
  postsCount: number;
  createdAt: Date;
}

export interface NodeUsageService {
  usage(): Promise<NodeUsage>;
  contact(): Promise<NodeContact | null>;
  /** A person of this node as apps show accounts, or null when unknown or not shown. */
  person(userId: string): Promise<NodeContact | null>;
}

const CONTACT_SELECT = {
  id: true,
  handle: true,
  displayName: true,
  bio: true,
  avatarUrl: true,
  headerUrl: true,
  isBot: true,
  followersCount: true,
  followingCount: true,
  postsCount: true,
  createdAt: true,
} as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/** People who can be counted and shown: not suspended, not waiting for approval. */
const VISIBLE = { suspendedAt: null, pendingApproval: false } as const;

export function createNodeUsageService(deps: { db: Db; clock: Clock }): NodeUsageService {
  const { prisma } = deps.db;
  const activeSince = (days: number) => {
    const since = new Date(deps.clock.now().getTime() - days * DAY_MS);
    return prisma.user.count({
      where: {
        ...VISIBLE,
        OR: [
          { sessions: { some: { createdAt: { gte: since } } } },
          { posts: { some: { createdAt: { gte: since }, apId: null } } },
        ],
      },
    });
  };
  return {
    async usage() {
      const [users, activeMonth, activeHalfyear, localPosts, knownNodes] = await Promise.all([
        prisma.user.count({ where: VISIBLE }),
        activeSince(30),
        activeSince(180),
        prisma.post.count({ where: { apId: null, deletedAt: null } }),
        prisma.swarmNode.count(),
      ]);
      return { users, activeMonth, activeHalfyear, localPosts, knownNodes };
    },
    async person(userId) {
      return prisma.user.findFirst({ where: { ...VISIBLE, id: userId }, select: CONTACT_SELECT });
    },
    async contact() {
      return prisma.user.findFirst({
        where: { ...VISIBLE, isAdmin: true },
        orderBy: { createdAt: 'asc' },
        select: CONTACT_SELECT,
      });
    },
  };
}
