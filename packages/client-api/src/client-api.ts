import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { createNodeUsageService } from '@swarm/domain';
import type {
  ClientApiBindings,
  ClientApiComposition,
  ClientApiDeps,
  ClientApiEnv,
} from './deps.ts';
import { apiError } from './errors.ts';
import { rateLimit } from './rate-limit.ts';
import { accountSettingsRoutes } from './routes/account-settings.routes.ts';
import { accountRoutes } from './routes/accounts.routes.ts';
import { accountStatusRoutes } from './routes/account-statuses.routes.ts';
import { notificationRoutes } from './routes/notifications.routes.ts';
import { searchRoutes } from './routes/search.routes.ts';
import { emptyRoutes } from './routes/empties.routes.ts';
import { listRoutes } from './routes/lists.routes.ts';
import { markerRoutes } from './routes/markers.routes.ts';
import { mediaRoutes } from './routes/media.routes.ts';
import { reportRoutes } from './routes/reports.routes.ts';
import { safetyRoutes } from './routes/safety.routes.ts';
import { appRoutes } from './routes/apps.routes.ts';
import { instanceRoutes } from './routes/instance.routes.ts';
import { oauthRoutes } from './routes/oauth.routes.ts';
import { createStreaming, type Streaming } from './streaming/streaming.ts';
import { statusRoutes } from './routes/statuses.routes.ts';
import { timelineRoutes } from './routes/timelines.routes.ts';
import { pushRoutes } from './routes/push.routes.ts';

/**
 * The Mastodon-compatible client API (docs/clients.md), mounted by the web app for the paths of
 * `isClientApiPath`. Its callers are apps with bearer tokens, never cookies: any origin may call
 * it (CORS without credentials), and the web app's same-origin check does not apply here.
 */
export interface ClientApi {
  fetch(request: Request, bindings: ClientApiBindings): Promise<Response>;
  /** WebSocket streaming: the HTTP server's `upgrade` event (false: not ours). */
  upgrade: Streaming['upgrade'];
}

export function createClientApi(composition: ClientApiComposition): ClientApi {
  const { node } = composition;
  const usage = createNodeUsageService({ db: node.db, clock: node.clock });
  const deps: ClientApiDeps = {
    ...composition,
    usage,
    async instanceFacts() {
      const [counts, contact, registrations] = await Promise.all([
        usage.usage(),
        usage.contact(),
        node.moderation.registrations.settings(),
      ]);
      return { config: node.config, usage: counts, contact, registrations };
    },
  };

  const streaming = createStreaming(composition);

  const app = new Hono<ClientApiEnv>();
  app.use(
    '*',
    cors({
      origin: '*',
      allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
      exposeHeaders: [
        'Link',
        'Retry-After',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'X-Request-Id',
      ],
      maxAge: 600,
    }),
  );
  app.use('*', async (c, next) => {
    c.set('deps', deps);
    await next();
  });
  app.use('/api/*', rateLimit());
  app.route('/', streaming.routes);
  app.route('/', instanceRoutes());
  app.route('/', appRoutes());
  app.route('/', oauthRoutes());
  app.route('/', accountSettingsRoutes());
  app.route('/', accountStatusRoutes());
  app.route('/', accountRoutes());
  app.route('/', statusRoutes());
  app.route('/', timelineRoutes());
  app.route('/', listRoutes());
  app.route('/', mediaRoutes());
  app.route('/', pushRoutes());
  app.route('/', notificationRoutes());
  app.route('/', searchRoutes());
  app.route('/', safetyRoutes());
  app.route('/', markerRoutes());
  app.route('/', reportRoutes());
  app.route('/', emptyRoutes());
  app.notFound((c) => apiError(c, 404, 'Record not found'));
  app.onError((error, c) => {
    node.logger.error({ err: error, path: c.req.path }, 'client API request failed');
    return apiError(c, 500, 'Something went wrong on this node; it has been logged.');
  });

  return {
    fetch: async (request, bindings) => app.fetch(request, bindings),
    upgrade: streaming.upgrade,
  };
}
