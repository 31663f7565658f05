import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter, retryAfterOf } from '@swarm/api';
import type { RequestHandler } from './$types';

// tRPC over the fetch adapter: the browser's calls land here; server loads use createCaller.
// The session comes from the hook (cookie validated once per request). Sign-in and sign-out
// set or clear the cookie in form actions (/login, /signup, /logout), not through this endpoint.
const handle: RequestHandler = ({ request, locals }) =>
  fetchRequestHandler({
    endpoint: '/trpc',
    req: request,
    router: appRouter,
    createContext: () => ({
      node: locals.node,
      auth: locals.auth,
      session: locals.session,
      clientIp: locals.clientAddress,
    }),
    // A throttled call (log-in, sign-up) says when to come back.
    responseMeta: ({ errors }) => {
      const retryAfter = errors.map(retryAfterOf).find((s) => s !== undefined);
      return retryAfter === undefined ? {} : { headers: { 'retry-after': String(retryAfter) } };
    },
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        locals.node.logger.error({ err: error, path }, 'tRPC procedure failed');
      }
    },
  });

export const GET = handle;
export const POST = handle;
