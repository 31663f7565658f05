import { getUserResponse } from '$lib/server/user-endpoints';
import type { RequestHandler } from './$types';

// The spec's `GET /api/users/[handle]`: a local user, or `handle@domain` fetched from its node.
export const GET: RequestHandler = ({ params, locals }) =>
  getUserResponse(locals.api, params.handle, {
    log: (err) => locals.node.logger.error({ err }, 'GET /api/users/[handle] failed'),
  });
