import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { acceptRequestId, REQUEST_ID_HEADER } from '@swarm/domain';
import type { GatewayEnv } from '../router.ts';
import { clientIp } from './client-ip.ts';

/** Paths probed every few seconds (health, scrapes): logged at debug when they succeed. */
const PROBE_ROUTES = new Set(['/api/swarm/livez', '/api/swarm/readyz', '/api/swarm/metrics']);

/**
 * The route template that answered (`/api/swarm/users/:handle`), never the raw path, so logs
 * and metric labels stay bounded: the last matched route that is not a catch-all middleware,
 * or `unmatched` when none is (404s, whatever their path).
 */
export function routeTemplate(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i]!;
    if (route.method !== 'ALL') return route.path;
  }
  return 'unmatched';
}

/**
 * First middleware of the gateway: takes the caller's X-Request-Id (or makes one) and returns
 * it, runs the request in the node's request context (so peer calls forward the id and logs
 * carry it), then logs one line per request and records it in the metrics.
 */
export function observeRequests(): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const node = c.get('node');
    const requestId = acceptRequestId(c.req.header(REQUEST_ID_HEADER));
    c.set('requestId', requestId);
    c.header('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await node.requestContext.run({ requestId }, next);
    } finally {
      const seconds = (performance.now() - started) / 1000;
      const route = routeTemplate(c);
      const status = c.res.status;
      node.metrics.observeRequest({
        service: 'gateway',
        method: c.req.method,
        route,
        status,
        seconds,
      });
      const level = PROBE_ROUTES.has(route) && status < 400 ? 'debug' : 'info';
      // The line (and the client address it names) is built only when its level is logged.
      if (node.logger.isLevelEnabled(level)) {
        const line = {
          requestId,
          method: c.req.method,
          route,
          path: c.req.path,
          status,
          ms: Math.round(seconds * 10_000) / 10,
          client: clientIp(c, node.config.trustProxy),
        };
        node.logger[level](line, 'request');
      }
    }
  };
}
