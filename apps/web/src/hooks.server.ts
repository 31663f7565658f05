import type { Handle, ServerInit } from '@sveltejs/kit';
import { createCaller } from '@swarm/api';
import { createAuthServices, type AuthServices } from '@swarm/auth';
import {
  bootNode,
  createLogger,
  parseConfig,
  sharedNodeContext,
  type NodeContext,
} from '@swarm/domain';
import { refuseForeignRequest } from '$lib/server/request-origin';
import { withSecurityHeaders } from '$lib/server/security-headers';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from '$lib/server/session-cookie';

let node: NodeContext | undefined;
let auth: AuthServices | undefined;

// Embedded mode (`pnpm start`): the gateway's entry booted the node in this process and shares
// it, since an embedded database opens in one place only. Alone (production), the web app
// boots its own context from the same environment variables; the schema is the gateway's and
// the migrate job's business (this bundle carries no migrations folder).
export const init: ServerInit = async () => {
  node = sharedNodeContext();
  if (!node) {
    const parsed = parseConfig(process.env);
    if (!parsed.ok) {
      throw new Error(`Invalid configuration:\n  ${parsed.errors.join('\n  ')}`);
    }
    const logger = createLogger(parsed.value.logLevel, {
      name: 'web',
      pretty: process.stdout.isTTY,
    });
    node = await bootNode(parsed.value, { logger, migrate: false });
    // Standalone (build/index.js): on SIGTERM/SIGINT readiness turns false while adapter-node
    // drains its connections (SHUTDOWN_TIMEOUT); once it has, the database closes and the
    // process exits on its own. Closing what this process opened (pool, Redis) lets it exit.
    const own = node;
    const beginShutdown = () => own.lifecycle.beginShutdown();
    process.once('SIGTERM', beginShutdown);
    process.once('SIGINT', beginShutdown);
    process.once('sveltekit:shutdown', () => void own.close());
  }
  // Login and sign-up throttles take from the node's shared limits (one budget across replicas).
  auth = createAuthServices({
    db: node.db,
    clock: node.clock,
    limits: node.limits,
    signUpLimits: { perIp: { perHour: node.config.signUpLimitPerHour } },
  });
};

export const handle: Handle = async ({ event, resolve }) => {
  if (!node || !auth) throw new Error('node context is not ready');
  // CSRF, for every state-changing request whatever its content type (SvelteKit's own check,
  // which covers form content types only, is off in vite.config.ts): before anything runs.
  const refused = refuseForeignRequest(event.request, event.url);
  if (refused) return withSecurityHeaders(refused, event.url);
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
  event.locals.api = createCaller({
    node,
    auth,
    session,
    clientIp: event.getClientAddress(),
  });
  return withSecurityHeaders(await resolve(event), event.url);
};
