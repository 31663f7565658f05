import type { MiddlewareHandler } from 'hono';
import { LIMITS, SWARM_PATHS } from '@swarm/contract';
import { jsonOnly, limitBody, parseJsonBody } from './body.ts';
import type { SecurityEnv } from './security-env.ts';

/** Gossip and announce carry node lists (256 KiB); interactions, replies and the rest 64 KiB. */
export function bodyCapFor(pathname: string): number {
  return pathname === SWARM_PATHS.gossip || pathname === SWARM_PATHS.announce
    ? LIMITS.gossipBodyBytes
    : LIMITS.interactionBodyBytes;
}

/** Body cap chosen by path (hono's bodyLimit underneath). */
export function limitBodyByPath(): MiddlewareHandler<SecurityEnv> {
  const large = limitBody(LIMITS.gossipBodyBytes);
  const small = limitBody(LIMITS.interactionBodyBytes);
  return (c, next) =>
    bodyCapFor(c.req.path) === LIMITS.gossipBodyBytes ? large(c, next) : small(c, next);
}

/**
 * The body checks of every write to /api/swarm/*, in this order: JSON only (415), body cap
 * (413), well-formed JSON (400). Reads pass untouched. The app mounts `rateLimitByIp()` before
 * them and admin authentication in between, so a caller without a token never gets its body
 * read.
 */
export function swarmBodyGuards(): MiddlewareHandler<SecurityEnv>[] {
  return [jsonOnly(), limitBodyByPath(), parseJsonBody()];
}
