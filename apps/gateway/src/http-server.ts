import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { WEB_SECURITY_HEADERS } from '@swarm/contract';
import { isGatewayPath } from './app.ts';

/** A Node middleware such as SvelteKit's adapter-node `build/handler.js`. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: () => void) => void;

/**
 * One port for the whole node: the gateway's paths go to Hono, the rest to the web app when one
 * is mounted (embedded mode), exactly as the production reverse proxy routes them.
 */
export function createHttpServer(opts: {
  fetch: (request: Request) => Response | Promise<Response>;
  web?: NodeHandler;
}): Server {
  const gateway = getRequestListener(opts.fetch);
  const { web } = opts;
  return createServer((req, res) => {
    const pathname = (req.url ?? '/').split('?', 1)[0] ?? '/';
    if (!web || isGatewayPath(pathname)) {
      void gateway(req, res);
    } else {
      // The web app's hook sets these on what SvelteKit renders; its static files (/_app/*,
      // robots.txt) never pass the hook. In production the reverse proxy adds them.
      for (const [name, value] of Object.entries(WEB_SECURITY_HEADERS)) res.setHeader(name, value);
      web(req, res);
    }
  });
}
