import { createRoute } from '@hono/zod-openapi';
import {
  SWARM_PATHS,
  errorBodySchema,
  messageEnvelopeSchema,
  messageReceiptSchema,
  messageResponseSchema,
  receiptResponseSchema,
} from '@swarm/contract';
import type { InboundReceiptError } from '@swarm/domain';
import { sendRefusal } from '../errors.ts';
import { readJsonBody } from '../middleware/body.ts';
import { createRouter, jsonContent, verifiedSourceDomain } from '../router.ts';

// Direct messages between nodes (docs/protocol.md "Direct messages"; capability `messages`).
// Node-signed like interactions: `nodeSignature({ required: true })` is mounted for these paths
// in app.ts and sets `sourceDomain`. Bodies are end-to-end encrypted envelopes and receipts
// signed by users; the domain service checks those signatures over the JSON as received.

const errors = {
  400: jsonContent(errorBodySchema, 'Malformed envelope or receipt (zod issues in `details`)'),
  401: jsonContent(
    errorBodySchema,
    'Node or user signature missing or invalid; createdAt/at stale (over 7 days) or ahead (over 5 minutes)',
  ),
  403: jsonContent(
    errorBodySchema,
    'The sending node speaks for another node’s user, or the recipient does not accept messages from the sender',
  ),
  404: jsonContent(errorBodySchema, 'No such recipient (USER_NOT_FOUND) or message (NOT_FOUND)'),
};

const postMessage = createRoute({
  method: 'post',
  path: SWARM_PATHS.messages,
  tags: ['Direct messages'],
  summary: 'Receive an end-to-end encrypted direct message for a user of this node',
  description:
    'Node-signed (X-Swarm-* headers). The body is the envelope signed by the sender (action `message`, targetDomain = the recipient’s domain). Idempotent by message id: the same envelope again answers the same; another envelope with a known id is 409 MESSAGE_CONFLICT. Privacy and blocks refusals are 403 with `{ error: "The recipient does not accept messages from you" }`.',
  request: {
    body: { content: { 'application/json': { schema: messageEnvelopeSchema } }, required: true },
  },
  responses: {
    200: jsonContent(messageResponseSchema, 'Stored (or already stored)'),
    ...errors,
    409: jsonContent(
      errorBodySchema,
      'Another message with this id was received (MESSAGE_CONFLICT)',
    ),
  },
});

const postReceipt = createRoute({
  method: 'post',
  path: SWARM_PATHS.messageReceipts,
  tags: ['Direct messages'],
  summary: 'Receive a delivered/read receipt for a message sent by a user of this node',
  description:
    'Node-signed (X-Swarm-* headers). Signed by the message’s recipient (action `receipt`, targetDomain = the sender’s domain). Status only moves forward (sent → delivered → read); an older or equal status answers 200 and changes nothing.',
  request: {
    body: { content: { 'application/json': { schema: messageReceiptSchema } }, required: true },
  },
  responses: {
    200: jsonContent(receiptResponseSchema, 'Recorded (or nothing to change)'),
    ...errors,
  },
});

const UNSIGNED: InboundReceiptError = {
  code: 'INVALID_SIGNATURE',
  message:
    'Messages and receipts must be node-signed (X-Swarm-Source-Domain, X-Swarm-Timestamp, X-Swarm-Nonce, X-Swarm-Signature).',
};

export function messageRoutes() {
  const app = createRouter();

  app.openapi(postMessage, async (c) => {
    const source = verifiedSourceDomain(c);
    if (!source) return sendRefusal(c, UNSIGNED);
    const outcome = await c
      .get('node')
      .messages.receive(source, c.req.valid('json'), await readJsonBody(c));
    if (!outcome.ok) return sendRefusal(c, outcome.reason);
    return c.json(
      {
        success: true as const,
        message: 'Message received',
        messageId: outcome.value.messageId,
      },
      200,
    );
  });

  app.openapi(postReceipt, async (c) => {
    const source = verifiedSourceDomain(c);
    if (!source) return sendRefusal(c, UNSIGNED);
    const outcome = await c
      .get('node')
      .messages.receiveReceipt(source, c.req.valid('json'), await readJsonBody(c));
    if (!outcome.ok) return sendRefusal(c, outcome.reason);
    return c.json({ success: true as const, message: 'Receipt received' }, 200);
  });

  return app;
}
