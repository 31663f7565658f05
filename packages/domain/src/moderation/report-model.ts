import type { ForwardedReportBody, Result } from '@swarm/contract';
import type { PostActions } from '../actions/post-actions.service.ts';
import type { DeliveryService } from '../delivery/delivery.service.ts';
import type { AuditService } from '../ops/audit.service.ts';
import type { PeerServiceDeps } from '../peers/service-deps.ts';
import type { Refusal } from '../refusal.ts';

/** The reports' vocabulary and the service's shape (reports.service.ts puts it together). */

export { REPORT_ACTIONS, REPORT_POSTS_MAX, type ReportAction } from '@swarm/contract';

export const REPORT_STATUSES = ['open', 'resolved', 'dismissed'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/** Reports one person may file per hour (a report costs a moderator's time). */
export const REPORTS_PER_HOUR = 20;
/** Open forwarded reports one node may have here at a time (a peer-growable list). */
export const OPEN_FORWARDED_PER_NODE = 100;

export interface ReportInput {
  /** `alice`, `bob@beta.example` (a person); the post's author when `postId` is given. */
  target?: string;
  /** A local post's id, or `swarm:{domain}:{postId}` for a post of another node. */
  postId?: string;
  /**
   * Several posts of one person, each as `postId` (an app's report names up to
   * REPORT_POSTS_MAX); when given, `postId` is not read.
   */
  postIds?: readonly string[];
  category: string;
  comment?: string;
  /** Send the report (without who filed it) to the node hosting the content. Default true. */
  forward?: boolean;
}

/**
 * Forwarding to the content's node: `pending` (queued in the outbox, retried while the node is
 * down), `sent`, `unsupported` (the node has no `reports` capability), `failed` (refused, or
 * gave up after the outbox's 48 h).
 */
export type ForwardState = 'pending' | 'sent' | 'unsupported' | 'failed';

export interface FiledReport {
  id: string;
  forwardState: ForwardState | null;
}

/** A reported local post as it is now (null when gone). */
export interface ReportedPostNow {
  content: string;
  createdAt: string;
  deleted: boolean;
  replyTo: string | null;
}

export interface ReportedPost {
  postId: string;
  postApId: string | null;
  postExcerpt: string | null;
  postNow: ReportedPostNow | null;
}

export interface ReportView {
  id: string;
  status: ReportStatus;
  category: string;
  comment: string;
  /** Moderators only: the local reporter's handle, or `a user of <node>` for forwarded ones. */
  reporter: string;
  sourceDomain: string | null;
  targetAddress: string;
  targetIsLocal: boolean;
  /** The target's account state when local. */
  targetState: { suspended: boolean; silenced: boolean } | null;
  postId: string | null;
  postApId: string | null;
  /** The post as reported, and as it is now (local posts; null when gone). */
  postExcerpt: string | null;
  postNow: ReportedPostNow | null;
  /** Every post the report names, the first (`postId`) included, in the reporter's order. */
  posts: ReportedPost[];
  /** The target node's domain, and whether the operator muted or blocked it. */
  targetDomain: string;
  forwardState: string | null;
  resolution: string | null;
  resolutionReason: string | null;
  resolvedBy: string | null;
  resolvedAt: string | null;
  createdAt: string;
}

export interface ModerationActor {
  handle: string;
  userId?: string | null;
}

export interface ReportService {
  file(reporterId: string, input: ReportInput): Promise<Result<FiledReport, Refusal>>;
  /** `POST /api/swarm/reports` from `sourceDomain` (verified node signature). */
  receive(
    sourceDomain: string,
    body: ForwardedReportBody,
  ): Promise<
    Result<
      { reportId: string },
      { code: 'USER_NOT_FOUND' | 'POST_NOT_FOUND' | 'RATE_LIMITED' | 'FORBIDDEN'; message: string }
    >
  >;
  queue(query?: { status?: string; limit?: number }): Promise<ReportView[]>;
  get(id: string): Promise<ReportView | null>;
  openCount(): Promise<number>;
  act(
    actor: ModerationActor,
    reportId: string,
    action: string,
    reason: string,
  ): Promise<Result<ReportView, Refusal>>;
  /** Suspension outside a report (admin users page, CLI). */
  setSuspended(
    actor: ModerationActor,
    handle: string,
    suspended: boolean,
    reason: string,
  ): Promise<Result<{ handle: string; suspended: boolean }, Refusal>>;
  setSilenced(
    actor: ModerationActor,
    handle: string,
    silenced: boolean,
    reason: string,
  ): Promise<Result<{ handle: string; silenced: boolean }, Refusal>>;
  muteNode(
    actor: ModerationActor,
    domain: string,
    muted: boolean,
    reason: string,
  ): Promise<Result<{ domain: string; muted: boolean }, Refusal>>;
  mutedNodes(): Promise<{ domain: string; reason: string; createdAt: string }[]>;
}

export interface ReportServiceDeps extends Omit<PeerServiceDeps, 'logger'> {
  /** Forwarded reports go through the durable outbox (retried while the node is down). */
  delivery: Pick<DeliveryService, 'enqueue' | 'attempt'>;
  audit: AuditService;
  posts: Pick<PostActions, 'delete'>;
  /** The registry's node block (the admin area's), for `block-node`. */
  blockNode: (
    domain: string,
    reason: string,
    createdById?: string,
  ) => Promise<Result<unknown, string>>;
  /** Told after a change of what is shown (the gateways' read caches drop their answers). */
  onChange?: () => Promise<void>;
}
