import { initTRPC } from '@trpc/server';
import type { NodeContext } from '@swarm/domain';

/** What every procedure sees: the node's services; the signed-in user joins with accounts. */
export interface ApiContext {
  node: NodeContext;
}

const t = initTRPC.context<ApiContext>().create();

export const router = t.router;
export const publicProcedure = t.procedure;
export const createCallerFactory = t.createCallerFactory;
