import type { RequestEvent } from '@sveltejs/kit';
import { isClientApiPath } from '@swarm/client-api';
import { errorBody } from '@swarm/contract';
import { DATABASE_UNAVAILABLE, UNAVAILABLE_RETRY_AFTER_S, type NodeContext } from '@swarm/domain';

export const UNAVAILABLE_MESSAGE = "The node's database is unavailable; try again shortly.";

/** Paths probed every few seconds: logged at debug when they succeed (docs/deployment.md). */
const PROBE_PATHS = new Set(['/livez', '/readyz', '/metrics']);

/**
 * The route template (`/posts/[id]`), the probe path, `client-api` (its paths are no SvelteKit
 * routes) or `unmatched`: bounded label values.
 */
export function routeOf(event: Pick<RequestEvent, 'route' | 'url'>): string {
  if (PROBE_PATHS.has(event.url.pathname)) return event.url.pathname;
  if (isClientApiPath(event.url.pathname)) return 'client-api';
  return event.route.id ?? 'unmatched';
}

/** One log line and the metrics for an answered request. */
export function recordRequest(
  node: NodeContext,
  event: Pick<RequestEvent, 'route' | 'url' | 'request'>,
  info: { requestId: string; clientAddress: string; status: number; seconds: number },
): void {
  const route = routeOf(event);
  node.metrics.observeRequest({
    service: 'web',
    method: event.request.method,
    route,
    status: info.status,
    seconds: info.seconds,
  });
  const level = PROBE_PATHS.has(route) && info.status < 400 ? 'debug' : 'info';
  // Built only when its level is logged.
  if (!node.logger.isLevelEnabled(level)) return;
  const line = {
    requestId: info.requestId,
    method: event.request.method,
    route,
    path: event.url.pathname,
    status: info.status,
    ms: Math.round(info.seconds * 10_000) / 10,
    client: info.clientAddress,
  };
  node.logger[level](line, 'request');
}

/** Whether the caller wants JSON rather than a page (API paths, or Accept says so). */
function wantsJson(event: Pick<RequestEvent, 'url' | 'request'>): boolean {
  const path = event.url.pathname;
  if (path.startsWith('/api/') || path.startsWith('/trpc/') || path === '/trpc') return true;
  const accept = event.request.headers.get('accept') ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}

/** 503 UNAVAILABLE for a request that failed because the database is unreachable. */
export function unavailableResponse(
  event: Pick<RequestEvent, 'url' | 'request'>,
  previous?: Response,
): Response {
  const headers = new Headers({ 'retry-after': String(UNAVAILABLE_RETRY_AFTER_S) });
  if (wantsJson(event) || !previous) {
    if (!wantsJson(event)) {
      headers.set('content-type', 'text/plain; charset=utf-8');
      return new Response(`${UNAVAILABLE_MESSAGE}\n`, { status: 503, headers });
    }
    return Response.json(errorBody('UNAVAILABLE', UNAVAILABLE_MESSAGE), { status: 503, headers });
  }
  // A page: keep the rendered error page (its message comes from handleError), status 503.
  for (const [name, value] of previous.headers) headers.set(name, value);
  return new Response(previous.body, { status: 503, headers });
}

/** Logs an unexpected error on one line; an outage is logged once per interval instead. */
export async function logUnexpected(
  node: NodeContext,
  error: unknown,
  fields: Record<string, unknown>,
): Promise<boolean> {
  if (await node.health.isDatabaseUnavailable(error)) {
    node.failures.report(DATABASE_UNAVAILABLE, error, fields);
    return true;
  }
  node.logger.error({ ...fields, err: error }, 'unhandled error');
  return false;
}
