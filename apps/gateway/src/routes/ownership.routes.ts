import { createRoute } from '@hono/zod-openapi';
import {
  SWARM_PATHS,
  deletionBodySchema,
  errorBodySchema,
  interactionResponseSchema,
  moveBodySchema,
} from '@swarm/contract';
import type { OwnershipError } from '@swarm/domain';
import { sendRefusal } from '../errors.ts';
import { readJsonBody } from '../middleware/body.ts';
import { createRouter, jsonContent, verifiedSourceDomain } from '../router.ts';

// Account ownership between nodes (docs/protocol.md "Deleting posts and accounts", "Moving an
// account"; capabilities `deletions` and `moves`). Node-signed like interactions
// (`nodeSignature({ required: true })` is mounted for these paths in app.ts); the statement in
// the body is signed by the user's own key, checked by the domain service over the raw JSON.

const errors = {
  400: jsonContent(errorBodySchema, 'Malformed body (zod issues in `details`)'),
  401: jsonContent(
    errorBodySchema,
    'Node or user signature missing or invalid, a key other than the account’s, or a stale timestamp',
  ),
  403: jsonContent(
    errorBodySchema,
    'The sending node may not relay this statement, the new address does not hold the account, or an app’s delegation does not allow it (an account’s deletion, never)',
  ),
  404: jsonContent(errorBodySchema, 'The account (or its new address) does not exist'),
  502: jsonContent(errorBodySchema, 'The new address’s node could not be asked; retry later'),
};

const postDeletion = createRoute({
  method: 'post',
  path: SWARM_PATHS.deletions,
  tags: ['Ownership'],
  summary: 'Receive the deletion of a post or of a whole account by its author',
  description:
    'Node-signed by the author’s node; the body is signed by the author (action `delete-post` or `delete-account`, targetDomain = the author’s node), or, for a post only, by an app’s key with the author’s delegation as the body’s `delegation` member. Copies of the post (or everything of the account) are removed here. Idempotent by (actorNodeDomain, interactionId).',
  request: {
    body: { content: { 'application/json': { schema: deletionBodySchema } }, required: true },
  },
  responses: {
    200: jsonContent(interactionResponseSchema, 'Applied (or nothing here)'),
    ...errors,
    429: jsonContent(
      errorBodySchema,
      'Too many delegations of the user’s node to check now (an app’s deletion); retry later',
    ),
  },
});

const postMove = createRoute({
  method: 'post',
  path: SWARM_PATHS.moves,
  tags: ['Ownership'],
  summary: 'Receive the move of an account to another node',
  description:
    'Node-signed by the node the account leaves or the one it moves to; the body is signed by the account’s key (action `move`, targetDomain = the node it leaves). The old node marks the account moved and relays the statement; followers’ nodes move their follows to the new address. Idempotent by (sender, interactionId).',
  request: {
    body: { content: { 'application/json': { schema: moveBodySchema } }, required: true },
  },
  responses: {
    200: jsonContent(interactionResponseSchema, 'Applied (or nothing here)'),
    ...errors,
  },
});

const UNSIGNED: OwnershipError = {
  code: 'INVALID_SIGNATURE',
  message:
    'Deletions and moves must be node-signed (X-Swarm-Source-Domain, X-Swarm-Timestamp, X-Swarm-Nonce, X-Swarm-Signature).',
};

export function ownershipRoutes() {
  const app = createRouter();

  app.openapi(postDeletion, async (c) => {
    const source = verifiedSourceDomain(c);
    if (!source) return sendRefusal(c, UNSIGNED);
    const outcome = await c
      .get('node')
      .inboundOwnership.deletion(source, c.req.valid('json'), await readJsonBody(c));
    if (!outcome.ok) return sendRefusal(c, outcome.reason);
    return c.json({ success: true as const, message: outcome.value.message }, 200);
  });

  app.openapi(postMove, async (c) => {
    const source = verifiedSourceDomain(c);
    if (!source) return sendRefusal(c, UNSIGNED);
    const outcome = await c
      .get('node')
      .inboundOwnership.move(source, c.req.valid('json'), await readJsonBody(c));
    if (!outcome.ok) return sendRefusal(c, outcome.reason);
    return c.json({ success: true as const, message: outcome.value.message }, 200);
  });

  return app;
}
