import { Hono } from 'hono';
import { REPORT_POSTS_MAX, addressOf } from '@swarm/domain';
import { requireToken, type BearerEnv } from '../bearer.ts';
import { apiError, refusalAnswer } from '../errors.ts';
import { parseApiId } from '../ids.ts';
import { listParam, textParam } from '../list-paging.ts';
import { readParams } from '../params.ts';
import { accountJson, notFound } from '../route-kit.ts';
import { viewerOf } from '../viewer.ts';

/**
 * `POST /api/v1/reports` through the domain's reporting (moderation `reports.file`): the account
 * (`account_id`), optionally some of its posts (`status_ids[]`, at most REPORT_POSTS_MAX, each
 * one the reporter may read; any other is 404, as Mastodon's lookup among the account's
 * statuses answers), the comment, and `forward` (default true here as in our pages: the
 * content's node hears of it without the reporter's identity). Mastodon's categories map to
 * ours: `spam` → spam, `legal` → illegal, `violation` → abuse, `other` → other.
 */
const CATEGORY: Record<string, string> = {
  spam: 'spam',
  legal: 'illegal',
  violation: 'abuse',
  other: 'other',
};

export function reportRoutes() {
  const app = new Hono<BearerEnv>();
  app.post('/api/v1/reports', requireToken(['write:reports'], { user: true }), async (c) => {
    const { deps } = c.var;
    const { node } = deps;
    const read = await readParams(c.req.raw);
    if (!read.ok) return apiError(c, 400, read.reason);
    const params = read.value;
    const accountId = textParam(params, 'account_id');
    if (!accountId) return apiError(c, 422, "Validation failed: account_id can't be blank");
    const account = await node.appAccounts.byId(accountId);
    if (!account) return notFound(c);
    const reportedIds = [...new Set(listParam(params, 'status_ids') ?? [])];
    if (reportedIds.length > REPORT_POSTS_MAX) {
      return apiError(
        c,
        422,
        `Validation failed: a report may name at most ${REPORT_POSTS_MAX} statuses`,
      );
    }
    const viewer = await viewerOf(c);
    const rowIds: string[] = [];
    for (const statusId of reportedIds) {
      const apiId = parseApiId(statusId);
      const rowId = apiId && viewer ? await node.clientReads.readableRow(viewer, apiId) : null;
      if (!rowId) return notFound(c);
      rowIds.push(rowId);
    }
    const rows = await node.db.prisma.post.findMany({
      where: { id: { in: rowIds } },
      select: { id: true, apId: true, authorId: true, remoteAuthorId: true },
    });
    const byRow = new Map(rows.map((row) => [row.id, row]));
    const postIds: string[] = [];
    for (const rowId of rowIds) {
      const post = byRow.get(rowId);
      if (!post || (post.authorId ?? post.remoteAuthorId) !== account.id) return notFound(c);
      postIds.push(post.apId ?? post.id);
    }
    const category = CATEGORY[textParam(params, 'category') ?? 'other'] ?? 'other';
    const forward =
      params.forward === undefined
        ? true
        : !['false', '0', false].includes(params.forward as string);
    const comment = typeof params.comment === 'string' ? params.comment : '';
    const filed = await node.moderation.reports.file(c.var.grant.userId!, {
      ...(postIds.length > 0 ? { postIds } : { target: addressOf(account) }),
      category,
      comment,
      forward,
    });
    if (!filed.ok) return refusalAnswer(c, filed.reason);
    return c.json({
      id: filed.value.id,
      action_taken: false,
      action_taken_at: null,
      category: textParam(params, 'category') ?? 'other',
      comment,
      forwarded: filed.value.forwardState !== null,
      created_at: node.clock.now().toISOString(),
      status_ids: reportedIds,
      rule_ids: null,
      target_account: accountJson(deps, account),
    });
  });
  return app;
}
