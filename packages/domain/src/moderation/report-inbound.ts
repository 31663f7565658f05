import { err, formatSwarmPostId, ok, type ForwardedReportBody } from '@swarm/contract';
import { isUuid } from './registrations.service.ts';
import { EXCERPT_MAX } from './report-views.ts';
import {
  OPEN_FORWARDED_PER_NODE,
  type ReportService,
  type ReportServiceDeps,
} from './report-model.ts';

/**
 * Reports forwarded by other nodes (`POST /api/swarm/reports`, node signature verified at the
 * edge): about our users and their posts only, idempotent by (source node, its report id), at
 * most OPEN_FORWARDED_PER_NODE open ones per node.
 */
export function createReportInbound(deps: Pick<ReportServiceDeps, 'db' | 'clock' | 'config'>) {
  const { prisma } = deps.db;
  const { clock } = deps;
  const self = deps.config.domain;

  async function receive(
    sourceDomain: string,
    body: ForwardedReportBody,
  ): ReturnType<ReportService['receive']> {
    const { report } = body;
    if (report.reporterNodeDomain !== sourceDomain) {
      return err({
        code: 'FORBIDDEN',
        message: `${sourceDomain} may only forward reports of its own users, not of ${report.reporterNodeDomain}.`,
      });
    }
    const existing = await prisma.report.findUnique({
      where: { sourceDomain_remoteReportId: { sourceDomain, remoteReportId: report.id } },
      select: { id: true },
    });
    if (existing) return ok({ reportId: existing.id });
    const user = await prisma.user.findUnique({
      where: { handle: report.targetHandle.toLowerCase() },
      select: { id: true, handle: true },
    });
    if (!user)
      return err({
        code: 'USER_NOT_FOUND',
        message: `No user ${report.targetHandle} on this node.`,
      });
    // Every post named (`postIds` when the sender reports several), each one of the user's.
    const ids = [
      ...new Set(report.postIds ?? (report.postId !== undefined ? [report.postId] : [])),
    ];
    const found = await prisma.post.findMany({
      where: { id: { in: ids.filter(isUuid) }, authorId: user.id, apId: null },
      select: { id: true, content: true },
    });
    const excerpts = new Map(found.map((p) => [p.id, p.content.slice(0, EXCERPT_MAX)]));
    const missing = ids.find((id) => !excerpts.has(id));
    if (missing !== undefined)
      return err({
        code: 'POST_NOT_FOUND',
        message: `No post ${missing} by ${user.handle} on this node.`,
      });
    const posts = ids.map((id) => ({
      postId: id,
      postApId: formatSwarmPostId({ domain: self, postId: id }),
      postExcerpt: excerpts.get(id)!,
    }));
    const [first, ...more] = posts;
    const open = await prisma.report.count({ where: { sourceDomain, status: 'open' } });
    if (open >= OPEN_FORWARDED_PER_NODE) {
      return err({
        code: 'RATE_LIMITED',
        message: `${sourceDomain} has ${OPEN_FORWARDED_PER_NODE} open reports here already; wait for moderators.`,
      });
    }
    // The report and its further posts in one transaction; a concurrent repeat makes no row.
    const createdId = await prisma.$transaction(async (tx) => {
      const created = await tx.report.createManyAndReturn({
        data: [
          {
            sourceDomain,
            remoteReportId: report.id,
            targetAddress: `${user.handle}@${self}`,
            postId: first?.postId ?? null,
            postApId: first?.postApId ?? null,
            postExcerpt: first?.postExcerpt ?? null,
            category: report.category,
            comment: report.comment.trim(),
            createdAt: clock.now(),
          },
        ],
        skipDuplicates: true,
        select: { id: true },
      });
      const id = created[0]?.id;
      if (id && more.length > 0) {
        await tx.reportPost.createMany({
          data: more.map((post, i) => ({ reportId: id, position: i + 1, ...post })),
        });
      }
      return id;
    });
    if (createdId) return ok({ reportId: createdId });
    const winner = await prisma.report.findUniqueOrThrow({
      where: { sourceDomain_remoteReportId: { sourceDomain, remoteReportId: report.id } },
      select: { id: true },
    });
    return ok({ reportId: winner.id });
  }

  return { receive };
}
