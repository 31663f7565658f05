export { appRouter, createCaller, type AppRouter } from './root.router.ts';
export type { ApiContext } from './trpc.ts';
export { toTrpcError, refusalOf, retryAfterOf, TRPC_CODE, unwrap } from './refusals.ts';
