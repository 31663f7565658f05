import type { Context, MiddlewareHandler } from 'hono';
import type { LimitResult, LimitRule } from '@swarm/domain';
import { errorResponse } from '../errors.ts';
import { clientIp } from './client-ip.ts';
import { isWriteMethod, type SecurityEnv } from './security-env.ts';

// Rate limits on POSTs to /api/swarm/*: one budget per client IP and one per verified source
// node (SWARM_RATE_LIMIT_PER_MIN each). The buckets are the node context's `limits`: in memory
// in embedded mode, shared by every replica through Postgres or Redis otherwise
// (docs/deployment.md "Replicas").

/** Limit names (the buckets' namespace in the shared store). */
export const SWARM_IP_LIMIT = 'swarm-ip';
export const SWARM_SOURCE_LIMIT = 'swarm-source';

function perMinute(c: Context<SecurityEnv>): LimitRule {
  return { points: c.get('node').config.rateLimitPerMin, windowMs: 60_000 };
}

function rateLimited(c: Context<SecurityEnv>, retryAfterSec: number, who: string) {
  c.header('Retry-After', String(retryAfterSec));
  return errorResponse(
    c,
    'RATE_LIMITED',
    `Too many requests from ${who}; retry in ${retryAfterSec} s.`,
    { retryAfter: retryAfterSec },
  );
}

/** 429 RATE_LIMITED (with Retry-After) once a client IP spent its budget of writes. */
export function rateLimitByIp(): MiddlewareHandler<SecurityEnv> {
  return async (c, next) => {
    if (!isWriteMethod(c.req.method)) return next();
    const node = c.get('node');
    const ip = clientIp(c, node.config.trustProxy);
    const taken: LimitResult = await node.limits.take(SWARM_IP_LIMIT, ip, perMinute(c));
    if (!taken.ok) return rateLimited(c, taken.retryAfterSec, 'this address');
    return next();
  };
}

/**
 * The per-node budget, charged after the signature verified (an unverified claim of a domain
 * must not spend that domain's budget). Undefined when allowed, else the 429 answer.
 */
export async function chargeSourceDomain(
  c: Context<SecurityEnv>,
  sourceDomain: string,
): Promise<Response | undefined> {
  const taken = await c.get('node').limits.take(SWARM_SOURCE_LIMIT, sourceDomain, perMinute(c));
  return taken.ok ? undefined : rateLimited(c, taken.retryAfterSec, sourceDomain);
}
