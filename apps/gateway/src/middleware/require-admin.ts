import type { MiddlewareHandler } from 'hono';
import { errorResponse } from '../errors.ts';
import type { SecurityEnv } from './security-env.ts';

/**
 * Admin endpoints: `Authorization: Bearer <token>` (ADMIN_TOKEN or a stored token). Otherwise
 * 401 UNAUTHORIZED with a WWW-Authenticate challenge, and the handler never runs.
 */
export function requireAdmin(): MiddlewareHandler<SecurityEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const token = /^Bearer +(\S+) *$/i.exec(header)?.[1];
    const principal = await c.get('node').adminTokens.verifyBearer(token);
    if (!principal.ok) {
      c.header(
        'WWW-Authenticate',
        token ? 'Bearer realm="swarm-admin", error="invalid_token"' : 'Bearer realm="swarm-admin"',
      );
      return errorResponse(
        c,
        'UNAUTHORIZED',
        token
          ? 'The admin token is not valid.'
          : 'This endpoint needs an admin token: Authorization: Bearer <token>.',
      );
    }
    c.set('admin', principal.value);
    return next();
  };
}
