import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { WEB_SECURITY_HEADERS } from '@swarm/contract';
import { isGatewayPath } from './app.ts';

/** A Node middleware such as SvelteKit's adapter-node `build/handler.js`. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: () => void) => void;

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

export interface NodeHttpServer extends Server {
  /**
   * Graceful stop: no new connections, idle keep-alive connections closed, every request in
   * flight answered (with `Connection: close`), then resolves. After `timeoutMs` whatever is
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
  fetch?: (request: Request) => Response | Promise<Response>;
  web?: NodeHandler;
}): NodeHttpServer {
  if (!opts.fetch && !opts.web)
    throw new Error('createHttpServer needs the gateway, the web app or both');
  // Never replace the global Request/Response with @hono/node-server's lightweight classes: the
  // web app mounted next to the gateway checks `instanceof Response` on what its endpoints
  // return, and a global swapped under it answered every JSON endpoint with 500 (issue 12).
  const gateway = opts.fetch && getRequestListener(opts.fetch, { overrideGlobalObjects: false });
  const { web } = opts;
  /** Responses not yet complete. */
  const active = new Set<ServerResponse>();
  let draining: { finished: number; cut: number; settle: () => void } | undefined;

  const server = createServer((req, res) => {
    active.add(res);
    // Once draining, the connection closes after this answer instead of waiting for another.
    if (draining && !res.headersSent) res.setHeader('Connection', 'close');
    res.once('close', () => {
      active.delete(res);
      if (!draining) return;
      if (res.writableFinished) draining.finished++;
      else draining.cut++;
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

  server.drain = (timeoutMs) => {
    const started = performance.now();
    const inFlightAtStart = active.size;
    return new Promise<DrainReport>((resolve) => {
      let closed = false;
      const state = {
        finished: 0,
        cut: 0,
        settle: () => {
          // A finished answer leaves its keep-alive connection idle: close it (next tick, once
          // Node has marked it idle).
          setImmediate(() => server.closeIdleConnections());
          done(false);
        },
      };
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
      // Stops listening; the callback runs once every connection is gone.
      server.close(() => {
        closed = true;
        done(false);
      });
      server.closeIdleConnections();
    });
  };
  return server;
}
