import { Hono } from 'hono';
import { addressOf } from '@swarm/domain';
import { requireToken, type BearerEnv } from '../bearer.ts';
import { apiError, refusalAnswer } from '../errors.ts';
import { parseApiId } from '../ids.ts';
import { listParam, textParam } from '../list-paging.ts';
import { readParams } from '../params.ts';
import { accountJson, notFound } from '../route-kit.ts';

/**
 * `POST /api/v1/reports` through the domain's reporting (moderation `reports.file`): the account
 * (`account_id`), optionally one of its posts (`status_ids[]`: the domain's report is about one
 * post, so the first id is the post reported and the answer names it alone), the comment, and `forward` (default true here as in our pages: the
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
    const statusIds = listParam(params, 'status_ids') ?? [];
    let postId: string | undefined;
    let reportedIds: string[] = [];
    const first = statusIds[0];
    if (first !== undefined) {
      const apiId = parseApiId(first);
      const post = apiId
        ? await node.db.prisma.post.findUnique({
            where: { apiId },
            select: { id: true, apId: true, authorId: true, remoteAuthorId: true, deletedAt: true },
          })
        : null;
      if (!post || post.deletedAt || (post.authorId ?? post.remoteAuthorId) !== account.id) {
        return apiError(c, 422, 'Validation failed: status_ids names no post of this account');
      }
      postId = post.apId ?? post.id;
      reportedIds = [first];
    }
    const category = CATEGORY[textParam(params, 'category') ?? 'other'] ?? 'other';
    const forward =
      params.forward === undefined
        ? true
        : !['false', '0', false].includes(params.forward as string);
    const comment = typeof params.comment === 'string' ? params.comment : '';
    const filed = await node.moderation.reports.file(c.var.grant.userId!, {
      ...(postId ? { postId } : { target: addressOf(account) }),
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
