import { createRoute, z } from '@hono/zod-openapi';
import {
  errorBody,
  errorBodySchema,
  followListQuerySchema,
  followersResponseSchema,
  followingResponseSchema,
  repliesQuerySchema,
  repliesResponseSchema,
  singlePostAnswerSchema,
  SWARM_PATHS,
  swarmUserQuerySchema,
  swarmUserResponseSchema,
  timelineQuerySchema,
  timelineResponseSchema,
} from '@swarm/contract';
import type { ContentError } from '@swarm/domain';
import type { Context } from 'hono';
import { createRouter, jsonContent } from '../router.ts';

// Public reads about content (spec "Public read endpoints", docs/protocol.md "Public reads"):
// no credentials, answered from the content service; unknown handles and posts are 404s.

const invalid = { 400: jsonContent(errorBodySchema, 'Malformed query (zod issues in `details`)') };

const getUser = createRoute({
  method: 'get',
  path: '/api/swarm/users/{handle}',
  summary: 'Profile and recent public posts of a local user',
  request: {
    params: z.object({ handle: z.string().min(1) }),
    query: swarmUserQuerySchema,
  },
  responses: {
    200: jsonContent(
      swarmUserResponseSchema,
      'Profile and posts, newest first (`limit=0`: no posts)',
    ),
    ...invalid,
    404: jsonContent(errorBodySchema, 'No such local user (USER_NOT_FOUND)'),
  },
});

const getTimeline = createRoute({
  method: 'get',
  path: SWARM_PATHS.timeline,
  summary: "This node's recent public posts, newest first",
  request: { query: timelineQuerySchema },
  responses: {
    200: jsonContent(timelineResponseSchema, 'Public top-level posts; page back with `before`'),
    ...invalid,
  },
});

const getPost = createRoute({
  method: 'get',
  path: '/api/swarm/posts/{id}',
  summary: 'One local post with its author',
  request: { params: z.object({ id: z.string().min(1) }) },
  responses: {
    200: jsonContent(
      singlePostAnswerSchema,
      'The post, bare (the spec shape), plus `post` (the same post) and `replies` (its first replies) for readers that expect `{ post, replies }`',
    ),
    404: jsonContent(errorBodySchema, 'Unknown, deleted or non-public post (POST_NOT_FOUND)'),
  },
});

const getReplies = createRoute({
  method: 'get',
  path: SWARM_PATHS.replies,
  summary: 'Replies to a local post, oldest first',
  request: { query: repliesQuerySchema },
  responses: {
    200: jsonContent(repliesResponseSchema, 'Up to 100 replies; page back with `before`'),
    ...invalid,
    404: jsonContent(errorBodySchema, 'Unknown post (POST_NOT_FOUND)'),
  },
});

const listParams = z.object({ handle: z.string().min(1).max(300) });

const getFollowers = createRoute({
  method: 'get',
  path: '/api/swarm/users/{handle}/followers',
  summary: "A local user's followers, newest follow first",
  request: { params: listParams, query: followListQuerySchema },
  responses: {
    200: jsonContent(
      followersResponseSchema,
      'Up to `limit` (default 50, max 100) accepted followers; people of other nodes as `handle@domain` with `isRemote`; `nextCursor` pages on',
    ),
    ...invalid,
    404: jsonContent(errorBodySchema, 'No such local user (USER_NOT_FOUND)'),
  },
});

const getFollowing = createRoute({
  method: 'get',
  path: '/api/swarm/users/{handle}/following',
  summary: 'Whom a local user follows, newest follow first',
  request: { params: listParams, query: followListQuerySchema },
  responses: {
    200: jsonContent(
      followingResponseSchema,
      'Up to `limit` (default 50, max 100) accepted follows; people of other nodes as `handle@domain` with `isRemote`; `nextCursor` pages on',
    ),
    ...invalid,
    404: jsonContent(errorBodySchema, 'No such local user (USER_NOT_FOUND)'),
  },
});

/** Both content failures are 404s; the code tells which kind of thing was missing. */
function notFound(c: Context, failure: ContentError) {
  return c.json(errorBody(failure.code, failure.message), 404);
}

export function contentRoutes() {
  const app = createRouter();

  app.openapi(getUser, async (c) => {
    const { handle } = c.req.valid('param');
    const result = await c.get('node').content.userProfile(handle, c.req.valid('query'));
    if (!result.ok) return notFound(c, result.reason);
    return c.json(result.value, 200);
  });

  app.openapi(getFollowers, async (c) => {
    const { handle } = c.req.valid('param');
    const result = await c.get('node').followLists.serve('followers', handle, c.req.valid('query'));
    if (!result.ok) return notFound(c, result.reason);
    const { entries, ...rest } = result.value;
    return c.json({ followers: entries, ...rest }, 200);
  });

  app.openapi(getFollowing, async (c) => {
    const { handle } = c.req.valid('param');
    const result = await c.get('node').followLists.serve('following', handle, c.req.valid('query'));
    if (!result.ok) return notFound(c, result.reason);
    const { entries, ...rest } = result.value;
    return c.json({ following: entries, ...rest }, 200);
  });

  app.openapi(getTimeline, async (c) => {
    return c.json(await c.get('node').content.timeline(c.req.valid('query')), 200);
  });

  app.openapi(getPost, async (c) => {
    const result = await c.get('node').content.post(c.req.valid('param').id);
    if (!result.ok) return notFound(c, result.reason);
    return c.json(result.value, 200);
  });

  app.openapi(getReplies, async (c) => {
    const result = await c.get('node').content.replies(c.req.valid('query'));
    if (!result.ok) return notFound(c, result.reason);
    return c.json(result.value, 200);
  });

  return app;
}
