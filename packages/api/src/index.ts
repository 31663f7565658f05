export { appRouter, createCaller, type AppRouter } from './root.router.ts';
export type { ApiContext } from './trpc.ts';
export { retryAfterOf } from './auth.router.ts';
