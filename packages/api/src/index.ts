export { appRouter, createCaller, type AppRouter } from './root.router.ts';
export type { ApiContext } from './trpc.ts';
