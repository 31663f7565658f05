import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { secureHeaders } from 'hono/secure-headers';
import { authServicesOf, type AuthServices } from '@swarm/auth';
import { errorBody, HSTS, PERMISSIONS_POLICY, SWARM_PATHS } from '@swarm/contract';
import { DATABASE_UNAVAILABLE, UNAVAILABLE_RETRY_AFTER_S, type NodeContext } from '@swarm/domain';
import { errorCodeForStatus, errorResponse } from './errors.ts';
import { markJsonAnswers } from './fast-answer.ts';
import {
  nodeSignature,
  rateLimitByIp,
  refuseNulInUrl,
  requireAdmin,
  swarmBodyGuards,
} from './middleware/index.ts';
import { observeRequests } from './middleware/observe.ts';
import { readCache } from './middleware/read-cache.ts';
import { createRouter, type GatewayEnv } from './router.ts';
import { adminRoutes } from './routes/admin.routes.ts';
import { moderationAdminRoutes } from './routes/moderation-admin.routes.ts';
import { backupRoutes } from './routes/backup.routes.ts';
import { contentRoutes } from './routes/content.routes.ts';
import { healthRoutes } from './routes/health.routes.ts';
import { NODE_KEY_PATH, infoRoutes } from './routes/info.routes.ts';
import { inboxRoutes } from './routes/inbox.routes.ts';
import { interactionRoutes } from './routes/interactions.routes.ts';
import { messageRoutes } from './routes/messages.routes.ts';
import { reportRoutes } from './routes/reports.routes.ts';
import { ownershipRoutes } from './routes/ownership.routes.ts';
import { mountReference } from './routes/reference.routes.ts';
import { swarmRoutes } from './routes/swarm.routes.ts';

/** Paths this app answers; everything else belongs to the web app (or is a 404 when alone). */
export function isGatewayPath(pathname: string): boolean {
  return (
    pathname === '/.well-known/node-swarm' ||
    pathname === NODE_KEY_PATH ||
    pathname === '/api/swarm' ||
    pathname.startsWith('/api/swarm/')
  );
}

/**
 * The gateway: the node-to-node half of a node. Routes validate with the contract's zod schemas
 * (which also document the API) and call domain services. The admin API is the exception that
 * reads the database itself (a local author looked up by handle in `admin.routes.ts`).
 */
export function createGatewayApp(
  node: NodeContext,
  /** Built once by the entry point (`main.ts`); a test node's app builds its own. */
  deps: { auth?: AuthServices } = {},
) {
  const auth = deps.auth ?? authServicesOf(node);
  const app = createRouter();

  // On every answer, errors included (docs/security.md, "Headers"): JSON and one server-rendered
  // reference page without scripts, so the policy allows nothing but that page's inline style.
  const securityHeaders = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      styleSrc: ["'unsafe-inline'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
      frameAncestors: ["'none'"],
    },
    xFrameOptions: 'DENY',
    referrerPolicy: 'no-referrer',
    strictTransportSecurity: HSTS,
    // Peers read the gateway from servers; a browser of another origin has no business here.
    crossOriginResourcePolicy: 'same-origin',
  });
  // One middleware for the headers and the node context. The headers go on `c.res.headers`
  // directly: Hono's `c.header()` on a finished answer builds a new Response around its body.
  app.use(async (c, next) => {
    c.set('node', node);
    // JSON answers reach the adapter with their text (fast-answer.ts): no stream to read back.
    markJsonAnswers(c);
    await securityHeaders(c, next);
    c.res.headers.set('permissions-policy', PERMISSIONS_POLICY);
  });
  // X-Request-Id in and out, the request's scope for peer calls, one log line, the metrics.
  app.use(observeRequests());
  // Health and metrics first: never cached, never rate limited, no body guards.
  app.route('/', healthRoutes());

  // A path or query no route could store (U+0000) is a 400 before anything reads it.
  app.use(refuseNulInUrl());

  // Public GETs from a 1 s read-through cache; successful writes invalidate it, here and in
  // the node's other processes.
  app.use(
    '/api/swarm/*',
    readCache({
      clock: node.clock,
      ttlMs: node.config.readCacheTtlMs,
      invalidations: node.invalidations,
    }),
  );

  // Inbound security (docs/protocol.md, "Limits and rate limits"), before any route: every write is
  // rate-limited per IP; admin paths authenticate before their body is read (without a token: 401,
  // whatever the body); then JSON only, capped and parsed once; node signatures where the protocol
  // wants them.
  app.use('/api/swarm/*', rateLimitByIp());
  app.post(SWARM_PATHS.nodes, requireAdmin());
  app.use('/api/swarm/admin/*', requireAdmin());
  app.use('/api/swarm/*', ...swarmBodyGuards());
  app.use('/api/swarm/interactions/*', nodeSignature({ required: true }));
  app.use(SWARM_PATHS.replies, nodeSignature({ required: true }));
  app.use(SWARM_PATHS.messages, nodeSignature({ required: true }));
  app.use(SWARM_PATHS.messageReceipts, nodeSignature({ required: true }));
  app.use(SWARM_PATHS.reports, nodeSignature({ required: true }));
  app.use(SWARM_PATHS.deletions, nodeSignature({ required: true }));
  app.use(SWARM_PATHS.moves, nodeSignature({ required: true }));
  app.use(SWARM_PATHS.inbox, nodeSignature({ required: true }));
  app.use(SWARM_PATHS.announce, nodeSignature({ required: false }));
  app.use(SWARM_PATHS.gossip, nodeSignature({ required: false }));

  app.route('/', infoRoutes());
  app.route('/', swarmRoutes());
  app.route('/', interactionRoutes());
  app.route('/', inboxRoutes());
  app.route('/', messageRoutes());
  app.route('/', reportRoutes());
  app.route('/', ownershipRoutes());
  app.route('/', contentRoutes());
  app.route('/', adminRoutes(auth.accounts));
  app.route('/', moderationAdminRoutes());
  app.route('/', backupRoutes());
  mountReference(app);

  app.notFound((c) =>
    errorResponse(c, 'NOT_FOUND', `No such endpoint: ${c.req.method} ${c.req.path}`),
  );
  const internal = async (err: unknown, c: Context<GatewayEnv>) => {
    const requestId = c.get('requestId');
    if (await node.health.isDatabaseUnavailable(err)) {
      // An outage: one log line per interval for all requests (docs/deployment.md), and a
      // 503 the client may retry.
      node.failures.report(DATABASE_UNAVAILABLE, err, { requestId, path: c.req.path });
      c.header('Retry-After', String(UNAVAILABLE_RETRY_AFTER_S));
      return errorResponse(
        c,
        'UNAVAILABLE',
        `The node's database is unavailable; try again shortly (request id ${requestId}).`,
      );
    }
    node.logger.error({ err, requestId, path: c.req.path }, 'unhandled error');
    return errorResponse(c, 'INTERNAL', `Internal error (request id ${requestId}).`);
  };
  app.onError((err, c) => {
    if (!(err instanceof HTTPException) || (!err.res && err.status >= 500)) return internal(err, c);
    // Ours carry the error body already (e.g. readJsonBody's 400); a library's (zod-openapi's
    // 415 for a body of another media type) is plain text and gets the error body
    // (docs/protocol.md, Errors).
    if (err.res) return err.getResponse();
    const code = errorCodeForStatus(err.status);
    return c.json(errorBody(code, err.message || 'The request is not valid.'), err.status);
  });
  return app;
}
