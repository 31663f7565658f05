import { initTRPC } from '@trpc/server';
import type { AuthServices, ValidatedSession } from '@swarm/auth';
import { containsNul, NUL_REFUSED, refusal } from '@swarm/contract';
import { DATABASE_UNAVAILABLE, READS_TOPIC, withMediaSrc, type NodeContext } from '@swarm/domain';
import { refusalOf, toTrpcError } from './refusals.ts';

/** What every procedure sees: the node's services, accounts and sessions, and who is asking. */
export interface ApiContext {
  node: NodeContext;
  auth: AuthServices;
  /** The caller's validated session, or null when signed out. */
  session: ValidatedSession | null;
  /** For rate limits (login attempts). */
  clientIp: string;
}

/** What a caller sees of a failure that is our fault; the cause goes to the node's log. */
export const INTERNAL_MESSAGE = 'Something went wrong on this node; it has been logged.';

// Error bodies never carry stacks or internals, whatever NODE_ENV says (tRPC adds the stack
// when it thinks it is in development, which an unset NODE_ENV means: the README's `pnpm
// start`), and an unexpected error's own message (a database error, a file path) stays in the
// log: the caller gets a fixed sentence.
const t = initTRPC.context<ApiContext>().create({
  isDev: false,
  errorFormatter: ({ shape, error }) => {
    const { stack: _stack, ...trpcData } = shape.data;
    if (error.code === 'INTERNAL_SERVER_ERROR') {
      return { ...shape, message: INTERNAL_MESSAGE, data: { ...trpcData, errorCode: 'INTERNAL' } };
    }
    // The refusal's own code (USER_NOT_FOUND stays USER_NOT_FOUND), and the input it is about.
    const refusal = refusalOf(error);
    const data = {
      ...trpcData,
      errorCode: refusal?.code ?? 'INTERNAL',
      ...(refusal?.field === undefined ? {} : { field: refusal.field }),
      ...(refusal?.details === undefined ? {} : { details: refusal.details }),
    };
    return { ...shape, data };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Every procedure: inputs holding U+0000 (which Postgres text cannot store) are refused; views
 * in the answer that name images get their media-proxy paths (pages load images only through
 * the node, so image hosts never see viewers' addresses).
 */
export const publicProcedure = t.procedure.use(async ({ ctx, getRawInput, next, type }) => {
  if (containsNul(await getRawInput())) {
    throw toTrpcError(refusal('INVALID_REQUEST', NUL_REFUSED));
  }
  const result = await next();
  // A database outage is not our bug: 503 SERVICE_UNAVAILABLE (the JSON endpoints answer it as
  // UNAVAILABLE), logged once per interval for all requests instead of once per request.
  if (!result.ok && result.error.code === 'INTERNAL_SERVER_ERROR') {
    const cause = result.error.cause ?? result.error;
    if (await ctx.node.health.isDatabaseUnavailable(cause)) {
      ctx.node.failures.report(DATABASE_UNAVAILABLE, cause);
      throw toTrpcError(refusal('UNAVAILABLE', UNAVAILABLE_MESSAGE));
    }
  }
  if (!result.ok) return result;
  // A change people made here shows at once in the gateways' cached public reads, in every
  // process of the node (not only after the cache's TTL).
  if (type === 'mutation') await ctx.node.invalidations.publish(READS_TOPIC);
  return { ...result, data: withMediaSrc(result.data, ctx.node.media.src) };
});

export const UNAVAILABLE_MESSAGE = "The node's database is unavailable; try again shortly.";

/** Signed-in users only; `ctx.user` is the session's user. */
export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.session) throw toTrpcError(refusal('UNAUTHORIZED', 'Sign in first.'));
  return next({ ctx: { ...ctx, session: ctx.session, user: ctx.session.user } });
});

/** Admins only, checked on every call (not only by a page layout). */
export const adminProcedure = protectedProcedure.use(({ ctx, next }) => {
  if (!ctx.user.isAdmin) {
    throw toTrpcError(refusal('FORBIDDEN', 'This needs an administrator.'));
  }
  return next();
});
