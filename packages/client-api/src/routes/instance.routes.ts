import { Hono } from 'hono';
import { instanceV1, instanceV2, nodeInfo21, nodeInfoLinks } from '../entities/instance.ts';
import type { ClientApiEnv } from '../deps.ts';

/** Nodeinfo and the instance documents: public, read at every app's start. */
export function instanceRoutes() {
  const app = new Hono<ClientApiEnv>();
  app.get('/.well-known/nodeinfo', (c) => c.json(nodeInfoLinks(c.var.deps.node.config.domain)));
  app.get('/nodeinfo/2.1', async (c) =>
    c.json(nodeInfo21(await c.var.deps.instanceFacts()), 200, {
      'content-type':
        'application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.1#"',
    }),
  );
  app.get('/api/v1/instance', async (c) => c.json(instanceV1(await c.var.deps.instanceFacts())));
  app.get('/api/v2/instance', async (c) =>
    c.json(
      instanceV2(
        await c.var.deps.instanceFacts(),
        c.var.deps.node.push.subscriptions.vapidPublicKey,
      ),
    ),
  );
  return app;
}
