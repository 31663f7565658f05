import { createRoute, type z } from '@hono/zod-openapi';
import type { Context, Env } from 'hono';
import {
  SWARM_PATHS,
  errorBody,
  errorBodySchema,
  followBodySchema,
  interactionResponseSchema,
  likeBodySchema,
  mentionBodySchema,
  replyBodySchema,
  replyResponseSchema,
  repostBodySchema,
  unfollowBodySchema,
  unlikeBodySchema,
  unrepostBodySchema,
  type InteractionKind,
} from '@swarm/contract';
import type { InboundInteractionError } from '@swarm/domain';
import { sendRefusal } from '../errors.ts';
import { readJsonBody } from '../middleware/body.ts';
import { createRouter, jsonContent, verifiedProfile, verifiedSourceDomain } from '../router.ts';

// Interaction receiving endpoints (spec "Interaction receiving endpoints", docs/protocol.md,
// Interactions). They must be node-signed: `nodeSignature({ required: true })`, mounted for these
// paths in app.ts, verifies the X-Swarm-* headers and sets `sourceDomain`; a request without it is
// refused here too. The user signature inside the body is checked by the domain service over the
// body as received, so handlers pass the raw JSON too.

const errors = {
  400: jsonContent(errorBodySchema, 'Malformed body (zod issues in `details`)'),
  401: jsonContent(
    errorBodySchema,
    'Node or user signature missing, invalid, stale or from the future; the origin profile’s format from a peer of ours (PROFILE_MISMATCH)',
  ),
  403: jsonContent(
    errorBodySchema,
    'The sending node speaks for a user of another node, or is blocked',
  ),
  404: jsonContent(errorBodySchema, 'Unknown post or handle (POST_NOT_FOUND / USER_NOT_FOUND)'),
  429: jsonContent(
    errorBodySchema,
    'Rate limited, or too many of the sending node’s origin-profile interactions wait for confirmation',
  ),
};

const SUMMARIES: Record<InteractionKind | 'unrepost', string> = {
  like: 'Receive a like of a post on this node',
  unlike: 'Receive the undoing of a like',
  repost: 'Receive a repost of a post on this node',
  follow: 'Receive a follow of a user on this node',
  unfollow: 'Receive the undoing of a follow',
  mention: 'Receive a mention of a user on this node',
  unrepost:
    'Receive the undoing of a repost (the origin profile’s endpoint, not in the spec; capability `unrepost`)',
};

function interactionRoute<S extends z.ZodType>(kind: InteractionKind | 'unrepost', schema: S) {
  return createRoute({
    method: 'post',
    path: SWARM_PATHS.interaction(kind),
    tags: ['Interactions'],
    summary: SUMMARIES[kind],
    description:
      'Node-signed (X-Swarm-* headers, or a body `signature` from a peer of the origin profile). Idempotent by (actorNodeDomain, interactionId): a repeat answers the same success and changes nothing.',
    request: { body: { content: { 'application/json': { schema } }, required: true } },
    responses: { 200: jsonContent(interactionResponseSchema, 'Received'), ...errors },
  });
}

const routes = {
  like: interactionRoute('like', likeBodySchema),
  unlike: interactionRoute('unlike', unlikeBodySchema),
  repost: interactionRoute('repost', repostBodySchema),
  follow: interactionRoute('follow', followBodySchema),
  unfollow: interactionRoute('unfollow', unfollowBodySchema),
  mention: interactionRoute('mention', mentionBodySchema),
  unrepost: interactionRoute('unrepost', unrepostBodySchema),
};

const postReply = createRoute({
  method: 'post',
  path: SWARM_PATHS.replies,
  tags: ['Interactions'],
  summary: 'Receive a reply to a post on this node',
  description:
    'Node-signed (X-Swarm-* headers). Idempotent by the reply id on its node: a repeat answers the same replyId.',
  request: {
    body: { content: { 'application/json': { schema: replyBodySchema } }, required: true },
  },
  responses: { 200: jsonContent(replyResponseSchema, 'The reply as stored here'), ...errors },
});

/**
 * The body as received, parsed but not normalised by zod (the user signature covers unknown
 * members and exact values), from the same bytes the node signature covers.
 */
const rawJsonOf = (c: Context): Promise<unknown> => readJsonBody(c);

const UNSIGNED: InboundInteractionError = {
  code: 'INVALID_SIGNATURE',
  message:
    'Interactions must be node-signed (X-Swarm-Source-Domain, X-Swarm-Timestamp, X-Swarm-Nonce, X-Swarm-Signature).',
};

/**
 * Validation hook: like, unlike and repost require the user's `signature` (unrepost too, checked
 * by the domain: the origin's body has a node signature there); when it is the only
 * thing wrong and it is absent, that is an authentication failure (401), not a malformed body.
 * Anything else answers like every router: 400 INVALID_REQUEST with zod's issues.
 */
function validationHook<E extends Env, P extends string>(
  // `data` (the input) is passed on failure too, though Hono's type leaves it out.
  result: { success: boolean; data?: unknown; error?: z.ZodError },
  c: Context<E, P>,
) {
  const { data, error } = result;
  if (result.success || !error) return;
  const signature =
    typeof data === 'object' && data !== null ? (data as Record<string, unknown>).signature : 1;
  const onlySignature = error.issues.every((issue) => issue.path[0] === 'signature');
  if ((signature === undefined || signature === null) && onlySignature) {
    return sendRefusal(c, {
      code: 'INVALID_SIGNATURE',
      message: "This interaction must carry the acting user's signature.",
    });
  }
  return c.json(errorBody('INVALID_REQUEST', 'The request is not valid.', error.issues), 400);
}

export function interactionRoutes() {
  const app = createRouter();

  for (const kind of Object.keys(routes) as (keyof typeof routes)[]) {
    // One handler shape for the seven kinds; the service method is chosen by the path's kind.
    app.openapi(
      routes[kind],
      async (c) => {
        const source = verifiedSourceDomain(c);
        if (!source) return sendRefusal(c, UNSIGNED);
        const service = c.get('node').interactions;
        // The route for `kind` validated with that kind's schema; TS can't tie the union back.
        const body = c.req.valid('json') as never;
        const outcome = await service[kind](source, body, await rawJsonOf(c), {
          profile: verifiedProfile(c),
        });
        if (!outcome.ok) return sendRefusal(c, outcome.reason);
        return c.json({ success: true as const, message: outcome.value.message }, 200);
      },
      validationHook,
    );
  }

  app.openapi(
    postReply,
    async (c) => {
      const source = verifiedSourceDomain(c);
      if (!source) return sendRefusal(c, UNSIGNED);
      const outcome = await c
        .get('node')
        .interactions.reply(source, c.req.valid('json'), await rawJsonOf(c), {
          profile: verifiedProfile(c),
        });
      if (!outcome.ok) return sendRefusal(c, outcome.reason);
      return c.json({ success: true as const, replyId: outcome.value.replyId }, 200);
    },
    validationHook,
  );

  return app;
}
