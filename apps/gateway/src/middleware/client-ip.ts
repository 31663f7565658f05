import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

/**
 * The client's address for rate limits. The socket's peer address by default; with
 * SWARM_TRUST_PROXY=1 the last X-Forwarded-For entry, i.e. the address our own reverse proxy
 * saw (entries before it are whatever the client claimed). "unknown" without a socket
 * (in-process requests in tests).
 */
export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for');
    const last = forwarded
      ?.split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .at(-1);
    if (last) return last;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
