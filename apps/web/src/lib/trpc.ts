import { createTRPCClient, httpBatchLink } from '@trpc/client';
import type { AppRouter } from '@swarm/api';

/**
 * The browser's tRPC client (same procedures the server loads call in-process through
 * `locals.api`). Same-origin, so the session cookie goes along.
 */
export const trpc = createTRPCClient<AppRouter>({
  links: [httpBatchLink({ url: '/trpc' })],
});
