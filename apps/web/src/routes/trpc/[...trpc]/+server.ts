import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter } from '@swarm/api';
import type { RequestHandler } from './$types';

// tRPC over the fetch adapter: the browser's calls land here; server loads use createCaller.
const handle: RequestHandler = ({ request, locals }) =>
  fetchRequestHandler({
    endpoint: '/trpc',
    req: request,
    router: appRouter,
    createContext: () => ({ node: locals.node }),
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        locals.node.logger.error({ err: error, path }, 'tRPC procedure failed');
      }
    },
  });

export const GET = handle;
export const POST = handle;
