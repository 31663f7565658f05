import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '@swarm/domain';
import type { StreamingAuth } from './auth.ts';
import type { Connection, StreamingHub } from './hub.ts';
import { parseSubscription } from './streams.ts';

/**
 * `/api/v1/streaming` over WebSocket, as Mastodon serves it: the token in `Authorization`, the
 * `access_token` query or `Sec-WebSocket-Protocol` (browsers can set no header), an optional
 * first `stream` in the query, then `subscribe` / `unsubscribe` messages on the one socket.
 * Attached to the Node HTTP server by the process that runs the web app (docs/architecture.md,
 * "The client API").
 */

export const WEBSOCKET_PATHS: ReadonlySet<string> = new Set([
  '/api/v1/streaming',
  '/api/v1/streaming/',
]);

/** A socket's unsent bytes past which it is a slow consumer and dropped. */
export const MAX_BUFFERED_BYTES = 1024 * 1024;
/** An app's messages are a line of JSON: nothing larger is read. */
const MAX_MESSAGE_BYTES = 4096;

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

const REASONS: Record<string, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

/** A refusal before the upgrade: an HTTP answer with Mastodon's `{error}` on the raw socket. */
function refuse(socket: Duplex, status: number, error: string) {
  const body = JSON.stringify({ error });
  const extra =
    status === 401
      ? 'WWW-Authenticate: Bearer error="invalid_token", error_description="The access token is invalid"\r\n'
      : '';
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}

export function createWebSocketEndpoint(deps: {
  hub: StreamingHub;
  auth: StreamingAuth;
  logger: Logger;
  /** The caller's address (the node's proxy rule, as the web app reads it). */
  addressOf: (req: IncomingMessage) => string;
}): { handleUpgrade: UpgradeHandler; close(): void } {
  const { hub, auth, logger } = deps;
  const server = new WebSocketServer({
    noServer: true,
    // Compression costs a zlib context per socket; events are small.
    perMessageDeflate: false,
    maxPayload: MAX_MESSAGE_BYTES,
    // Browsers send the token as the protocol: it must be echoed back or they hang up.
    handleProtocols: (protocols) => protocols.values().next().value ?? false,
  });

  function attach(ws: WebSocket, connection: Connection) {
    let alive = true;
    ws.on('pong', () => (alive = true));
    hub.attach(connection, {
      send(text) {
        if (ws.readyState !== ws.OPEN) return true;
        if (ws.bufferedAmount > MAX_BUFFERED_BYTES) return false;
        ws.send(text.ws);
        return true;
      },
      heartbeat() {
        if (!alive) return false;
        alive = false;
        ws.ping();
        return true;
      },
      close(reason) {
        if (reason === 'dead' || reason === 'slow') ws.terminate();
        else ws.close(reason === 'shutdown' ? 1001 : 1008, reason);
      },
    });
    ws.on('close', () => hub.close(connection));
    ws.on('error', () => hub.close(connection));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const answer = (error: string, status: number) => ws.send(JSON.stringify({ error, status }));
      let message: { type?: unknown; stream?: unknown; tag?: unknown; list?: unknown };
      try {
        message = JSON.parse(data.toString()) as typeof message;
      } catch {
        return answer('Could not parse the message', 400);
      }
      if (typeof message !== 'object' || message === null)
        return answer('Could not parse the message', 400);
      if (message.type !== 'subscribe' && message.type !== 'unsubscribe') {
        return answer('Unknown message type', 400);
      }
      void (async () => {
        const parsed = parseSubscription(
          typeof message.stream === 'string' ? message.stream : undefined,
          message,
          connection.grant,
        );
        if (!parsed.ok) return answer(parsed.error, parsed.status);
        if (message.type === 'unsubscribe') {
          hub.unsubscribe(connection, parsed.subscription.key);
          return;
        }
        const allowed = await auth.mayRead(connection, parsed.subscription);
        if (!allowed.ok) return answer(allowed.error, allowed.status);
        const refused = hub.subscribe(connection, parsed.subscription);
        if (refused) answer(refused, 429);
      })().catch((err: unknown) => {
        logger.warn({ err }, 'streaming: a subscribe message failed');
        answer('Something went wrong on this node', 500);
      });
    });
  }

  const handleUpgrade: UpgradeHandler = (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://streaming.invalid');
      const protocols = String(req.headers['sec-websocket-protocol'] ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      const caller = await auth.caller({
        authorization: req.headers.authorization,
        query: url.searchParams.get('access_token'),
        protocol: protocols[0],
      });
      if (!caller.ok) return refuse(socket, caller.status, caller.error);
      const name = url.searchParams.get('stream') ?? undefined;
      const first = name
        ? parseSubscription(name, Object.fromEntries(url.searchParams), caller.grant)
        : undefined;
      if (first && !first.ok) return refuse(socket, first.status, first.error);
      const opened = hub.open({
        grant: caller.grant,
        ip: deps.addressOf(req),
        token: caller.token,
      });
      if (!opened.ok) return refuse(socket, opened.status, opened.error);
      const { connection } = opened;
      if (first?.ok) {
        const allowed = await auth.mayRead(connection, first.subscription);
        if (!allowed.ok) {
          hub.close(connection);
          return refuse(socket, allowed.status, allowed.error);
        }
        hub.subscribe(connection, first.subscription);
      }
      if (socket.destroyed) return hub.close(connection);
      server.handleUpgrade(req, socket, head, (ws) => attach(ws, connection));
    })().catch((err: unknown) => {
      logger.warn({ err }, 'streaming: an upgrade failed');
      refuse(socket, 503, 'Something went wrong on this node; try again.');
    });
  };

  return {
    handleUpgrade,
    close: () => server.close(),
  };
}
