import type { Context } from 'hono';
import { baseUrlForDomain } from '@swarm/contract';
import type { AccountRecord } from '@swarm/domain';
import type { BearerEnv } from './bearer.ts';
import type { ClientApiDeps } from './deps.ts';
import { recordAccount, type AccountEntityContext } from './entities/account-record.ts';
import { apiError } from './errors.ts';

/** What several route files share: the entity context, the signed-in person, a 404. */

export function entityContext(deps: ClientApiDeps): AccountEntityContext {
  return {
    baseUrl: baseUrlForDomain(deps.node.config.domain),
    src: (url) => deps.node.media.src(url),
  };
}

export function accountJson(deps: ClientApiDeps, record: AccountRecord) {
  return recordAccount(record, entityContext(deps));
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
