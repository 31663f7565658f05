import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { TokenGrant } from '@swarm/auth';
import type { ClientViewer } from '@swarm/domain';
import { requireToken, type BearerEnv } from './bearer.ts';

/**
 * Who reads, for endpoints that anyone may call (public timelines, a public status): with a
 * token, it is checked as `requireToken` checks it (a bad one is still a 401); without one, the
 * caller is anonymous, as Mastodon allows by default.
 */
export function optionalToken(accepted: readonly string[]) {
  const required = requireToken(accepted);
  return createMiddleware<BearerEnv>(async (c, next) => {
    if (c.req.header('authorization') === undefined) {
      await next();
      return;
    }
    return required(c, next);
  });
}

/** The token's grant, or undefined for an anonymous caller (see `optionalToken`). */
export function grantOf(c: Context<BearerEnv>): TokenGrant | undefined {
  return c.get('grant') as TokenGrant | undefined;
}

/**
 * The person a token acts for, as the read model takes it; null for an anonymous caller or an
 * app-only token; undefined when the person is not shown any more (then the token is refused).
 */
export async function viewerOf(c: Context<BearerEnv>): Promise<ClientViewer | null | undefined> {
  const userId = grantOf(c)?.userId ?? null;
  if (!userId) return null;
  const person = await c.var.deps.usage.person(userId);
  return person ? { id: person.id, handle: person.handle } : undefined;
}
