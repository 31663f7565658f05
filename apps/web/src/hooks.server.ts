import type { Handle, HandleServerError, ServerInit } from '@sveltejs/kit';
import { sequence } from '@sveltejs/kit/hooks';
import { createCaller } from '@swarm/api';
import { authServicesOf, type AuthServices } from '@swarm/auth';
import { createClientApi, isClientApiPath, type ClientApi } from '@swarm/client-api';
import {
  acceptRequestId,
  bootNode,
  createLogger,
  createMetricsServer,
  parseConfig,
  REQUEST_ID_HEADER,
  type NodeContext,
} from '@swarm/domain';
import { edge, formBody } from '$lib/server/edge';
import { clientAddressOf } from '$lib/server/client-address';
import {
  logUnexpected,
  recordRequest,
  routeOf,
  UNAVAILABLE_MESSAGE,
  unavailableResponse,
} from '$lib/server/observe';
import { opsResponse } from '$lib/server/ops-endpoints';
import { createPublicReads, type PublicReads } from '$lib/server/public-reads';
import { refuseForeignRequest } from '$lib/server/request-origin';
import { withSecurityHeaders } from '$lib/server/security-headers';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from '$lib/server/session-cookie';

let node: NodeContext | undefined;
let auth: AuthServices | undefined;
let clientApi: ClientApi | undefined;
let publicReads: PublicReads | undefined;

/** What the process that booted the node hands the web app. */
export interface WebComposition {
  node: NodeContext;
  auth: AuthServices;
}

/**
 * adapter-node's proxy settings, which the WebSocket upgrades of the client API's streaming read
 * the same way as the adapter reads them for requests (the upgrade does not pass through it).
 */
function proxyAddressing() {
  const depth = Number(process.env.XFF_DEPTH ?? 1);
  return { header: process.env.ADDRESS_HEADER || undefined, depth };
}

/**
 * The embedded and web-only modes (`apps/gateway/src/main.ts`): the gateway's entry boots the
 * node, since an embedded database opens in one place only, and hands it here through the
 * build's `embedded.js` (`createWebHandler`, written by `embedded-adapter.ts`) before the server
 * starts. Not a SvelteKit hook; exported so that entry can reach it.
 */
export function useComposition(composition: WebComposition): void {
  if (node) throw new Error('The web app already has its node context.');
  ({ node, auth } = composition);
  clientApi = createClientApi({ ...composition, proxy: proxyAddressing() });
  publicReads = createPublicReads(composition.node);
}

/**
 * WebSocket upgrades of the process's HTTP server (apps' streaming, `/api/v1/streaming`):
 * handed on by the entry that owns the server (`embedded.js`, apps/gateway/src/http-server.ts).
 * False when the path is not ours or the client API is not built yet; the caller then refuses.
 * Not a SvelteKit hook; exported so that entry can reach it.
 */
export function handleUpgrade(...args: Parameters<ClientApi['upgrade']>): boolean {
  return clientApi?.upgrade(...args) ?? false;
}

// Run alone (`vite dev`, `node build/index.js`), the web app boots its own context from the same
// environment variables; the schema is the gateway's and the migrate job's business (this bundle
// carries no migrations folder).
export const init: ServerInit = async () => {
  if (node) return;
  const parsed = parseConfig(process.env);
  if (!parsed.ok) {
    throw new Error(`Invalid configuration:\n  ${parsed.errors.join('\n  ')}`);
  }
  const logger = createLogger(parsed.value.logLevel, {
    name: 'web',
    pretty: process.stdout.isTTY,
  });
  const own = await bootNode(parsed.value, { logger, migrate: false });
  node = own;
  // Login and sign-up throttles take from the node's shared limits (one budget across replicas).
  auth = authServicesOf(own);
  clientApi = createClientApi({ node: own, auth, proxy: proxyAddressing() });
  publicReads = createPublicReads(own);
  // Optional private port for scrapers without a token (as the gateway's entry does).
  const { metricsPort, metricsHost } = parsed.value;
  const metricsServer = metricsPort === undefined ? undefined : createMetricsServer(own.metrics);
  metricsServer?.listen(metricsPort, metricsHost, () =>
    logger.info(`Metrics on http://${metricsHost}:${metricsPort}/metrics`),
  );
  // Standalone (build/index.js): on SIGTERM/SIGINT readiness turns false while adapter-node
  // drains its connections (SHUTDOWN_TIMEOUT); once it has, the database closes and the
  // process exits on its own. Closing what this process opened (pool, Redis) lets it exit.
  const beginShutdown = () => own.lifecycle.beginShutdown();
  process.once('SIGTERM', beginShutdown);
  process.once('SIGINT', beginShutdown);
  process.once('sveltekit:shutdown', () => {
    metricsServer?.close();
    void own.close();
  });
};

const nodeContext: Handle = async ({ event, resolve }) => {
  if (!node || !auth) throw new Error('node context is not ready');
  const started = performance.now();
  const requestId = acceptRequestId(event.request.headers.get(REQUEST_ID_HEADER));
  const clientAddress = clientAddressOf(event);
  event.locals.requestId = requestId;
  event.locals.clientAddress = clientAddress;
  const current = node;
  const services = auth;
  let response: Response;
  try {
    response = await node.requestContext.run({ requestId }, () =>
      respond(current, services, event, resolve),
    );
  } catch (error) {
    // Our own code above failed (e.g. the session lookup): an outage is a 503, not a 500.
    if (!(await logUnexpected(current, error, { requestId, route: routeOf(event) }))) throw error;
    response = unavailableResponse(event);
  }
  // Any 500 while the database does not answer is the outage's, not a bug's.
  if (
    response.status === 500 &&
    (event.locals.databaseUnavailable || !(await current.health.databaseAnswers()))
  ) {
    response = unavailableResponse(event, response);
  }
  response = withSecurityHeaders(withHeader(response, 'x-request-id', requestId), event.url);
  recordRequest(current, event, {
    requestId,
    clientAddress,
    status: response.status,
    seconds: (performance.now() - started) / 1000,
  });
  return response;
};

async function respond(
  node: NodeContext,
  auth: AuthServices,
  event: Parameters<Handle>[0]['event'],
  resolve: Parameters<Handle>[0]['resolve'],
): Promise<Response> {
  // Health and metrics before the session: they must answer whatever the database does.
  const ops = await opsResponse(node, event.request, event.url.pathname);
  if (ops) return ops;
  // Other people's apps (docs/clients.md): bearer tokens, never the session cookie, which is
  // why these paths skip the same-origin check below (docs/security.md, "Sessions and forms").
  if (clientApi && isClientApiPath(event.url.pathname)) {
    return clientApi.fetch(event.request, { clientIp: event.locals.clientAddress });
  }
  // CSRF, for every state-changing request whatever its content type (SvelteKit's own check,
  // which covers form content types only, is off in vite.config.ts): before anything runs.
  const refused = refuseForeignRequest(event.request, event.url);
  if (refused) return refused;
  const token = event.cookies.get(SESSION_COOKIE);
  const session = token ? await auth.sessions.validate(token) : null;
  if (token && !session) clearSessionCookie(event.cookies, event.url);
  if (token && session?.refreshed) {
    setSessionCookie(event.cookies, event.url, token, session.expiresAt);
  }
  event.locals.node = node;
  event.locals.auth = auth;
  event.locals.session = session;
  event.locals.user = session?.user ?? null;
  const api = createCaller({
    node,
    auth,
    session,
    clientIp: event.locals.clientAddress,
  });
  event.locals.api = !session && publicReads ? publicReads.forVisitor(api) : api;
  return resolve(event);
}

/** Responses from fetch or the adapter may have immutable headers: copy when needed. */
function withHeader(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set(name, value);
    return copy;
  }
}

/** Unexpected errors of loads, actions and endpoints: one log line (an outage: one per interval). */
export const handleError: HandleServerError = async ({ error, event, status, message }) => {
  if (!node || status !== 500) return { message };
  const requestId = event.locals.requestId;
  const unavailable = await logUnexpected(node, error, { requestId, route: routeOf(event) });
  if (unavailable) {
    event.locals.databaseUnavailable = true;
    return { message: UNAVAILABLE_MESSAGE, code: 'UNAVAILABLE' };
  }
  return { message: `Internal error (request id ${requestId}).`, code: 'INTERNAL' };
};

// The edge first (refused URLs, JSON errors under /api and /trpc), form bodies no action could
// read last (lib/server/edge.ts).
export const handle = sequence(edge, nodeContext, formBody);
