import { createRoute, z } from '@hono/zod-openapi';
import {
  adminAuditEntrySchema,
  adminReportSchema,
  errorBodySchema,
  type Refusal,
} from '@swarm/contract';
import type { Context } from 'hono';
import { REPORT_ACTIONS } from '@swarm/domain';
import { adminActor } from '../admin-audit.ts';
import { sendRefusal } from '../errors.ts';
import { createRouter, jsonContent } from '../router.ts';

// Moderation through the admin API (issue #15; docs/protocol.md "Admin API"), for the `swarm`
// CLI and scripts: the reports queue and its actions, suspension of a local user, the audit
// log. The same domain services as the admin pages; the actor in the audit log is the token
// (`token:<name>`, or `cli:<name>` from the CLI). Authentication: `requireAdmin()` (app.ts).

const ADMIN = '/api/swarm/admin';

const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: errorBodySchema } },
});
const errors = { 400: error('Invalid request'), 401: error('No valid admin token') };
const reason = z.string().trim().min(1).max(1000);

// The answers' shapes are the contract's (the CLI parses them); named here for OpenAPI.
const reportSchema = z.object(adminReportSchema.shape).openapi('AdminReport');
const auditEntrySchema = z.object(adminAuditEntrySchema.shape).openapi('AdminAuditEntry');

const routes = {
  listReports: createRoute({
    method: 'get',
    path: `${ADMIN}/reports`,
    summary: 'Admin: the reports queue (open ones oldest first; others newest first)',
    request: {
      query: z.object({
        status: z.enum(['open', 'resolved', 'dismissed', 'all']).default('open'),
        limit: z.coerce.number().int().min(1).max(200).default(100),
      }),
    },
    responses: {
      200: jsonContent(z.object({ reports: z.array(reportSchema) }), 'Reports'),
      ...errors,
    },
  }),
  actOnReport: createRoute({
    method: 'post',
    path: `${ADMIN}/reports/{id}/action`,
    summary: 'Admin: act on an open report (dismiss, delete the post, suspend, …) with a reason',
    request: {
      params: z.object({ id: z.string().max(100) }),
      body: {
        content: {
          'application/json': {
            schema: z.object({ action: z.enum(REPORT_ACTIONS), reason }).strict(),
          },
        },
        required: true,
      },
    },
    responses: {
      200: jsonContent(reportSchema, 'The report, resolved'),
      ...errors,
      404: error('No such report'),
    },
  }),
  suspension: createRoute({
    method: 'put',
    path: `${ADMIN}/users/{handle}/suspension`,
    summary: 'Admin: suspend or unsuspend a local user (reversible), with a reason',
    request: {
      params: z.object({ handle: z.string().min(1).max(64) }),
      body: {
        content: {
          'application/json': {
            schema: z.object({ suspended: z.boolean(), reason }).strict(),
          },
        },
        required: true,
      },
    },
    responses: {
      200: jsonContent(z.object({ handle: z.string(), suspended: z.boolean() }), 'Done'),
      ...errors,
      404: error('No such local user'),
    },
  }),
  audit: createRoute({
    method: 'get',
    path: `${ADMIN}/audit`,
    summary: 'Admin: the audit log, newest first (search by text or action; page with `before`)',
    request: {
      query: z.object({
        q: z.string().trim().max(200).optional(),
        action: z.string().trim().max(100).optional(),
        before: z.iso.datetime({ offset: true }).optional(),
        limit: z.coerce.number().int().min(1).max(200).default(50),
      }),
    },
    responses: {
      200: jsonContent(
        z.object({ entries: z.array(auditEntrySchema), nextBefore: z.string().nullable() }),
        'Entries',
      ),
      ...errors,
    },
  }),
};

/**
 * A refused moderation action as this API answers it (the routes declare no other statuses): a
 * missing report or user stays 404, any other refusal is a 400.
 */
function actionRefusal(c: Context, { code, message }: Refusal) {
  return code === 'NOT_FOUND'
    ? sendRefusal(c, { code, message })
    : sendRefusal(c, { code: 'INVALID_REQUEST', message });
}

export function moderationAdminRoutes() {
  const app = createRouter();

  app.openapi(routes.listReports, async (c) => {
    const { status, limit } = c.req.valid('query');
    const reports = await c.get('node').moderation.reports.queue({ status, limit });
    return c.json({ reports }, 200);
  });

  app.openapi(routes.actOnReport, async (c) => {
    const { action, reason } = c.req.valid('json');
    const acted = await c
      .get('node')
      .moderation.reports.act({ handle: adminActor(c) }, c.req.valid('param').id, action, reason);
    if (!acted.ok) return actionRefusal(c, acted.reason);
    return c.json(acted.value, 200);
  });

  app.openapi(routes.suspension, async (c) => {
    const { suspended, reason } = c.req.valid('json');
    const done = await c
      .get('node')
      .moderation.reports.setSuspended(
        { handle: adminActor(c) },
        c.req.valid('param').handle,
        suspended,
        reason,
      );
    if (!done.ok) return actionRefusal(c, done.reason);
    return c.json(done.value, 200);
  });

  app.openapi(routes.audit, async (c) => {
    const query = c.req.valid('query');
    return c.json(await c.get('node').moderation.audit.search(query), 200);
  });

  return app;
}
