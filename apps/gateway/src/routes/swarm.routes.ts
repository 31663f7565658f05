import { createRoute, z } from '@hono/zod-openapi';
import {
  adminActionSchema,
  announcementSchema,
  discoveryDocumentSchema,
  discoveryQuerySchema,
  domainSchema,
  errorBodySchema,
  gossipRequestSchema,
  gossipResponseSchema,
  nodeListResponseSchema,
  nodesQuerySchema,
  SWARM_PATHS,
} from '@swarm/contract';
import { sendRefusal } from '../errors.ts';
import { createRouter, jsonContent, verifiedSourceDomain } from '../router.ts';
import { auditAdmin } from '../admin-audit.ts';

// Registry, announce, discovery and gossip endpoints (docs/protocol.md: "Registry and trust",
// "Gossip"). Node signatures are verified by the gateway's middleware, which sets `sourceDomain` on
// a validly signed request; here an absent value means "unsigned", i.e. only a hint.

const errors = {
  400: {
    description: 'Invalid request',
    content: { 'application/json': { schema: errorBodySchema } },
  },
  403: { description: 'Refused', content: { 'application/json': { schema: errorBodySchema } } },
};

/** Per-peer outcome in admin answers. */
const peerReportSchema = z.object({
  domain: domainSchema,
  ok: z.boolean(),
  ms: z.int().nonnegative(),
  error: z.string().optional(),
  nodesSent: z.int().nonnegative().optional(),
  nodesReceived: z.int().nonnegative().optional(),
  handlesSent: z.int().nonnegative().optional(),
  handlesReceived: z.int().nonnegative().optional(),
});

/** `POST /api/swarm/nodes` answer: what the action did, peer by peer. */
export const adminReportSchema = z.object({
  action: z.enum(['announce', 'discover', 'gossip', 'addSeed']),
  /** True when every contacted peer answered (always true for addSeed). */
  ok: z.boolean(),
  results: z.array(peerReportSchema),
  seed: z.object({ domain: domainSchema, priority: z.int().nonnegative() }).optional(),
});
export type AdminReport = z.output<typeof adminReportSchema>;

const postAnnounce = createRoute({
  method: 'post',
  path: SWARM_PATHS.announce,
  summary: 'Receive an announcement; answers this node’s info',
  request: {
    body: { content: { 'application/json': { schema: announcementSchema } }, required: true },
  },
  responses: { 200: jsonContent(announcementSchema, 'This node’s info'), ...errors },
});

const postGossip = createRoute({
  method: 'post',
  path: SWARM_PATHS.gossip,
  summary: 'Exchange node and handle information (push-pull)',
  request: {
    body: { content: { 'application/json': { schema: gossipRequestSchema } }, required: true },
  },
  responses: {
    200: jsonContent(
      gossipResponseSchema,
      'Entries changed at or after `since`, and what was new to us',
    ),
    ...errors,
  },
});

const getDiscovery = createRoute({
  method: 'get',
  path: SWARM_PATHS.discovery,
  summary: 'Discovery document: this node, swarm statistics, seeds, known nodes',
  request: { query: discoveryQuerySchema },
  responses: { 200: jsonContent(discoveryDocumentSchema, 'Discovery document'), ...errors },
});

const getNodes = createRoute({
  method: 'get',
  path: SWARM_PATHS.nodes,
  summary: 'Known swarm nodes (verified ones, active first)',
  request: { query: nodesQuerySchema },
  responses: { 200: jsonContent(nodeListResponseSchema, 'Known nodes'), ...errors },
});

const postNodes = createRoute({
  method: 'post',
  path: SWARM_PATHS.nodes,
  summary: 'Admin: announce, discover, gossip, add a seed',
  request: {
    body: { content: { 'application/json': { schema: adminActionSchema } }, required: true },
  },
  responses: { 200: jsonContent(adminReportSchema, 'What happened, peer by peer'), ...errors },
});

export function swarmRoutes() {
  const app = createRouter();

  app.openapi(postAnnounce, async (c) => {
    const node = c.get('node');
    const outcome = await node.registry.receiveAnnouncement(
      c.req.valid('json'),
      verifiedSourceDomain(c),
    );
    // Refusals are 403 (`NODE_BLOCKED` or `FORBIDDEN`); nothing was recorded.
    if (!outcome.ok) return sendRefusal(c, outcome.reason);
    return c.json(outcome.value.answer, 200);
  });

  app.openapi(postGossip, async (c) => {
    const node = c.get('node');
    const outcome = await node.gossip.receive(c.req.valid('json'), verifiedSourceDomain(c));
    if (!outcome.ok) return sendRefusal(c, outcome.reason);
    return c.json(outcome.value, 200);
  });

  app.openapi(getDiscovery, async (c) => {
    const node = c.get('node');
    const query = c.req.valid('query');
    const [info, stats, seeds, nodes] = await Promise.all([
      node.nodeInfo.get(),
      node.registry.stats(),
      node.registry.seedDomains(),
      query.nodes ? node.registry.nodeSummaries(query.limit) : Promise.resolve([]),
    ]);
    return c.json(
      {
        node: {
          domain: info.domain,
          name: info.name,
          description: info.description,
          publicKey: info.publicKey,
          softwareVersion: info.softwareVersion,
          capabilities: info.capabilities,
        },
        swarm: { ...stats, seeds },
        nodes,
      },
      200,
    );
  });

  app.openapi(getNodes, async (c) => {
    const node = c.get('node');
    const query = c.req.valid('query');
    const [nodes, stats] = await Promise.all([
      node.registry.listNodes(query.limit),
      query.stats ? node.registry.stats() : Promise.resolve(undefined),
    ]);
    return c.json({ nodes, ...(stats ? { stats } : {}) }, 200);
  });

  // Admin authentication is the gateway's `requireAdmin()` middleware, mounted for this route.
  app.openapi(postNodes, async (c) => {
    const action = c.req.valid('json');
    const report = await c.get('node').registryAdmin.runAction(action);
    // Operator actions are audited like the admin API's (a refused addSeed changed nothing).
    if (action.action !== 'addSeed' || report.seed) {
      await auditAdmin(c, {
        action: action.action === 'addSeed' ? 'seed.add' : `swarm.${action.action}`,
        target: ('domain' in action ? action.domain : undefined) ?? 'seeds',
        ...(report.seed ? { details: { priority: report.seed.priority } } : {}),
      });
    }
    return c.json(report satisfies AdminReport, 200);
  });

  return app;
}
