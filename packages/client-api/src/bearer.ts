import { createMiddleware } from 'hono/factory';
import { scopesAllow, type TokenGrant } from '@swarm/auth';
import type { ClientApiEnv } from './deps.ts';
import { apiError } from './errors.ts';

/**
 * Bearer authentication of the client API: the only credential `/api/v1` knows (a cookie never
 * opens it). `accepted` lists the scopes of which one is enough (`read:accounts` is covered by
 * `read`); `user` refuses app-only tokens where the endpoint is about a person.
 */

export type BearerEnv = ClientApiEnv & { Variables: { grant: TokenGrant } };

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export function requireToken(accepted: readonly string[], options: { user?: boolean } = {}) {
  return createMiddleware<BearerEnv>(async (c, next) => {
    const match = BEARER.exec(c.req.header('authorization') ?? '');
    const grant = match ? await c.var.deps.auth.clientTokens.authenticate(match[1]!) : null;
    if (!grant) {
      return apiError(c, 401, 'The access token is invalid', {
        headers: {
          'www-authenticate':
            'Bearer error="invalid_token", error_description="The access token is invalid"',
        },
      });
    }
    if (!scopesAllow(grant.scopes, accepted)) {
      return apiError(c, 403, 'This action is outside the authorized scopes');
    }
    if (options.user && grant.userId === null) {
      return apiError(c, 422, 'This method requires an authenticated user');
    }
    c.set('grant', grant);
    await next();
  });
}
