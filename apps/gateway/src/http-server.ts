import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { WEB_SECURITY_HEADERS } from '@swarm/contract';
import { isGatewayPath } from './app.ts';
import { forAdapter } from './fast-answer.ts';

/** A Node middleware such as SvelteKit's adapter-node `build/handler.js`. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: () => void) => void;

/**
 * A WebSocket upgrade handler (the web app's: apps' streaming). True when it took the socket;
 * false leaves it to the server, which refuses it.
 */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;

/** What a drain did: requests that finished during it, and those it had to cut at the deadline. */
export interface DrainReport {
  /** Requests in flight when the drain began. */
  inFlightAtStart: number;
  /** Requests answered in full while draining (those in flight and any that arrived meanwhile). */
  finished: number;
  /** Requests whose connection was closed before their answer was complete. */
  cut: number;
  ms: number;
  /** True when the deadline passed and the remaining connections were closed. */
  timedOut: boolean;
}

/**
 * While draining, a kept-alive connection that carries no request for this long is closed. Not at
 * once: a client may have sent its next request already (under load it always has), and closing
 * then resets it unanswered; given a moment, that request arrives and is answered with
 * `Connection: close` (docs/deployment.md "Stopping").
 */
const DRAIN_IDLE_MS = 1_000;

export interface NodeHttpServer extends Server {
  /**
   * Graceful stop: no new connections; every request in flight, and every one that still arrives
   * on an open connection, answered with `Connection: close` (the connection closes after it);
   * connections idle for `DRAIN_IDLE_MS` closed; then resolves. After `timeoutMs` whatever is
   * still open is closed. Call once.
   */
  drain(timeoutMs: number): Promise<DrainReport>;
}

/** Where people upload photos (the web app's `routes/api/uploads`). */
const UPLOADS_PATH = '/api/uploads';

/**
 * adapter-node gives the web app no body at all for a request without a `Content-Type`. An
 * upload's type is read from its bytes (docs/security.md "Uploads"), so an untyped upload that
 * has a body gets a neutral type and reaches the route, which sniffs it like any other.
 */
function typeUntypedUpload(req: IncomingMessage, pathname: string) {
  if (pathname !== UPLOADS_PATH || req.headers['content-type'] !== undefined) return;
  const length = req.headers['content-length'];
  const hasBody = length !== undefined ? length.trim() !== '0' : !!req.headers['transfer-encoding'];
  if (hasBody) req.headers['content-type'] = 'application/octet-stream';
}

/**
 * One port for what this process serves: with both, the gateway's paths go to Hono and the rest
 * to the web app (embedded mode), exactly as the production reverse proxy routes them; with one,
 * everything goes to it (the gateway alone, or the web app alone).
 */
export function createHttpServer(opts: {
  fetch?: Parameters<typeof getRequestListener>[0];
  web?: NodeHandler;
  upgrade?: UpgradeHandler;
}): NodeHttpServer {
  if (!opts.fetch && !opts.web)
    throw new Error('createHttpServer needs the gateway, the web app or both');
  // Never replace the global Request/Response with @hono/node-server's lightweight classes: the
  // web app mounted next to the gateway checks `instanceof Response` on what its endpoints
  // return, and a global swapped under it answered every JSON endpoint with 500 (issue 12).
  const { fetch } = opts;
  const gateway =
    fetch &&
    getRequestListener(
      // The adapter's bindings (the Node request: the client address) go on to the app.
      async (request, bindings) => {
        const response: unknown = await fetch(request, bindings);
        return response instanceof Response ? forAdapter(response) : response;
      },
      { overrideGlobalObjects: false },
    );
  const { web } = opts;
  /** Responses not yet complete. */
  const active = new Set<ServerResponse>();
  /** Open connections: responses under way on each, and its idle timer while draining. */
  const connections = new Map<Socket, { busy: number; idle?: NodeJS.Timeout }>();
  let draining: { finished: number; cut: number; settle: () => void } | undefined;

  /** Closes `socket` once it has carried no request for DRAIN_IDLE_MS (draining only). */
  const closeWhenIdle = (socket: Socket) => {
    const state = connections.get(socket);
    if (!state || state.busy > 0) return;
    clearTimeout(state.idle);
    const read = socket.bytesRead;
    state.idle = setTimeout(() => {
      if (state.busy > 0) return;
      // Bytes came in since: a request is on its way (its headers not complete yet).
      if (socket.bytesRead !== read) closeWhenIdle(socket);
      else socket.destroy();
    }, DRAIN_IDLE_MS);
  };

  const server = createServer((req, res) => {
    active.add(res);
    const connection = connections.get(req.socket);
    if (connection) {
      connection.busy++;
      clearTimeout(connection.idle);
    }
    // Once draining, the connection closes after this answer instead of waiting for another.
    if (draining && !res.headersSent) res.setHeader('Connection', 'close');
    res.once('close', () => {
      active.delete(res);
      if (connection) connection.busy--;
      if (!draining) return;
      if (res.writableFinished) draining.finished++;
      else draining.cut++;
      closeWhenIdle(req.socket);
      draining.settle();
    });
    const pathname = (req.url ?? '/').split('?', 1)[0] ?? '/';
    if (gateway && (!web || isGatewayPath(pathname))) {
      void gateway(req, res);
    } else {
      // The web app's hook sets these on what SvelteKit renders; its static files (/_app/*,
      // robots.txt) never pass the hook.
      for (const [name, value] of Object.entries(WEB_SECURITY_HEADERS)) res.setHeader(name, value);
      typeUntypedUpload(req, pathname);
      web!(req, res);
    }
  }) as NodeHttpServer;
  // WebSocket upgrades: the web app's streaming, else refused (nothing else here speaks it).
  // Not while draining: the socket would outlive the drain.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!draining && opts.upgrade?.(req, socket, head)) return;
    socket.on('error', () => socket.destroy());
    socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { busy: 0 });
    socket.once('close', () => {
      clearTimeout(connections.get(socket)?.idle);
      connections.delete(socket);
    });
  });

  server.drain = (timeoutMs) => {
    const started = performance.now();
    const inFlightAtStart = active.size;
    return new Promise<DrainReport>((resolve) => {
      let closed = false;
      const state = { finished: 0, cut: 0, settle: () => done(false) };
      const done = (timedOut: boolean) => {
        if (!timedOut && (!closed || active.size > 0)) return;
        clearTimeout(timer);
        resolve({
          inFlightAtStart,
          finished: state.finished,
          cut: state.cut,
          ms: Math.round(performance.now() - started),
          timedOut,
        });
      };
      draining = state;
      const timer = setTimeout(() => {
        const left = active.size;
        server.closeAllConnections();
        // The 'close' events of the cut answers count them; wait for them to be delivered.
        setImmediate(() => {
          state.cut = Math.max(state.cut, left);
          done(true);
        });
      }, timeoutMs);
      for (const res of active) if (!res.headersSent) res.setHeader('Connection', 'close');
      for (const socket of connections.keys()) closeWhenIdle(socket);
      // Stops listening; the callback runs once every connection is gone. net's close, not
      // http's: that one also closes idle connections at once, resetting requests under way.
      NetServer.prototype.close.call(server, () => {
        closed = true;
        done(false);
      });
    });
  };
  return server;
}
