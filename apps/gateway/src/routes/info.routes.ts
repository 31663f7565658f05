import { createRoute, z } from '@hono/zod-openapi';
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

/**
 * `GET /api/node`: where nodes of the origin profile fetch a node's key to check its signatures
 * (docs/protocol.md "Peers of the origin profile"). The origin answers its node record there; we
 * answer what a peer needs: domain, name, description and the key.
 */
export const NODE_KEY_PATH = '/api/node';

const nodeKeySchema = z.object({
  domain: z.string(),
  name: z.string(),
  description: z.string(),
  publicKey: z.string(),
  softwareVersion: z.string(),
});

const getNodeKey = createRoute({
  method: 'get',
  path: NODE_KEY_PATH,
  summary: "This node's key, where peers of the origin profile look for it",
  responses: {
    200: { description: 'Node key', content: { 'application/json': { schema: nodeKeySchema } } },
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
  app.openapi(getNodeKey, async (c) => {
    const info = await c.get('node').nodeInfo.get();
    const { domain, name, description, publicKey, softwareVersion } = info;
    return c.json({ domain, name, description, publicKey, softwareVersion }, 200);
  });
  return app;
}
