import { createReportFiling } from './report-filing.ts';
import { createReportInbound } from './report-inbound.ts';
import { createReportModeration } from './report-queue.ts';
import type { ReportService, ReportServiceDeps } from './report-model.ts';

/**
 * Reports and what the operator does about them (issue #15). People report a post or a person,
 * local or remote, with a category and a comment; a report about another node's content is
 * forwarded to that node through the outbox (report-filing.ts), without the reporter's identity;
 * reports forwarded to us land in the same queue (report-inbound.ts). The admin queue shows the
 * content in context and the reporter (to moderators only); every action takes a reason and
 * lands in the audit log (report-queue.ts).
 */

export * from './report-model.ts';
export { REASON_MAX } from './report-views.ts';

export function createReportService(deps: ReportServiceDeps): ReportService {
  return {
    ...createReportModeration(deps),
    ...createReportFiling(deps),
    ...createReportInbound(deps),
  };
}
