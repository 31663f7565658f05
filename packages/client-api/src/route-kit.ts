import type { Context } from 'hono';
import type { AppAccount } from '@swarm/domain';
import type { BearerEnv } from './bearer.ts';
import type { ClientApiDeps } from './deps.ts';
import { accountEntity } from './entities/account.ts';
import { apiError } from './errors.ts';

/** What several route files share: the account entity, the signed-in person, a 404. */

/** Mastodon's Account entity of anyone this node knows (the statuses' entity, one shape). */
export function accountJson(deps: ClientApiDeps, record: AppAccount) {
  return accountEntity(record, deps.node.config.domain);
}

/** The token's person (`requireToken(…, { user: true })` ran first) with their handle. */
export async function tokenPerson(
  c: Context<BearerEnv>,
): Promise<{ id: string; handle: string; showNsfw: boolean } | null> {
  const userId = c.var.grant.userId;
  if (!userId) return null;
  const user = await c.var.deps.node.db.prisma.user.findUnique({
    where: { id: userId },
    select: { id: true, handle: true, showNsfw: true },
  });
  return user;
}

export const notFound = (c: Context) => apiError(c, 404, 'Record not found');
