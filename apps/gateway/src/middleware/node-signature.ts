import type { Context, MiddlewareHandler } from 'hono';
import {
  SWARM_HEADERS,
  SWARM_PATHS,
  isWithinClockWindow,
  originSignerOf,
  withoutSignature,
} from '@swarm/contract';
import { errorResponse } from '../errors.ts';
import { readJsonBody, readRawBody } from './body.ts';
import { chargeSourceDomain } from './rate-limit.ts';
import { isWriteMethod, type SecurityEnv } from './security-env.ts';

/**
 * Verifies a node-signed request (docs/protocol.md, "Node authentication") and sets `sourceDomain`
 * to the verified sender. `required: true` (interactions, replies): unsigned requests get 401.
 * `required: false` (announce, gossip): an unsigned request passes with no `sourceDomain` (a hint
 * only), but a request that carries X-Swarm-* headers must verify. GET/HEAD pass untouched.
 *
 * Requests of the origin profile (docs/protocol.md "Peers of the origin profile") carry neither
 * our timestamp nor our nonce header: a body `signature` (announce, gossip, interactions) or
 * `X-Swarm-Source-Domain` + `X-Swarm-Signature` (replies). They are verified the origin's way
 * with our guards added, and set `profile: 'origin'` for the handlers. Only on those paths:
 * anything else (direct messages) without our four headers is refused.
 */
export function nodeSignature(opts: { required: boolean }): MiddlewareHandler<SecurityEnv> {
  return async (c, next) => {
    if (!isWriteMethod(c.req.method)) return next();
    const ours =
      c.req.header(SWARM_HEADERS.timestamp) !== undefined ||
      c.req.header(SWARM_HEADERS.nonce) !== undefined;
    if (!ours) {
      const origin = await originCandidate(c);
      if (origin) return verifyOrigin(c, next, origin);
    }
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

interface OriginCandidate {
  signer: string;
  payload: unknown;
  signature: string;
  /** Announce and gossip: the body's `timestamp`, which must be inside ±5 minutes. */
  timestamp: unknown;
  checkTimestamp: boolean;
}

/** An origin-profile request on a path that profile has, or undefined. */
async function originCandidate(c: Context<SecurityEnv>): Promise<OriginCandidate | undefined> {
  const path = c.req.path;
  if (path === SWARM_PATHS.replies) {
    const signer = c.req.header(SWARM_HEADERS.sourceDomain);
    const signature = c.req.header(SWARM_HEADERS.signature);
    if (!signer || !signature) return undefined;
    return {
      signer,
      signature,
      payload: await readJsonBody(c),
      timestamp: undefined,
      checkTimestamp: false,
    };
  }
  const body = await readJsonBody(c);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  const signature = record.signature;
  if (typeof signature !== 'string') return undefined;
  if (Object.values(SWARM_HEADERS).some((name) => c.req.header(name) !== undefined)) {
    return undefined; // some of our headers: judged as our profile (and refused if incomplete)
  }
  const signer = originSignerOf(path, body);
  if (signer === undefined) return undefined;
  const registry = path === SWARM_PATHS.announce || path === SWARM_PATHS.gossip;
  return {
    signer,
    signature,
    payload: withoutSignature(record),
    timestamp: record.timestamp,
    checkTimestamp: registry,
  };
}

async function verifyOrigin(
  c: Context<SecurityEnv>,
  next: () => Promise<void>,
  origin: OriginCandidate,
) {
  const node = c.get('node');
  if (!node.config.originCompat) {
    return errorResponse(
      c,
      'INVALID_SIGNATURE',
      'This node does not accept requests of the origin profile (SWARM_ORIGIN_COMPAT=0); sign with the X-Swarm-* headers.',
    );
  }
  // Our guard where the origin has none: a signed announce or gossip body is only good for
  // ±5 minutes (interactions and replies are held to the interaction window by the service,
  // and deduplicated by their ids).
  if (
    origin.checkTimestamp &&
    !(
      typeof origin.timestamp === 'string' &&
      isWithinClockWindow(origin.timestamp, node.clock.now())
    )
  ) {
    return errorResponse(
      c,
      'INVALID_SIGNATURE',
      'The body timestamp is missing or more than 5 minutes away from this node’s clock.',
    );
  }
  const verified = await node.nodeAuth.verifyOriginRequest({
    signerDomain: origin.signer,
    payload: origin.payload,
    signature: origin.signature,
  });
  if (!verified.ok) return errorResponse(c, verified.reason.code, verified.reason.message);
  const limited = await chargeSourceDomain(c, verified.value.sourceDomain);
  if (limited) return limited;
  c.set('sourceDomain', verified.value.sourceDomain);
  c.set('profile', 'origin');
  return next();
}
