import { createRoute } from '@hono/zod-openapi';
import {
  SWARM_PATHS,
  errorBodySchema,
  forwardedReportBodySchema,
  forwardedReportResponseSchema,
} from '@swarm/contract';
import { sendRefusal } from '../errors.ts';
import { createRouter, jsonContent, verifiedSourceDomain } from '../router.ts';

// Forwarded moderation reports (docs/protocol.md "Report forwarding"; capability `reports`).
// Node-signed: `nodeSignature({ required: true })` is mounted for this path in app.ts.

const postReport = createRoute({
  method: 'post',
  path: SWARM_PATHS.reports,
  tags: ['Moderation'],
  summary: 'Receive a report about a user or post of this node, forwarded by another node',
  description:
    'Node-signed (X-Swarm-* headers). The reporter stays anonymous: only their node is named (`reporterNodeDomain`, which must be the signing node). Idempotent by (sending node, report id). Lands in this node’s moderation queue; nothing else happens automatically.',
  request: {
    body: {
      content: { 'application/json': { schema: forwardedReportBodySchema } },
      required: true,
    },
  },
  responses: {
    200: jsonContent(forwardedReportResponseSchema, 'Queued (or queued already)'),
    400: jsonContent(errorBodySchema, 'Malformed body (zod issues in `details`)'),
    401: jsonContent(errorBodySchema, 'Not node-signed, or the signature is invalid'),
    403: jsonContent(errorBodySchema, 'The node speaks for another node, or is blocked'),
    404: jsonContent(errorBodySchema, 'No such user (USER_NOT_FOUND) or post (POST_NOT_FOUND)'),
    429: jsonContent(errorBodySchema, 'Too many open reports from this node (RATE_LIMITED)'),
  },
});

export function reportRoutes() {
  const app = createRouter();
  app.openapi(postReport, async (c) => {
    const source = verifiedSourceDomain(c);
    if (!source) {
      return sendRefusal(c, {
        code: 'INVALID_SIGNATURE',
        message:
          'Reports must be node-signed (X-Swarm-Source-Domain, X-Swarm-Timestamp, X-Swarm-Nonce, X-Swarm-Signature).',
      });
    }
    const outcome = await c.get('node').moderation.reports.receive(source, c.req.valid('json'));
    if (!outcome.ok) return sendRefusal(c, outcome.reason);
    return c.json({ success: true as const, reportId: outcome.value.reportId }, 200);
  });
  return app;
}
