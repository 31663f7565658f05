import { publicProcedure, router } from './trpc.ts';

export const nodeRouter = router({
  /** This node as peers see it: name, domain, counts, capabilities. */
  info: publicProcedure.query(({ ctx }) => ctx.node.nodeInfo.get()),
});
