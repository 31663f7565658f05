import type { MiddlewareHandler } from 'hono';
import { SWARM_HEADERS } from '@swarm/contract';
import { errorResponse } from '../errors.ts';
import { readRawBody } from './body.ts';
import { chargeSourceDomain } from './rate-limit.ts';
import { isWriteMethod, type SecurityEnv } from './security-env.ts';

/**
 * Verifies a node-signed request (DESIGN §3) and sets `sourceDomain` to the verified sender.
 * `required: true` (interactions, replies): unsigned requests get 401. `required: false`
 * (announce, gossip): an unsigned request passes with no `sourceDomain` (a hint only), but a
 * request that carries X-Swarm-* headers must verify. GET/HEAD pass untouched.
 */
export function nodeSignature(opts: { required: boolean }): MiddlewareHandler<SecurityEnv> {
  return async (c, next) => {
    if (!isWriteMethod(c.req.method)) return next();
    const signed = Object.values(SWARM_HEADERS).some((name) => c.req.header(name) !== undefined);
    if (!signed) {
      if (!opts.required) return next();
      return errorResponse(
        c,
        'INVALID_SIGNATURE',
        'This endpoint accepts node-signed requests only (X-Swarm-Source-Domain, X-Swarm-Timestamp, X-Swarm-Nonce, X-Swarm-Signature).',
      );
    }
    const node = c.get('node');
    const url = new URL(c.req.url);
    const verified = await node.nodeAuth.verifyNodeRequest({
      method: c.req.method,
      pathWithQuery: url.pathname + url.search,
      headers: c.req.raw.headers,
      rawBody: await readRawBody(c),
    });
    if (!verified.ok) return errorResponse(c, verified.reason.code, verified.reason.message);
    const limited = await chargeSourceDomain(c, verified.value.sourceDomain);
    if (limited) return limited;
    c.set('sourceDomain', verified.value.sourceDomain);
    return next();
  };
}
