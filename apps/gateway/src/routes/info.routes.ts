import { createRoute, z } from '@hono/zod-openapi';
import {
  delegationStatusSchema,
  errorBodySchema,
  infoQuerySchema,
  nodeInfoSchema,
  refusal,
  uuidSchema,
} from '@swarm/contract';
import { sendRefusal } from '../errors.ts';
import { createRouter, jsonContent } from '../router.ts';

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

/**
 * The state of an app delegation one of this node's people signed (docs/protocol.md "App
 * delegations", "Revocation"): receivers of an app's action ask it, at most every 5 minutes per
 * delegation. Public: a delegation travels with every action signed under it anyway.
 */
const getDelegation = createRoute({
  method: 'get',
  path: '/api/swarm/delegations/{id}',
  summary: "An app delegation's state: active, revoked or expired",
  request: { params: z.object({ id: z.string().min(1).max(100) }) },
  responses: {
    200: jsonContent(delegationStatusSchema, 'The state now'),
    404: jsonContent(errorBodySchema, 'No signed delegation with this id here (NOT_FOUND)'),
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
  app.openapi(getDelegation, async (c) => {
    const { id } = c.req.valid('param');
    const status = uuidSchema.safeParse(id).success
      ? await c.get('node').appDelegations.status(id)
      : null;
    if (!status) return sendRefusal(c, refusal('NOT_FOUND', `There is no delegation ${id} here.`));
    return c.json(status, 200);
  });
  return app;
}
