import { createRoute, z } from '@hono/zod-openapi';
import type { Context, Env } from 'hono';
import {
  SWARM_PATHS,
  errorBody,
  errorBodySchema,
  originPostPushSchema,
  postPushAnswerSchema,
  postPushSchema,
} from '@swarm/contract';
import { sendRefusal } from '../errors.ts';
import { readJsonBody } from '../middleware/body.ts';
import { createRouter, jsonContent, verifiedProfile, verifiedSourceDomain } from '../router.ts';

// `POST /api/swarm/inbox` (docs/protocol.md "Post delivery"): posts pushed by the nodes of
// people followed here. Node-signed (`nodeSignature({ required: true })`, mounted in app.ts,
// verifies the X-Swarm-* headers or, from a peer of the origin profile, the body `signature`,
// checks blocks and charges the sender's rate limit); the body is then read in the dialect the
// signature showed and the domain's post inbox does the rest.

const pushRoute = createRoute({
  method: 'post',
  path: SWARM_PATHS.inbox,
  tags: ['Posts'],
  summary: 'Receive a new post by a user of the sending node (capability `posts`)',
  description:
    'Sent once per receiving node by the author’s node, to the nodes of the author’s followers. Our dialect: node-signed in the X-Swarm-* headers, with the author’s `postSignature`; the origin profile’s: node signature in the body’s `signature`. Stored as a copy of the post; a repeat refreshes it (counts, text, media) and answers the same `postId`.',
  request: {
    body: {
      content: {
        'application/json': { schema: z.union([postPushSchema, originPostPushSchema]) },
      },
      required: true,
    },
  },
  responses: {
    200: jsonContent(postPushAnswerSchema, 'Stored (or refreshed); `postId` is its id here'),
    400: jsonContent(errorBodySchema, 'Malformed body (zod issues in `details`)'),
    401: jsonContent(
      errorBodySchema,
      'Node signature missing or invalid; the push timestamp stale or ahead; the author’s signature missing (their did is pinned here) or wrong; the origin profile’s format from a peer of ours (PROFILE_MISMATCH)',
    ),
    403: jsonContent(
      errorBodySchema,
      'The sender is not the author’s node (FORBIDDEN), is blocked (NODE_BLOCKED), or nobody here follows the author (NOT_FOLLOWED)',
    ),
    413: jsonContent(errorBodySchema, 'Body over 64 KiB'),
    429: jsonContent(errorBodySchema, 'The sending node’s rate limit (Retry-After)'),
  },
});

/** The body in the dialect the signature showed: origin-signed bodies are the origin's shape. */
function parseInDialect(c: Context, raw: unknown) {
  return verifiedProfile(c) === 'origin'
    ? originPostPushSchema.safeParse(raw)
    : postPushSchema.safeParse(raw);
}

/** A body neither dialect takes: the issues of the sender's own dialect, not the union's. */
function invalid(c: Context, issues: unknown) {
  return c.json(errorBody('INVALID_REQUEST', 'The request is not valid.', issues), 400);
}

/** Validation hook: a body neither dialect takes answers the issues of the sender's dialect. */
function dialectHook<E extends Env, P extends string>(
  // `data` (the input) is passed on failure too, though Hono's type leaves it out.
  result: { success: boolean; data?: unknown },
  c: Context<E, P>,
) {
  if (result.success) return;
  const parsed = parseInDialect(c, result.data);
  return invalid(c, parsed.success ? [] : parsed.error.issues);
}

export function inboxRoutes() {
  const app = createRouter();
  app.openapi(
    pushRoute,
    async (c) => {
      const source = verifiedSourceDomain(c);
      if (!source) {
        return sendRefusal(c, {
          code: 'INVALID_SIGNATURE',
          message: 'Posts must be pushed node-signed.',
        });
      }
      // The route's union accepted the body; the signature said which dialect it must be.
      const raw = await readJsonBody(c);
      const parsed = parseInDialect(c, raw);
      if (!parsed.success) return invalid(c, parsed.error.issues);
      const outcome = await c.get('node').postInbox.receive({
        sourceDomain: source,
        profile: verifiedProfile(c),
        push: parsed.data,
        rawPost: (raw as Record<string, unknown>).post,
        rawDelegation: (raw as Record<string, unknown>).postDelegation,
      });
      if (!outcome.ok) return sendRefusal(c, outcome.reason);
      return c.json(outcome.value, 200);
    },
    dialectHook,
  );
  return app;
}
