import { nodeRouter } from './node.router.ts';
import { createCallerFactory, router } from './trpc.ts';

export const appRouter = router({
  node: nodeRouter,
});

export type AppRouter = typeof appRouter;

/** In-process calls for SvelteKit server loads and for tests. */
export const createCaller = createCallerFactory(appRouter);
