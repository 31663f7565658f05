import type { Prisma } from '@swarm/db';

/**
 * Accounts this node hides from people and peers as if they did not exist (issue #15): suspended
 * ones, and sign-ups still waiting for approval. The one check every read and receiver uses, so
 * "answers as for a deleted account" means the same everywhere. Reversible: clearing the flags
 * brings everything back (nothing is deleted).
 */
export interface AccountFlags {
  suspendedAt: Date | null;
  pendingApproval: boolean;
}

export function isHiddenAccount(user: AccountFlags): boolean {
  return user.suspendedAt !== null || user.pendingApproval;
}

/** `where` for users that are shown: the same rule as `isHiddenAccount`, for queries. */
export const SHOWN_ACCOUNT = {
  suspendedAt: null,
  pendingApproval: false,
} as const satisfies Prisma.UserWhereInput;

/** The columns `isHiddenAccount` reads. */
export const ACCOUNT_FLAGS_SELECT = {
  suspendedAt: true,
  pendingApproval: true,
} as const satisfies Prisma.UserSelect;
