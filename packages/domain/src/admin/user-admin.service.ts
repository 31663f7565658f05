import type { Db } from '@swarm/db';
import type { NodeConfig } from '../config.ts';

// The operator's list of this node's accounts (admin area). Accounts are created and changed
// by the auth services; this is read-only.

export interface AdminUserRow {
  id: string;
  handle: string;
  displayName: string;
  isAdmin: boolean;
  isBot: boolean;
  /** True once the user's browser registered a signing key. */
  hasKey: boolean;
  postsCount: number;
  followersCount: number;
  createdAt: Date;
  /** Moderation state (issue #15). */
  suspended: boolean;
  silenced: boolean;
  pendingApproval: boolean;
  /** What the account's uploads take in the media storage (docs/security.md "Uploads"). */
  uploads: number;
  uploadBytes: number;
}

/** The node's media storage against its budget, and the daily quota of one account. */
export interface AdminStorageSummary {
  usedBytes: number;
  budgetBytes: number;
  dailyQuotaBytes: number;
}

export interface UserAdminService {
  /** Oldest accounts first (the first one is the node's first admin). */
  listUsers(options?: {
    limit?: number;
  }): Promise<{ users: AdminUserRow[]; total: number; storage: AdminStorageSummary }>;
}

const USERS_MAX = 1000;

export function createUserAdminService(deps: {
  db: Db;
  config: Pick<NodeConfig, 'uploadDailyBytes' | 'uploadStorageBytes'>;
}): UserAdminService {
  const { prisma } = deps.db;
  return {
    async listUsers(options = {}) {
      const take = Math.min(Math.max(options.limit ?? USERS_MAX, 1), USERS_MAX);
      const [rows, total, stored] = await Promise.all([
        prisma.user.findMany({
          orderBy: [{ createdAt: 'asc' }, { handle: 'asc' }],
          take,
          select: {
            id: true,
            handle: true,
            displayName: true,
            isAdmin: true,
            isBot: true,
            did: true,
            postsCount: true,
            followersCount: true,
            createdAt: true,
            suspendedAt: true,
            silencedAt: true,
            pendingApproval: true,
          },
        }),
        prisma.user.count(),
        prisma.upload.aggregate({ _sum: { bytes: true } }),
      ]);
      const usage = await prisma.upload.groupBy({
        by: ['ownerId'],
        where: { ownerId: { in: rows.map((row) => row.id) } },
        _sum: { bytes: true },
        _count: { _all: true },
      });
      const usageOf = new Map(usage.map((u) => [u.ownerId, u]));
      return {
        users: rows.map(({ did, suspendedAt, silencedAt, ...user }) => ({
          ...user,
          hasKey: did !== null,
          suspended: suspendedAt !== null,
          silenced: silencedAt !== null,
          uploads: usageOf.get(user.id)?._count._all ?? 0,
          uploadBytes: usageOf.get(user.id)?._sum.bytes ?? 0,
        })),
        total,
        storage: {
          usedBytes: stored._sum.bytes ?? 0,
          budgetBytes: deps.config.uploadStorageBytes,
          dailyQuotaBytes: deps.config.uploadDailyBytes,
        },
      };
    },
  };
}
