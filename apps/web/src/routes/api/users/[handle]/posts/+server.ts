import { getUserPostsResponse } from '$lib/server/user-endpoints';
import type { RequestHandler } from './$types';

// The spec's `GET /api/users/[handle]/posts`: the user's posts, remote ids `swarm:{domain}:{id}`.
export const GET: RequestHandler = ({ params, url, locals }) =>
  getUserPostsResponse(locals.api, params.handle, url.searchParams, {
    log: (err) => locals.node.logger.error({ err }, 'GET /api/users/[handle]/posts failed'),
  });
