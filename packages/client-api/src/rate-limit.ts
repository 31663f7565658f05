import { createMiddleware } from 'hono/factory';
import { bearerGrant } from './bearer.ts';
import type { ClientApiEnv } from './deps.ts';
import { apiError } from './errors.ts';

/**
 * The client API's rate limit (docs/clients.md "Rate limits"), with Mastodon's headers on every
 * answer: `SWARM_APP_RATE_LIMIT` requests per 5 minutes per valid access token, or per client
 * address for calls without one (a made-up token counts there too: new tokens cannot buy new
 * budgets); over it, 429 with Retry-After. A bucket of the node's shared limits, so replicas
 * count together. Streaming is not counted here: its connections have bounds of their own.
 */

const WINDOW_MS = 5 * 60_000;
const LIMIT_NAME = 'client-api';

export function rateLimit() {
  return createMiddleware<ClientApiEnv>(async (c, next) => {
    if (c.req.path.startsWith('/api/v1/streaming')) return next();
    const { node } = c.var.deps;
    const points = node.config.appRateLimitPer5Min;
    const grant = await bearerGrant(c.req.raw, c.var.deps);
    const key = grant ? `token:${grant.tokenId}` : `address:${c.env.clientIp}`;
    const taken = await node.limits.take(LIMIT_NAME, key, { points, windowMs: WINDOW_MS });
    const now = node.clock.now().getTime();
    if (!taken.ok) {
      return apiError(c, 429, `Too many requests; retry in ${taken.retryAfterSec} s.`, {
        code: 'RATE_LIMITED',
        headers: {
          'retry-after': String(taken.retryAfterSec),
          'x-ratelimit-limit': String(points),
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': new Date(now + taken.retryAfterSec * 1000).toISOString(),
        },
      });
    }
    await next();
    // When the bucket is full again: each spent request comes back after WINDOW_MS / points.
    const fullAt = now + Math.ceil(((points - taken.remaining) * WINDOW_MS) / points);
    c.res.headers.set('x-ratelimit-limit', String(points));
    c.res.headers.set('x-ratelimit-remaining', String(taken.remaining));
    c.res.headers.set('x-ratelimit-reset', new Date(fullAt).toISOString());
  });
}
