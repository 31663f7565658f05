import type { IncomingMessage } from 'node:http';
import type { AuthServices } from '@swarm/auth';
import { createStreamFeed, type NodeContext, type StreamFeedOptions } from '@swarm/domain';
import type { ProxyAddressing } from '../deps.ts';
import { createStreamingAuth } from './auth.ts';
import { createStreamingHub, type StreamingHub, type StreamingLimits } from './hub.ts';
import { createStreamRenderers } from './payloads.ts';
import { streamingRoutes } from './sse.routes.ts';
import { createWebSocketEndpoint, WEBSOCKET_PATHS, type UpgradeHandler } from './websocket.ts';

/**
 * Apps' streaming, put together once per process (docs/clients.md, "Streaming"): the node's
 * stream feed, one hub for every connection, the event-stream routes (served by the client API's
 * Hono app) and the WebSocket upgrade (attached to the Node HTTP server by the process's entry).
 */
export interface Streaming {
  hub: StreamingHub;
  routes: ReturnType<typeof streamingRoutes>;
  /**
   * For the HTTP server's `upgrade` event: takes `/api/v1/streaming` and answers true; anything
   * else is left to the caller (false).
   */
  upgrade(req: IncomingMessage, socket: Parameters<UpgradeHandler>[1], head: Buffer): boolean;
}

/**
 * The caller's address for the limits, by the same rule as the web app's adapter: the proxy's
 * header (`depth` entries from the right for X-Forwarded-For); else the socket's peer.
 */
export function upgradeAddress(req: IncomingMessage, proxy: ProxyAddressing = {}): string {
  const header = proxy.header?.toLowerCase();
  const peer = req.socket.remoteAddress ?? 'unknown';
  if (!header) return peer;
  const value = req.headers[header];
  const raw = Array.isArray(value) ? value.join(',') : value;
  if (!raw) return peer;
  if (header !== 'x-forwarded-for') return raw.trim();
  const addresses = raw.split(',').map((a) => a.trim());
  const depth = Math.max(1, Math.trunc(proxy.depth ?? 1) || 1);
  return addresses[addresses.length - depth] ?? addresses[0] ?? peer;
}

export function createStreaming(input: {
  node: NodeContext;
  auth: AuthServices;
  proxy?: ProxyAddressing | undefined;
  feedOptions?: StreamFeedOptions;
  limits?: Partial<StreamingLimits>;
}): Streaming {
  const { node } = input;
  const feed = createStreamFeed({
    db: node.db,
    clock: node.clock,
    logger: node.logger,
    invalidations: node.invalidations,
    lifecycle: node.lifecycle,
    domain: node.config.domain,
    options: input.feedOptions,
  });
  const renderers = createStreamRenderers(node);
  const auth = createStreamingAuth({ clientTokens: input.auth.clientTokens, renderers });
  const hub = createStreamingHub({
    feed,
    renderers,
    logger: node.logger,
    stillValid: (token) => auth.stillValid(token),
    limits: input.limits,
    onShutdown: (listener) => node.lifecycle.onShutdown?.(listener),
  });
  const socket = createWebSocketEndpoint({
    hub,
    auth,
    logger: node.logger,
    addressOf: (req) => upgradeAddress(req, input.proxy),
  });
  node.lifecycle.onShutdown?.(() => socket.close());
  return {
    hub,
    routes: streamingRoutes({ hub, auth }),
    upgrade(req, sock, head) {
      const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
      if (!WEBSOCKET_PATHS.has(path)) return false;
      socket.handleUpgrade(req, sock, head);
      return true;
    },
  };
}
