import type { Db } from '@swarm/db';

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
}

export interface UserAdminService {
  /** Oldest accounts first (the first one is the node's first admin). */
  listUsers(options?: { limit?: number }): Promise<{ users: AdminUserRow[]; total: number }>;
}

const USERS_MAX = 1000;

export function createUserAdminService(deps: { db: Db }): UserAdminService {
  const { prisma } = deps.db;
  return {
    async listUsers(options = {}) {
      const take = Math.min(Math.max(options.limit ?? USERS_MAX, 1), USERS_MAX);
      const [rows, total] = await Promise.all([
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
      ]);
      return {
        users: rows.map(({ did, suspendedAt, silencedAt, ...user }) => ({
          ...user,
          hasKey: did !== null,
          suspended: suspendedAt !== null,
          silenced: silencedAt !== null,
        })),
        total,
      };
    },
  };
}
