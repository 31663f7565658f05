import { createMiddleware } from 'hono/factory';
import { scopesAllow, type TokenGrant } from '@swarm/auth';
import type { ClientApiDeps, ClientApiEnv } from './deps.ts';
import { apiError } from './errors.ts';

/**
 * Bearer authentication of the client API: the only credential `/api/v1` knows (a cookie never
 * opens it). `accepted` lists the scopes of which one is enough (`read:accounts` is covered by
 * `read`); `user` refuses app-only tokens where the endpoint is about a person.
 */

export type BearerEnv = ClientApiEnv & { Variables: { grant: TokenGrant } };

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Grants looked up, by request: the rate limit needs it first, the routes after. */
const looked = new WeakMap<Request, TokenGrant | null>();

/** The grant of the request's bearer token, looked up once: null when none is sent or invalid. */
export async function bearerGrant(
  request: Request,
  deps: ClientApiDeps,
): Promise<TokenGrant | null> {
  const known = looked.get(request);
  if (known !== undefined) return known;
  const match = BEARER.exec(request.headers.get('authorization') ?? '');
  const grant = match ? await deps.auth.clientTokens.authenticate(match[1]!) : null;
  looked.set(request, grant);
  return grant;
}

export function requireToken(accepted: readonly string[], options: { user?: boolean } = {}) {
  return createMiddleware<BearerEnv>(async (c, next) => {
    const grant = await bearerGrant(c.req.raw, c.var.deps);
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
