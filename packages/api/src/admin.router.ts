import { z } from 'zod';
import { domainSchema, refusal, uuidSchema } from '@swarm/contract';
import {
  ADMIN_NODE_SORTS,
  ADMIN_NODE_STATUSES,
  createUserAdminService,
  type AuditEntry,
} from '@swarm/domain';
import { humaneInput } from './input.ts';
import { toTrpcError, unwrap } from './refusals.ts';
import { adminProcedure, router } from './trpc.ts';

// The admin area (issue #4): every procedure is `adminProcedure` (signed in and admin, checked
// on each call). Thin: the same domain services as the gateway's admin API for the CLI. Every
// mutation writes the audit log (issue #15): who (the admin's handle), what, on what, why (the
// optional `reason`).

/** Dates as ISO strings, as the browser receives them over HTTP (no transformer). */
type IsoDates<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? IsoDates<U>[]
    : T extends object
      ? { [K in keyof T]: IsoDates<T[K]> }
      : T;

function isoDates<T>(value: T): IsoDates<T> {
  if (value instanceof Date) return value.toISOString() as IsoDates<T>;
  if (Array.isArray(value)) return value.map((v: unknown) => isoDates(v)) as IsoDates<T>;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, isoDates(v)]),
    ) as IsoDates<T>;
  }
  return value as IsoDates<T>;
}

interface AdminCtx {
  node: { moderation: { audit: { record(entry: AuditEntry): Promise<void> } } };
  user: { handle: string };
}
function audit(ctx: AdminCtx, entry: Omit<AuditEntry, 'actor'>): Promise<void> {
  return ctx.node.moderation.audit.record({ actor: ctx.user.handle, ...entry });
}

/** Why, for the audit log. */
const reasonField = z.string().trim().max(1000, { error: 'at most 1000 characters' }).optional();

const notFound = (message: string) => toTrpcError(refusal('NOT_FOUND', message));

const domainInput = z.object({ domain: domainSchema });
const optionalDomainInput = z.object({ domain: domainSchema.optional() }).optional();
const PRIORITY_RULE = 'must be a whole number from 0 to 1000000 (lower is contacted first)';
const priorityInput = z
  .int({ error: PRIORITY_RULE })
  .min(0, { error: PRIORITY_RULE })
  .max(1_000_000, { error: PRIORITY_RULE });

const nodesRouter = router({
  /** The nodes table: filter by text and state, sort by any column (server-side). */
  list: adminProcedure
    .input(
      humaneInput(
        z
          .object({
            q: z.string().trim().max(200).optional(),
            status: z.enum(ADMIN_NODE_STATUSES).default('all'),
            sort: z.enum(ADMIN_NODE_SORTS).default('domain'),
            dir: z.enum(['asc', 'desc']).default('asc'),
            limit: z.int().min(1).max(1000).optional(),
          })
          .optional(),
      ),
    )
    .query(async ({ ctx, input }) => isoDates(await ctx.node.registryAdmin.listNodes(input))),

  /** One node: its record, block, seed entry, recent sync log and a series for a chart. */
  get: adminProcedure
    .input(humaneInput(domainInput.extend({ logLimit: z.int().min(1).max(200).optional() })))
    .query(async ({ ctx, input }) => {
      const detail = await ctx.node.registryAdmin.nodeDetail(input.domain, {
        logLimit: input.logLimit,
      });
      if (!detail) throw notFound(`${input.domain} is not known to this node.`);
      return isoDates(detail);
    }),

  block: adminProcedure
    .input(
      humaneInput(
        domainInput.extend({
          reason: z.string().trim().max(500, { error: 'at most 500 characters' }).optional(),
        }),
      ),
    )
    .mutation(async ({ ctx, input }) => {
      const blocked = await ctx.node.registryAdmin.blockNode(
        input.domain,
        input.reason || undefined,
        ctx.user.id,
      );
      const block = unwrap(blocked);
      await audit(ctx, { action: 'node.block', target: input.domain, reason: input.reason });
      return isoDates(block);
    }),

  unblock: adminProcedure
    .input(humaneInput(domainInput.extend({ reason: reasonField })))
    .mutation(async ({ ctx, input }) => {
      if (!(await ctx.node.registryAdmin.unblockNode(input.domain))) {
        throw notFound(`${input.domain} is not blocked.`);
      }
      await audit(ctx, { action: 'node.unblock', target: input.domain, reason: input.reason });
      return { domain: input.domain };
    }),

  /** Forget a node's pinned key: its next signed request pins the key it has now. */
  resetKey: adminProcedure
    .input(humaneInput(domainInput.extend({ reason: reasonField })))
    .mutation(async ({ ctx, input }) => {
      if (!(await ctx.node.nodeAuth.resetPinnedKey(input.domain))) {
        throw notFound(`${input.domain} is not a known node.`);
      }
      await audit(ctx, { action: 'node.reset-key', target: input.domain, reason: input.reason });
      return { domain: input.domain };
    }),
});

const seedsRouter = router({
  list: adminProcedure.query(async ({ ctx }) => isoDates(await ctx.node.registryAdmin.listSeeds())),

  /** Adds a seed, or sets the priority of an existing one and enables it again. */
  add: adminProcedure
    .input(humaneInput(domainInput.extend({ priority: priorityInput, reason: reasonField })))
    .mutation(async ({ ctx, input }) => {
      const added = await ctx.node.registryAdmin.addSeed(input.domain, input.priority);
      const seed = unwrap(added);
      await audit(ctx, {
        action: 'seed.add',
        target: input.domain,
        reason: input.reason,
        details: { priority: input.priority },
      });
      return isoDates(seed);
    }),

  setPriority: adminProcedure
    .input(humaneInput(domainInput.extend({ priority: priorityInput, reason: reasonField })))
    .mutation(async ({ ctx, input }) => {
      const seed = await ctx.node.registryAdmin.setSeedPriority(input.domain, input.priority);
      if (!seed) throw notFound(`${input.domain} is not a seed.`);
      await audit(ctx, {
        action: 'seed.priority',
        target: input.domain,
        reason: input.reason,
        details: { priority: input.priority },
      });
      return isoDates(seed);
    }),

  setEnabled: adminProcedure
    .input(humaneInput(domainInput.extend({ isEnabled: z.boolean(), reason: reasonField })))
    .mutation(async ({ ctx, input }) => {
      const seed = await ctx.node.registryAdmin.setSeedEnabled(input.domain, input.isEnabled);
      if (!seed) throw notFound(`${input.domain} is not a seed.`);
      await audit(ctx, {
        action: input.isEnabled ? 'seed.enable' : 'seed.disable',
        target: input.domain,
        reason: input.reason,
      });
      return isoDates(seed);
    }),
});

const blocksRouter = router({
  list: adminProcedure.query(async ({ ctx }) =>
    isoDates(await ctx.node.registryAdmin.listBlocks()),
  ),
});

/** Operator actions; each answers what happened peer by peer (an unreachable peer is a row). */
const actionsRouter = router({
  /** To the enabled seeds by priority, or to one domain. */
  announce: adminProcedure
    .input(humaneInput(optionalDomainInput))
    .mutation(async ({ ctx, input }) => {
      const report = await ctx.node.registryAdmin.runAction({
        action: 'announce',
        domain: input?.domain,
      });
      await audit(ctx, { action: 'swarm.announce', target: input?.domain ?? 'seeds' });
      return report;
    }),

  /** Probe a domain's `/api/swarm/info` and record it. */
  discover: adminProcedure.input(humaneInput(domainInput)).mutation(async ({ ctx, input }) => {
    const report = await ctx.node.registryAdmin.runAction({
      action: 'discover',
      domain: input.domain,
    });
    await audit(ctx, { action: 'swarm.discover', target: input.domain });
    return report;
  }),

  /** A gossip round now (up to 3 peers by trust), or one exchange with a domain. */
  gossip: adminProcedure
    .input(humaneInput(optionalDomainInput))
    .mutation(async ({ ctx, input }) => {
      const report = await ctx.node.registryAdmin.runAction({
        action: 'gossip',
        domain: input?.domain,
      });
      await audit(ctx, { action: 'swarm.gossip', target: input?.domain ?? 'seeds' });
      return report;
    }),
});

const tokensRouter = router({
  /** Never the secrets (only their hashes are stored). */
  list: adminProcedure.query(async ({ ctx }) => isoDates(await ctx.node.adminTokens.listTokens())),

  /** The answer holds the token: the only time it can be seen. */
  create: adminProcedure
    .input(
      humaneInput(
        z.object({
          name: z
            .string()
            .trim()
            .min(1, { error: 'must not be empty' })
            .max(100, { error: 'at most 100 characters' }),
          reason: reasonField,
        }),
      ),
    )
    .mutation(async ({ ctx, input }) => {
      const created = await ctx.node.adminTokens.createToken(input.name, ctx.user.id);
      // Never the token itself: its name and id.
      await audit(ctx, {
        action: 'token.create',
        target: `${created.name} (${created.id})`,
        reason: input.reason,
      });
      return isoDates(created);
    }),

  revoke: adminProcedure
    .input(humaneInput(z.object({ id: uuidSchema, reason: reasonField })))
    .mutation(async ({ ctx, input }) => {
      if (!(await ctx.node.adminTokens.revokeToken(input.id))) {
        throw notFound('There is no such admin token.');
      }
      await audit(ctx, { action: 'token.revoke', target: input.id, reason: input.reason });
      return { id: input.id };
    }),
});

/** The durable outbox of deliveries to other nodes (pending ones are retried with backoff). */
const outboxRouter = router({
  /** Newest first. */
  list: adminProcedure
    .input(
      humaneInput(
        z
          .object({
            status: z.enum(['pending', 'delivered', 'failed', 'cancelled']).optional(),
            limit: z.int().min(1).max(200).optional(),
          })
          .optional(),
      ),
    )
    .query(({ ctx, input }) =>
      ctx.node.delivery.list({ status: input?.status, limit: input?.limit }),
    ),

  counts: adminProcedure.query(({ ctx }) => ctx.node.delivery.counts()),

  /** Attempts a pending or failed delivery now; the answer is its state afterwards. */
  retryNow: adminProcedure
    .input(humaneInput(z.object({ id: uuidSchema })))
    .mutation(async ({ ctx, input }) => {
      const retried = await ctx.node.delivery.retryNow(input.id);
      if (retried.ok) {
        await audit(ctx, {
          action: 'delivery.retry',
          target: `${retried.value.kind} to ${retried.value.targetDomain} (${input.id})`,
        });
      }
      return unwrap(retried);
    }),
});

const usersRouter = router({
  list: adminProcedure.query(async ({ ctx }) =>
    isoDates(await createUserAdminService(ctx.node).listUsers()),
  ),
});

export const adminRouter = router({
  nodes: nodesRouter,
  seeds: seedsRouter,
  blocks: blocksRouter,
  actions: actionsRouter,
  tokens: tokensRouter,
  outbox: outboxRouter,
  users: usersRouter,
});
