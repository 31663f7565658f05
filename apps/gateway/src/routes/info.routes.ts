import { createRoute } from '@hono/zod-openapi';
import { infoQuerySchema, nodeInfoSchema } from '@swarm/contract';
import { createRouter } from '../router.ts';

const getInfo = createRoute({
  method: 'get',
  path: '/api/swarm/info',
  summary: "This node's info",
  request: { query: infoQuerySchema },
  responses: {
    200: { description: 'Node info', content: { 'application/json': { schema: nodeInfoSchema } } },
  },
});

export function infoRoutes() {
  const app = createRouter();
  app.openapi(getInfo, async (c) => {
    const node = c.get('node');
    const info = await node.nodeInfo.get();
    // `stats=true`: swarm statistics as an extra member (docs/protocol.md).
    if (c.req.valid('query').stats) {
      return c.json({ ...info, stats: await node.registry.stats() }, 200);
    }
    return c.json(info, 200);
  });
  return app;
}
