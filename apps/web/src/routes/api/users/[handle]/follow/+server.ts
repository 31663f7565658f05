import { followUserResponse } from '$lib/server/user-endpoints';
import type { RequestHandler } from './$types';

// The spec's `POST /api/users/<handle>@<domain>/follow`, for the signed-in user (the session
// cookie is SameSite=Lax, so other sites cannot make a visitor follow someone).
export const POST: RequestHandler = ({ params, locals }) =>
  followUserResponse(locals.api, params.handle, locals.session !== null, {
    log: (err) => locals.node.logger.error({ err }, 'POST /api/users/[handle]/follow failed'),
  });
