import type { Context, MiddlewareHandler } from 'hono';
import type { NodeContext } from '@swarm/domain';
import { errorResponse } from '../errors.ts';
import { clientIp } from './client-ip.ts';
import { isWriteMethod, type SecurityEnv } from './security-env.ts';
import { createTokenBucketLimiter, type TokenBucketLimiter } from '@swarm/auth';

// Rate limits on POSTs to /api/swarm/*: one budget per client IP and one per verified source
// node (SWARM_RATE_LIMIT_PER_MIN each). The buckets live in this process's memory: with N
// gateway replicas behind a load balancer a client gets up to N times the budget.

interface NodeLimiters {
  ip: TokenBucketLimiter;
  source: TokenBucketLimiter;
}

/** One set of buckets per node context (tests run several nodes in one process). */
const limitersByNode = new WeakMap<NodeContext, NodeLimiters>();

function limitersFor(node: NodeContext): NodeLimiters {
  let limiters = limitersByNode.get(node);
  if (!limiters) {
    const perMinute = node.config.rateLimitPerMin;
    limiters = {
      ip: createTokenBucketLimiter({ perMinute }),
      source: createTokenBucketLimiter({ perMinute }),
    };
    limitersByNode.set(node, limiters);
  }
  return limiters;
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
    const taken = limitersFor(node).ip.take(ip, node.clock.now().getTime());
    if (!taken.ok) return rateLimited(c, taken.retryAfterSec, 'this address');
    return next();
  };
}

/**
 * The per-node budget, charged after the signature verified (an unverified claim of a domain
 * must not spend that domain's budget). Undefined when allowed, else the 429 answer.
 */
export function chargeSourceDomain(
  c: Context<SecurityEnv>,
  sourceDomain: string,
): Response | undefined {
  const node = c.get('node');
  const taken = limitersFor(node).source.take(sourceDomain, node.clock.now().getTime());
  return taken.ok ? undefined : rateLimited(c, taken.retryAfterSec, sourceDomain);
}
