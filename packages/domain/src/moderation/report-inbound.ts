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
    let excerpt: string | null = null;
    if (report.postId !== undefined) {
      const post = isUuid(report.postId)
        ? await prisma.post.findFirst({
            where: { id: report.postId, authorId: user.id, apId: null },
            select: { content: true },
          })
        : null;
      if (!post)
        return err({
          code: 'POST_NOT_FOUND',
          message: `No post ${report.postId} by ${user.handle} on this node.`,
        });
      excerpt = post.content.slice(0, EXCERPT_MAX);
    }
    const open = await prisma.report.count({ where: { sourceDomain, status: 'open' } });
    if (open >= OPEN_FORWARDED_PER_NODE) {
      return err({
        code: 'RATE_LIMITED',
        message: `${sourceDomain} has ${OPEN_FORWARDED_PER_NODE} open reports here already; wait for moderators.`,
      });
    }
    const created = await prisma.report.createManyAndReturn({
      data: [
        {
          sourceDomain,
          remoteReportId: report.id,
          targetAddress: `${user.handle}@${self}`,
          postId: report.postId ?? null,
          postApId: report.postId
            ? formatSwarmPostId({ domain: self, postId: report.postId })
            : null,
          postExcerpt: excerpt,
          category: report.category,
          comment: report.comment.trim(),
          createdAt: clock.now(),
        },
      ],
      skipDuplicates: true,
      select: { id: true },
    });
    if (created[0]) return ok({ reportId: created[0].id });
    const winner = await prisma.report.findUniqueOrThrow({
      where: { sourceDomain_remoteReportId: { sourceDomain, remoteReportId: report.id } },
      select: { id: true },
    });
    return ok({ reportId: winner.id });
  }

  return { receive };
}
