import type { Context } from 'hono';
import { scopesAllow } from '@swarm/auth';
import type { AppAccount } from '@swarm/domain';
import { bearerGrant, type BearerEnv } from './bearer.ts';
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

/**
 * The viewer of a read that is public but says more to a person (their follows' posts): null
 * without a token; a token sent is checked (401 unknown, 403 scope not covered).
 */
export async function optionalViewer(
  c: Context<BearerEnv>,
  accepted: readonly string[],
): Promise<{ id: string; handle: string; showNsfw: boolean } | null | Response> {
  if (!c.req.header('authorization')) return null;
  const grant = await bearerGrant(c.req.raw, c.var.deps);
  if (!grant) return apiError(c, 401, 'The access token is invalid');
  if (!scopesAllow(grant.scopes, accepted)) {
    return apiError(c, 403, 'This action is outside the authorized scopes');
  }
  if (!grant.userId) return null;
  return c.var.deps.node.db.prisma.user.findUnique({
    where: { id: grant.userId },
    select: { id: true, handle: true, showNsfw: true },
  });
}

export const notFound = (c: Context) => apiError(c, 404, 'Record not found');
