import { createRoute, z } from '@hono/zod-openapi';
import {
  adminBlockSchema,
  adminCreatedPostSchema,
  adminCreatedTokenSchema,
  adminCreatedUserSchema,
  adminSeedSchema,
  adminTokenSchema,
  domainSchema,
  errorBody,
  errorBodySchema,
  postInputObject,
  uuidSchema,
} from '@swarm/contract';
import type { AccountService } from '@swarm/auth';
import { auditAdmin } from '../admin-audit.ts';
import { sendRefusal } from '../errors.ts';
import { createRouter, jsonContent } from '../router.ts';

// Operator endpoints under /api/swarm/admin/* (our extension, docs/protocol.md "Admin API"):
// seeds, node blocks, admin tokens, pinned-key reset, local accounts. Authentication is the gateway's
// `requireAdmin()` middleware, mounted for the whole prefix in app.ts. Like every write to
// /api/swarm/*, POST/PUT/DELETE bodies are JSON (`{}` when there is nothing to send). Every
// write is in the audit log (who: the token, see admin-audit.ts), with the body's optional
// `reason`.

const ADMIN = '/api/swarm/admin';

const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: errorBodySchema } },
});
const jsonBody = <S extends z.ZodType>(schema: S) => ({
  body: { content: { 'application/json': { schema } }, required: true },
});
const errors = { 400: error('Invalid request'), 401: error('No valid admin token') };
const withNotFound = { ...errors, 404: error('No such seed, block, token or node') };

const iso = (d: Date | null) => (d ? d.toISOString() : null);

// The answers' shapes are the contract's (the CLI parses them); named here for OpenAPI.
const seedSchema = z.object(adminSeedSchema.shape).openapi('AdminSeed');
const blockSchema = z.object(adminBlockSchema.shape).openapi('AdminBlock');
const tokenSchema = z.object(adminTokenSchema.shape).openapi('AdminToken');
const createdTokenSchema = z.object(adminCreatedTokenSchema.shape).openapi('AdminCreatedToken');
const okSchema = z.object({ success: z.literal(true), message: z.string() });
const createdUserSchema = z.object(adminCreatedUserSchema.shape).openapi('AdminCreatedUser');
const createdPostSchema = z.object(adminCreatedPostSchema.shape).openapi('AdminCreatedPost');

const handleSchema = z
  .object({
    handle: z.string(),
    nodeDomain: z.string(),
    did: z.string(),
    updatedAt: z.string(),
    source: z.string(),
  })
  .openapi('AdminHandle');

const domainParam = z.object({ domain: domainSchema });
/** Why, for the audit log (optional: the admin API predates it). */
const reasonField = z.string().trim().max(1000).optional();
const reasonBody = z.object({ reason: reasonField }).strict();

const routes = {
  listHandles: createRoute({
    method: 'get',
    path: `${ADMIN}/handles`,
    summary: 'Admin: the handle registry, newest change first (optionally one node only)',
    request: {
      query: z.object({
        node: domainSchema.optional(),
        limit: z.coerce.number().int().min(1).max(1000).default(100),
      }),
    },
    responses: {
      200: jsonContent(z.object({ total: z.int(), handles: z.array(handleSchema) }), 'Handles'),
      ...errors,
    },
  }),
  listSeeds: createRoute({
    method: 'get',
    path: `${ADMIN}/seeds`,
    summary: 'Admin: seed nodes with their contact state',
    responses: { 200: jsonContent(z.object({ seeds: z.array(seedSchema) }), 'Seeds'), ...errors },
  }),
  updateSeed: createRoute({
    method: 'put',
    path: `${ADMIN}/seeds/{domain}`,
    summary: 'Admin: enable or disable a seed',
    request: {
      params: domainParam,
      ...jsonBody(z.object({ isEnabled: z.boolean(), reason: reasonField }).strict()),
    },
    responses: { 200: jsonContent(seedSchema, 'The updated seed'), ...withNotFound },
  }),
  listBlocks: createRoute({
    method: 'get',
    path: `${ADMIN}/blocks`,
    summary: 'Admin: blocked node domains',
    responses: {
      200: jsonContent(z.object({ blocks: z.array(blockSchema) }), 'Blocks'),
      ...errors,
    },
  }),
  block: createRoute({
    method: 'post',
    path: `${ADMIN}/blocks`,
    summary: 'Admin: block a node (its requests are refused, its node row turns inactive)',
    request: jsonBody(
      z.object({ domain: domainSchema, reason: z.string().trim().max(500).optional() }).strict(),
    ),
    responses: { 200: jsonContent(blockSchema, 'The block'), ...errors },
  }),
  unblock: createRoute({
    method: 'delete',
    path: `${ADMIN}/blocks/{domain}`,
    summary: 'Admin: lift a block',
    request: { params: domainParam, ...jsonBody(reasonBody) },
    responses: { 200: jsonContent(okSchema, 'Unblocked'), ...withNotFound },
  }),
  listTokens: createRoute({
    method: 'get',
    path: `${ADMIN}/tokens`,
    summary: 'Admin: stored admin tokens (never their secrets)',
    responses: {
      200: jsonContent(z.object({ tokens: z.array(tokenSchema) }), 'Tokens'),
      ...errors,
    },
  }),
  createToken: createRoute({
    method: 'post',
    path: `${ADMIN}/tokens`,
    summary: 'Admin: create an admin token; the token is in this answer only',
    request: jsonBody(
      z.object({ name: z.string().trim().min(1).max(100), reason: reasonField }).strict(),
    ),
    responses: { 201: jsonContent(createdTokenSchema, 'The new token (shown once)'), ...errors },
  }),
  revokeToken: createRoute({
    method: 'delete',
    path: `${ADMIN}/tokens/{id}`,
    summary: 'Admin: revoke an admin token',
    request: { params: z.object({ id: uuidSchema }), ...jsonBody(reasonBody) },
    responses: { 200: jsonContent(okSchema, 'Revoked'), ...withNotFound },
  }),
  createUser: createRoute({
    method: 'post',
    path: `${ADMIN}/users`,
    summary:
      'Admin: create a local account (admin or not); without a password one is generated and returned once',
    request: jsonBody(
      z
        .object({
          handle: z.string().max(64),
          displayName: z.string().max(256).optional(),
          password: z.string().max(1024).optional(),
          admin: z.boolean().default(false),
          reason: reasonField,
        })
        .strict(),
    ),
    responses: {
      201: jsonContent(createdUserSchema, 'The new account'),
      ...errors,
      409: error('The handle is taken'),
    },
  }),
  createPost: createRoute({
    method: 'post',
    path: `${ADMIN}/posts`,
    summary:
      'Admin: publish a post as a local user (bots, operators); mentions and replies are delivered like any post',
    request: jsonBody(postInputObject.extend({ handle: z.string().min(1).max(64) }).strict()),
    responses: {
      201: jsonContent(createdPostSchema, 'The post and its deliveries'),
      ...errors,
      404: error('No such local user, or no such post to reply to'),
      502: error('The node of the post replied to could not be reached'),
      504: error('The node of the post replied to did not answer in time'),
    },
  }),
  resetKey: createRoute({
    method: 'post',
    path: `${ADMIN}/nodes/{domain}/reset-key`,
    summary:
      "Admin: forget a node's pinned key and recorded profile (the next contact learns both again)",
    request: { params: domainParam, ...jsonBody(reasonBody) },
    responses: { 200: jsonContent(okSchema, 'Key reset'), ...withNotFound },
  }),
};

/** `accounts`: the node's account service, built once by the app's composition root. */
export function adminRoutes(accounts: AccountService) {
  const app = createRouter();

  app.openapi(routes.listHandles, async (c) => {
    const { node: nodeDomain, limit } = c.req.valid('query');
    const { total, handles } = await c.get('node').registryAdmin.listHandles({
      ...(nodeDomain ? { nodeDomain } : {}),
      limit,
    });
    return c.json(
      { total, handles: handles.map((h) => ({ ...h, updatedAt: h.updatedAt.toISOString() })) },
      200,
    );
  });

  app.openapi(routes.listSeeds, async (c) => {
    const seeds = await c.get('node').registryAdmin.listSeeds();
    return c.json(
      { seeds: seeds.map((s) => ({ ...s, lastContactAt: iso(s.lastContactAt) })) },
      200,
    );
  });

  app.openapi(routes.updateSeed, async (c) => {
    const { domain } = c.req.valid('param');
    const { isEnabled, reason } = c.req.valid('json');
    const seed = await c.get('node').registryAdmin.setSeedEnabled(domain, isEnabled);
    if (!seed) return c.json(errorBody('NOT_FOUND', `${domain} is not a seed.`), 404);
    await auditAdmin(c, {
      action: isEnabled ? 'seed.enable' : 'seed.disable',
      target: domain,
      reason,
    });
    return c.json({ ...seed, lastContactAt: iso(seed.lastContactAt) }, 200);
  });

  app.openapi(routes.listBlocks, async (c) => {
    const blocks = await c.get('node').registryAdmin.listBlocks();
    return c.json(
      { blocks: blocks.map((b) => ({ ...b, createdAt: b.createdAt.toISOString() })) },
      200,
    );
  });

  app.openapi(routes.block, async (c) => {
    const { domain, reason } = c.req.valid('json');
    const blocked = await c.get('node').registryAdmin.blockNode(domain, reason || undefined);
    if (!blocked.ok) return sendRefusal(c, blocked.reason);
    await auditAdmin(c, { action: 'node.block', target: domain, reason });
    return c.json({ ...blocked.value, createdAt: blocked.value.createdAt.toISOString() }, 200);
  });

  app.openapi(routes.unblock, async (c) => {
    const { domain } = c.req.valid('param');
    if (!(await c.get('node').registryAdmin.unblockNode(domain))) {
      return c.json(errorBody('NOT_FOUND', `${domain} is not blocked.`), 404);
    }
    await auditAdmin(c, {
      action: 'node.unblock',
      target: domain,
      reason: c.req.valid('json').reason,
    });
    return c.json({ success: true as const, message: `${domain} is no longer blocked.` }, 200);
  });

  app.openapi(routes.listTokens, async (c) => {
    const tokens = await c.get('node').adminTokens.listTokens();
    return c.json(
      {
        tokens: tokens.map((t) => ({
          id: t.id,
          name: t.name,
          createdAt: t.createdAt.toISOString(),
          lastUsedAt: iso(t.lastUsedAt),
          expiresAt: iso(t.expiresAt),
          revokedAt: iso(t.revokedAt),
        })),
      },
      200,
    );
  });

  app.openapi(routes.createToken, async (c) => {
    const { name, reason } = c.req.valid('json');
    const created = await c.get('node').adminTokens.createToken(name);
    await auditAdmin(c, {
      action: 'token.create',
      target: `${created.name} (${created.id})`,
      reason,
    });
    return c.json({ id: created.id, name: created.name, token: created.token }, 201);
  });

  app.openapi(routes.revokeToken, async (c) => {
    const { id } = c.req.valid('param');
    if (!(await c.get('node').adminTokens.revokeToken(id))) {
      return c.json(errorBody('NOT_FOUND', `No admin token ${id}.`), 404);
    }
    await auditAdmin(c, { action: 'token.revoke', target: id, reason: c.req.valid('json').reason });
    return c.json({ success: true as const, message: `Token ${id} is revoked.` }, 200);
  });

  app.openapi(routes.createUser, async (c) => {
    const { handle, displayName, password, admin, reason } = c.req.valid('json');
    const created = await accounts.createUser({
      handle,
      displayName,
      password,
      isAdmin: admin,
    });
    if (!created.ok) {
      const { code, message, details } = created.reason;
      // Without a key or a client address, creating can only be refused as invalid or taken.
      return code === 'HANDLE_TAKEN'
        ? sendRefusal(c, { code, message })
        : sendRefusal(c, { code: 'INVALID_REQUEST', message, details });
    }
    const { user, generatedPassword } = created.value;
    await auditAdmin(c, {
      action: user.isAdmin ? 'user.create-admin' : 'user.create',
      target: user.handle,
      reason,
    });
    return c.json(
      {
        user: {
          id: user.id,
          handle: user.handle,
          displayName: user.displayName,
          isAdmin: user.isAdmin,
        },
        ...(generatedPassword ? { password: generatedPassword } : {}),
      },
      201,
    );
  });

  app.openapi(routes.createPost, async (c) => {
    const { handle, ...input } = c.req.valid('json');
    const node = c.get('node');
    const author = await node.db.prisma.user.findUnique({
      where: { handle: handle.toLowerCase() },
      select: { id: true },
    });
    if (!author) return c.json(errorBody('USER_NOT_FOUND', `No user ${handle} on this node.`), 404);
    const created = await node.actions.posts.create(author.id, input);
    if (!created.ok) {
      const { code, message } = created.reason;
      switch (code) {
        case 'INVALID_REQUEST':
        case 'POST_NOT_FOUND':
        case 'PEER_UNAVAILABLE':
        case 'PEER_TIMEOUT':
          return sendRefusal(c, { code, message });
        default: // the route declares no other answer (e.g. the author vanished meanwhile)
          return sendRefusal(c, { code: 'INVALID_REQUEST', message });
      }
    }
    const { post, deliveries } = created.value;
    await auditAdmin(c, { action: 'post.create', target: `${handle} post ${post.id}` });
    return c.json(
      {
        post: { id: post.id, path: post.path, content: post.content, createdAt: post.createdAt },
        deliveries: deliveries.map(({ id, kind, targetDomain, status, summary }) => ({
          id,
          kind,
          targetDomain,
          status,
          summary,
        })),
      },
      201,
    );
  });

  app.openapi(routes.resetKey, async (c) => {
    const { domain } = c.req.valid('param');
    if (!(await c.get('node').nodeAuth.resetPinnedKey(domain))) {
      return c.json(errorBody('NOT_FOUND', `${domain} is not a known node.`), 404);
    }
    await auditAdmin(c, {
      action: 'node.reset-key',
      target: domain,
      reason: c.req.valid('json').reason,
    });
    return c.json(
      { success: true as const, message: `The pinned key of ${domain} is forgotten.` },
      200,
    );
  });

  return app;
}
