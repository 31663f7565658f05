import type { MiddlewareHandler } from 'hono';
import { NUL_REFUSED, urlHasNul } from '@swarm/contract';
import { errorResponse } from '../errors.ts';

/**
 * Any byte sequence in a path or query gets a 4xx, never a 500 (issue 17): a NUL (`%00`) is
 * the one a route could carry to the database, which refuses it, so it stops here, before any
 * route parameter or query value is read. Other bytes decode to text the routes validate.
 */
export function refuseNulInUrl(): MiddlewareHandler {
  return async (c, next) => {
    if (urlHasNul(new URL(c.req.url))) return errorResponse(c, 'INVALID_REQUEST', NUL_REFUSED);
    await next();
  };
}
