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
    // Parsing the URL costs more than the rest of a cached read: only a URL whose text holds
    // `%00` at all (anywhere, any case: it has no letters) can have it in its path or query.
    const raw = c.req.url;
    if (raw.includes('%00') && urlHasNul(new URL(raw))) {
      return errorResponse(c, 'INVALID_REQUEST', NUL_REFUSED);
    }
    await next();
  };
}
