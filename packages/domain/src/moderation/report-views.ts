import { ok, parseHandleAddress, type Result } from '@swarm/contract';
import type { Db, Prisma } from '@swarm/db';
import { refuse, type Refusal } from '../refusal.ts';
import { isUuid } from './registrations.service.ts';
import {
  REPORT_STATUSES,
  type ReportedPostNow,
  type ReportStatus,
  type ReportView,
} from './report-model.ts';

/** What the queue, the actions and filing share: a report row as moderators see it. */

export const REASON_MAX = 1000;
/** The post's text kept with a report (the post may change or go). */
export const EXCERPT_MAX = 2000;

export const reportSelect = {
  id: true,
  status: true,
  category: true,
  comment: true,
  reporter: { select: { handle: true } },
  sourceDomain: true,
  targetAddress: true,
  postId: true,
  postApId: true,
  postExcerpt: true,
  morePosts: {
    select: { postId: true, postApId: true, postExcerpt: true },
    orderBy: { position: 'asc' },
  },
  forwardState: true,
  resolution: true,
  resolutionReason: true,
  resolvedById: true,
  resolvedAt: true,
  createdAt: true,
} as const satisfies Prisma.ReportSelect;
type ReportRow = Prisma.ReportGetPayload<{ select: typeof reportSelect }>;

/** A moderator's reason: required (it goes to the audit log), bounded. */
export function checkReason(reason: string): Result<string, Refusal> {
  const text = typeof reason === 'string' ? reason.trim() : '';
  if (text === '') return refuse('INVALID_REQUEST', 'Give a reason: it goes to the audit log.');
  if (text.length > REASON_MAX) {
    return refuse('INVALID_REQUEST', `The reason may have at most ${REASON_MAX} characters.`);
  }
  return ok(text);
}

export function createReportViews(db: Db, self: string) {
  const { prisma } = db;

  async function view(row: ReportRow): Promise<ReportView> {
    const parsed = parseHandleAddress(row.targetAddress);
    const targetDomain = parsed.ok ? parsed.value.domain : self;
    const targetIsLocal = targetDomain === self;
    const named = [
      ...(row.postId
        ? [{ postId: row.postId, postApId: row.postApId, postExcerpt: row.postExcerpt }]
        : []),
      ...row.morePosts,
    ];
    const localIds = targetIsLocal ? named.map((p) => p.postId).filter(isUuid) : [];
    const [target, rows, resolver] = await Promise.all([
      targetIsLocal && parsed.ok
        ? prisma.user.findUnique({
            where: { handle: parsed.value.handle.toLowerCase() },
            select: { suspendedAt: true, silencedAt: true },
          })
        : null,
      localIds.length > 0
        ? prisma.post.findMany({
            where: { id: { in: localIds } },
            select: {
              id: true,
              content: true,
              createdAt: true,
              deletedAt: true,
              replyTo: { select: { content: true } },
            },
          })
        : [],
      row.resolvedById
        ? prisma.user.findUnique({ where: { id: row.resolvedById }, select: { handle: true } })
        : null,
    ]);
    const now = new Map(
      rows.map((post): [string, ReportedPostNow] => [
        post.id,
        {
          content: post.content,
          createdAt: post.createdAt.toISOString(),
          deleted: post.deletedAt !== null,
          replyTo: post.replyTo?.content.slice(0, 500) ?? null,
        },
      ]),
    );
    const posts = named.map((p) => ({ ...p, postNow: now.get(p.postId) ?? null }));
    return {
      id: row.id,
      status: (REPORT_STATUSES as readonly string[]).includes(row.status)
        ? (row.status as ReportStatus)
        : 'open',
      category: row.category,
      comment: row.comment,
      reporter: row.reporter
        ? row.reporter.handle
        : row.sourceDomain
          ? `a user of ${row.sourceDomain}`
          : '(deleted account)',
      sourceDomain: row.sourceDomain,
      targetAddress: row.targetAddress,
      targetIsLocal,
      targetState: target
        ? { suspended: target.suspendedAt !== null, silenced: target.silencedAt !== null }
        : null,
      postId: row.postId,
      postApId: row.postApId,
      postExcerpt: row.postExcerpt,
      postNow: posts[0]?.postNow ?? null,
      posts,
      targetDomain,
      forwardState: row.forwardState,
      resolution: row.resolution,
      resolutionReason: row.resolutionReason,
      resolvedBy: resolver?.handle ?? null,
      resolvedAt: row.resolvedAt?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
    };
  }

  async function load(id: string): Promise<ReportView | null> {
    if (!isUuid(id)) return null;
    const row = await prisma.report.findUnique({ where: { id }, select: reportSelect });
    return row ? view(row) : null;
  }

  return { view, load };
}
