import { createRoute } from '@hono/zod-openapi';
import { errorBodySchema, livenessSchema, OPS_PATHS, readinessSchema } from '@swarm/contract';
import { requireAdmin } from '../middleware/require-admin.ts';
import { createRouter, jsonContent } from '../router.ts';

const livez = createRoute({
  method: 'get',
  path: OPS_PATHS.gateway.livez,
  summary: 'Liveness: the process is up',
  description: 'Checks nothing beyond the process answering; for restart decisions.',
  responses: { 200: jsonContent(livenessSchema, 'The process answers') },
});

const readyz = createRoute({
  method: 'get',
  path: OPS_PATHS.gateway.readyz,
  summary: 'Readiness: database answers, migrations applied, not shutting down',
  description: 'For load balancers and healthchecks: 503 (same body) while not ready.',
  responses: {
    200: jsonContent(readinessSchema, 'Ready to serve'),
    503: jsonContent(readinessSchema, 'Not ready; `reasons` says why'),
  },
});

const metrics = createRoute({
  method: 'get',
  path: OPS_PATHS.gateway.metrics,
  summary: 'Prometheus metrics of this process',
  description: 'Prometheus text format; needs an admin bearer token (docs/deployment.md).',
  responses: {
    200: { description: 'Metrics', content: { 'text/plain': { schema: { type: 'string' } } } },
    401: jsonContent(errorBodySchema, 'No valid admin token'),
  },
});

/** Health and metrics of the gateway process (never cached, never rate limited). */
export function healthRoutes() {
  const app = createRouter();
  app.openapi(livez, (c) => c.json({ status: 'ok' as const }, 200));
  app.openapi(readyz, async (c) => {
    const readiness = await c.get('node').health.readiness();
    c.header('Cache-Control', 'no-store');
    return c.json(readiness, readiness.status === 'ready' ? 200 : 503);
  });
  app.use(OPS_PATHS.gateway.metrics, requireAdmin());
  app.openapi(metrics, async (c) => {
    const node = c.get('node');
    const text = await node.metrics.text();
    c.header('Cache-Control', 'no-store');
    return c.body(text, 200, { 'Content-Type': node.metrics.contentType }) as never;
  });
  return app;
}
