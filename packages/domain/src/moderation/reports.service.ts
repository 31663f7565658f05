import { z } from 'zod';
import {
  REPORT_CATEGORIES,
  REPORT_COMMENT_MAX,
  SWARM_PATHS,
  err,
  forwardedReportResponseSchema,
  formatSwarmPostId,
  nodeInfoSchema,
  ok,
  parseHandleAddress,
  parsePeerSinglePost,
  parseSwarmPostId,
  type ForwardedReportBody,
  type ReportCategory,
  type Result,
} from '@swarm/contract';
import type { Db, Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { ActionOutcome } from '../actions/action-support.ts';
import { refuse } from '../refusal.ts';
import type { PostActions } from '../actions/post-actions.service.ts';
import { describePeerError, type PeerClient } from '../peers/index.ts';
import { parseMessageAddress } from '../messages/messages.service.ts';
import type { AuditService } from './audit.service.ts';
import { isUuid } from './registrations.service.ts';

/**
 * Reports and what the operator does about them (issue #15). People report a post or a person,
 * local or remote, with a category and a comment; a report about another node's content can be
 * forwarded to that node (node-signed `POST /api/swarm/reports`, capability `reports`) without
 * the reporter's identity. The admin queue shows the content in context and the reporter (to
 * moderators only); every action takes a reason and lands in the audit log.
 */

export const REPORT_ACTIONS = [
  'dismiss',
  'delete-post',
  'suspend-user',
  'silence-user',
  'mute-node',
  'block-node',
] as const;
export type ReportAction = (typeof REPORT_ACTIONS)[number];

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
  category: string;
  comment?: string;
  /** Send the report (without who filed it) to the node hosting the content. Default true. */
  forward?: boolean;
}

export interface FiledReport {
  id: string;
  forwardState: 'sent' | 'unsupported' | 'failed' | null;
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
  postNow: { content: string; createdAt: string; deleted: boolean; replyTo: string | null } | null;
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
  file(reporterId: string, input: ReportInput): Promise<ActionOutcome<FiledReport>>;
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
  ): Promise<ActionOutcome<ReportView>>;
  /** Suspension outside a report (admin users page, CLI). */
  setSuspended(
    actor: ModerationActor,
    handle: string,
    suspended: boolean,
    reason: string,
  ): Promise<ActionOutcome<{ handle: string; suspended: boolean }>>;
  setSilenced(
    actor: ModerationActor,
    handle: string,
    silenced: boolean,
    reason: string,
  ): Promise<ActionOutcome<{ handle: string; silenced: boolean }>>;
  muteNode(
    actor: ModerationActor,
    domain: string,
    muted: boolean,
    reason: string,
  ): Promise<ActionOutcome<{ domain: string; muted: boolean }>>;
  mutedNodes(): Promise<{ domain: string; reason: string; createdAt: string }[]>;
}

export interface ReportServiceDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  config: Pick<NodeConfig, 'domain'>;
  peers: Pick<PeerClient, 'getJson' | 'postJson'>;
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

export const REASON_MAX = 1000;

const reportSelect = {
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
  forwardState: true,
  resolution: true,
  resolutionReason: true,
  resolvedById: true,
  resolvedAt: true,
  createdAt: true,
} as const satisfies Prisma.ReportSelect;
type ReportRow = Prisma.ReportGetPayload<{ select: typeof reportSelect }>;

const EXCERPT_MAX = 2000;

export function createReportService(deps: ReportServiceDeps): ReportService {
  const { db, clock, logger, config, peers, audit } = deps;
  const { prisma } = db;
  const self = config.domain;

  function checkCategory(category: string, comment: string | undefined) {
    if (!REPORT_CATEGORIES.includes(category as ReportCategory)) {
      return refuse('INVALID_REQUEST', `The reason is one of: ${REPORT_CATEGORIES.join(', ')}.`);
    }
    if ((comment ?? '').length > REPORT_COMMENT_MAX) {
      return refuse(
        'INVALID_REQUEST',
        `The comment may have at most ${REPORT_COMMENT_MAX} characters.`,
      );
    }
    return null;
  }

  /** What is reported: the person, the post (ids, excerpt) and the node hosting it. */
  async function resolveTarget(input: ReportInput): Promise<
    ActionOutcome<{
      targetAddress: string;
      domain: string;
      handle: string;
      postId: string | null;
      postApId: string | null;
      excerpt: string | null;
    }>
  > {
    if (input.postId !== undefined && input.postId !== '') {
      const raw = input.postId.trim();
      if (isUuid(raw)) {
        const post = await prisma.post.findFirst({
          where: { id: raw, apId: null, authorId: { not: null } },
          select: { id: true, content: true, author: { select: { handle: true } } },
        });
        if (!post?.author) return refuse('NOT_FOUND', `There is no post ${raw}.`);
        return ok({
          targetAddress: `${post.author.handle}@${self}`,
          domain: self,
          handle: post.author.handle,
          postId: post.id,
          postApId: formatSwarmPostId({ domain: self, postId: post.id }),
          excerpt: post.content.slice(0, EXCERPT_MAX),
        });
      }
      const swarmId = parseSwarmPostId(raw);
      if (!swarmId.ok) return refuse('INVALID_REQUEST', `Not a post id: ${swarmId.reason}.`);
      const { domain, postId } = swarmId.value;
      if (domain === self) return resolveTarget({ ...input, postId });
      // The post as its node serves it: who wrote it, and what it said.
      const answer = await peers.getJson(domain, SWARM_PATHS.post(postId), z.unknown());
      if (!answer.ok && answer.error.kind === 'http' && answer.error.status === 404) {
        return refuse('NOT_FOUND', `${domain} has no post ${postId}.`);
      }
      if (!answer.ok) {
        return refuse(
          'PEER_UNAVAILABLE',
          `The post's node did not answer: ${describePeerError(answer.error)}.`,
        );
      }
      const post = parsePeerSinglePost(answer.value, domain);
      if (!post.ok) return refuse('NOT_FOUND', `${domain} has no post ${postId}.`);
      const authorHandle = post.value.author.handle.split('@')[0]!;
      return ok({
        targetAddress: `${authorHandle}@${domain}`,
        domain,
        handle: authorHandle,
        postId,
        postApId: formatSwarmPostId({ domain, postId }),
        excerpt: post.value.content.slice(0, EXCERPT_MAX),
      });
    }
    const address = parseMessageAddress(input.target ?? '', self);
    if (!address.ok) return refuse('INVALID_REQUEST', `Not a valid address: ${address.reason}.`);
    const parsed = parseHandleAddress(address.value);
    if (!parsed.ok) return refuse('INVALID_REQUEST', `Not a valid address: ${parsed.reason}.`);
    const { handle, domain } = parsed.value;
    if (domain === self) {
      const user = await prisma.user.findUnique({ where: { handle }, select: { id: true } });
      if (!user) return refuse('NOT_FOUND', `There is no user ${handle} on this node.`);
    }
    return ok({
      targetAddress: address.value,
      domain,
      handle,
      postId: null,
      postApId: null,
      excerpt: null,
    });
  }

  async function supportsReports(domain: string): Promise<boolean | null> {
    const known = await prisma.swarmNode.findUnique({
      where: { domain },
      select: { capabilities: true },
    });
    let listed: string[] = [];
    try {
      const value: unknown = JSON.parse(known?.capabilities ?? '[]');
      if (Array.isArray(value)) listed = value.filter((v): v is string => typeof v === 'string');
    } catch {
      listed = [];
    }
    if (listed.includes('reports')) return true;
    // The stored list may predate the capability: ask the node once.
    const info = await peers.getJson(domain, SWARM_PATHS.info, nodeInfoSchema);
    if (!info.ok) return null;
    return info.value.capabilities.includes('reports');
  }

  async function forward(
    reportId: string,
    target: { domain: string; handle: string; postId: string | null },
    category: string,
    comment: string,
  ): Promise<'sent' | 'unsupported' | 'failed'> {
    const supported = await supportsReports(target.domain);
    if (supported === false) return 'unsupported';
    const body: ForwardedReportBody = {
      report: {
        id: reportId,
        targetHandle: target.handle,
        ...(target.postId ? { postId: target.postId } : {}),
        category: category as ReportCategory,
        comment,
        reporterNodeDomain: self,
        timestamp: clock.now().toISOString(),
      },
    };
    const sent = await peers.postJson(
      target.domain,
      SWARM_PATHS.reports,
      body,
      forwardedReportResponseSchema,
    );
    if (sent.ok) return 'sent';
    logger.info(
      { domain: target.domain, error: describePeerError(sent.error) },
      'report forwarding failed',
    );
    return 'failed';
  }

  async function view(row: ReportRow): Promise<ReportView> {
    const parsed = parseHandleAddress(row.targetAddress);
    const targetDomain = parsed.ok ? parsed.value.domain : self;
    const targetIsLocal = targetDomain === self;
    const [target, post, resolver] = await Promise.all([
      targetIsLocal && parsed.ok
        ? prisma.user.findUnique({
            where: { handle: parsed.value.handle.toLowerCase() },
            select: { suspendedAt: true, silencedAt: true },
          })
        : null,
      targetIsLocal && row.postId && isUuid(row.postId)
        ? prisma.post.findUnique({
            where: { id: row.postId },
            select: {
              content: true,
              createdAt: true,
              deletedAt: true,
              replyTo: { select: { content: true } },
            },
          })
        : null,
      row.resolvedById
        ? prisma.user.findUnique({ where: { id: row.resolvedById }, select: { handle: true } })
        : null,
    ]);
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
      postNow: post
        ? {
            content: post.content,
            createdAt: post.createdAt.toISOString(),
            deleted: post.deletedAt !== null,
            replyTo: post.replyTo?.content.slice(0, 500) ?? null,
          }
        : null,
      targetDomain,
      forwardState: row.forwardState,
      resolution: row.resolution,
      resolutionReason: row.resolutionReason,
      resolvedBy: resolver?.handle ?? null,
      resolvedAt: row.resolvedAt?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
    };
  }

  async function loadView(id: string): Promise<ReportView | null> {
    if (!isUuid(id)) return null;
    const row = await prisma.report.findUnique({ where: { id }, select: reportSelect });
    return row ? view(row) : null;
  }

  function checkReason(reason: string): ActionOutcome<string> {
    const text = typeof reason === 'string' ? reason.trim() : '';
    if (text === '') return refuse('INVALID_REQUEST', 'Give a reason: it goes to the audit log.');
    if (text.length > REASON_MAX) {
      return refuse('INVALID_REQUEST', `The reason may have at most ${REASON_MAX} characters.`);
    }
    return ok(text);
  }

  async function localUser(handle: string) {
    const address = parseMessageAddress(handle, self);
    if (!address.ok) return null;
    const parsed = parseHandleAddress(address.value);
    if (!parsed.ok || parsed.value.domain !== self) return null;
    return prisma.user.findUnique({
      where: { handle: parsed.value.handle.toLowerCase() },
      select: { id: true, handle: true, isAdmin: true },
    });
  }

  async function setFlag(
    actor: ModerationActor,
    handle: string,
    flag: 'suspendedAt' | 'silencedAt',
    on: boolean,
    reasonText: string,
    tx?: Prisma.TransactionClient,
  ): Promise<ActionOutcome<string>> {
    const reason = checkReason(reasonText);
    if (!reason.ok) return reason;
    const user = await localUser(handle);
    if (!user) return refuse('NOT_FOUND', `There is no user ${handle} on this node.`);
    if (on && actor.userId && user.id === actor.userId) {
      return refuse('INVALID_REQUEST', 'You cannot do that to your own account.');
    }
    const work = async (t: Prisma.TransactionClient) => {
      await t.user.update({ where: { id: user.id }, data: { [flag]: on ? clock.now() : null } });
      // A suspended account is signed out everywhere.
      if (flag === 'suspendedAt' && on) await t.session.deleteMany({ where: { userId: user.id } });
      const action = flag === 'suspendedAt' ? 'user.suspend' : 'user.silence';
      await audit.record(
        {
          actor: actor.handle,
          action: on ? action : action.replace('.', '.un'),
          target: user.handle,
          reason: reason.value,
        },
        t,
      );
    };
    if (tx) await work(tx);
    else await prisma.$transaction(work);
    await deps.onChange?.();
    return ok(user.handle);
  }

  async function muteNode(
    actor: ModerationActor,
    domainInput: string,
    muted: boolean,
    reasonText: string,
  ) {
    const reason = checkReason(reasonText);
    if (!reason.ok) return reason;
    const parsed = parseHandleAddress(`x@${domainInput}`);
    if (!parsed.ok) return refuse('INVALID_REQUEST', `Not a node domain: ${domainInput}.`);
    const domain = parsed.value.domain;
    if (domain === self) return refuse('INVALID_REQUEST', 'This is this node’s own domain.');
    await prisma.$transaction(async (tx) => {
      if (muted) {
        await tx.nodeMute.upsert({
          where: { domain },
          create: { domain, reason: reason.value, createdAt: clock.now() },
          update: { reason: reason.value },
        });
      } else {
        await tx.nodeMute.deleteMany({ where: { domain } });
      }
      await audit.record(
        {
          actor: actor.handle,
          action: muted ? 'node.mute' : 'node.unmute',
          target: domain,
          reason: reason.value,
        },
        tx,
      );
    });
    await deps.onChange?.();
    return ok({ domain, muted });
  }

  return {
    async file(reporterId, input) {
      const bad = checkCategory(input.category, input.comment);
      if (bad) return bad;
      const reporter = await prisma.user.findUnique({
        where: { id: reporterId },
        select: { id: true, handle: true },
      });
      if (!reporter)
        return refuse('UNAUTHORIZED', 'Your account does not exist any more: sign in again.');
      const since = new Date(clock.now().getTime() - 3_600_000);
      const recent = await prisma.report.count({
        where: { reporterId, createdAt: { gte: since } },
      });
      if (recent >= REPORTS_PER_HOUR) {
        return refuse(
          'INVALID_REQUEST',
          `You can file at most ${REPORTS_PER_HOUR} reports an hour; try again later.`,
        );
      }
      const target = await resolveTarget(input);
      if (!target.ok) return target;
      if (target.value.targetAddress.toLowerCase() === `${reporter.handle}@${self}`) {
        return refuse('INVALID_REQUEST', 'You cannot report yourself.');
      }
      const comment = (input.comment ?? '').trim();
      const row = await prisma.report.create({
        data: {
          reporterId,
          targetAddress: target.value.targetAddress,
          postId: target.value.postId,
          postApId: target.value.postApId,
          postExcerpt: target.value.excerpt,
          category: input.category,
          comment,
          createdAt: clock.now(),
        },
        select: { id: true },
      });
      let forwardState: FiledReport['forwardState'] = null;
      if (target.value.domain !== self && input.forward !== false) {
        forwardState = await forward(row.id, target.value, input.category, comment);
        await prisma.report.update({ where: { id: row.id }, data: { forwardState } });
      }
      return ok({ id: row.id, forwardState });
    },

    async receive(sourceDomain, body) {
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
    },

    async queue(query = {}) {
      const status = (REPORT_STATUSES as readonly string[]).includes(query.status ?? '')
        ? query.status
        : query.status === 'all'
          ? undefined
          : 'open';
      const limit = Math.min(Math.max(Math.trunc(query.limit ?? 100) || 100, 1), 200);
      const rows = await prisma.report.findMany({
        where: status ? { status } : {},
        orderBy: [{ createdAt: status === 'open' ? 'asc' : 'desc' }, { id: 'asc' }],
        take: limit,
        select: reportSelect,
      });
      return Promise.all(rows.map(view));
    },

    get: loadView,

    openCount: () => prisma.report.count({ where: { status: 'open' } }),

    async act(actor, reportId, action, reasonText) {
      if (!REPORT_ACTIONS.includes(action as ReportAction)) {
        return refuse('INVALID_REQUEST', `The action is one of: ${REPORT_ACTIONS.join(', ')}.`);
      }
      const reason = checkReason(reasonText);
      if (!reason.ok) return reason;
      const report = await loadView(reportId);
      if (!report) return refuse('NOT_FOUND', 'No report with that id.');
      if (report.status !== 'open')
        return refuse('INVALID_REQUEST', `This report is ${report.status} already.`);
      const local = report.targetIsLocal;
      const handle = report.targetAddress.split('@')[0]!;
      switch (action as ReportAction) {
        case 'dismiss':
          break;
        case 'delete-post': {
          if (!local || !report.postId)
            return refuse('INVALID_REQUEST', 'Only a post on this node can be deleted here.');
          const author = await prisma.post.findUnique({
            where: { id: report.postId },
            select: { authorId: true, deletedAt: true },
          });
          if (author?.authorId && !author.deletedAt) {
            const deleted = await deps.posts.delete(author.authorId, report.postId);
            if (!deleted.ok) return deleted;
          }
          break;
        }
        case 'suspend-user':
        case 'silence-user': {
          if (!local)
            return refuse(
              'INVALID_REQUEST',
              'Only a user of this node can be suspended or silenced; mute or block their node instead.',
            );
          const flag = action === 'suspend-user' ? 'suspendedAt' : 'silencedAt';
          const done = await setFlag(actor, handle, flag, true, reason.value);
          if (!done.ok) return done;
          break;
        }
        case 'mute-node': {
          if (local)
            return refuse(
              'INVALID_REQUEST',
              'This is a user of this node: suspend or silence them instead.',
            );
          const done = await muteNode(actor, report.targetDomain, true, reason.value);
          if (!done.ok) return done;
          break;
        }
        case 'block-node': {
          if (local)
            return refuse('INVALID_REQUEST', 'This is a user of this node: suspend them instead.');
          const blocked = await deps.blockNode(
            report.targetDomain,
            reason.value,
            actor.userId ?? undefined,
          );
          if (!blocked.ok) return refuse('INVALID_REQUEST', blocked.reason);
          await audit.record({
            actor: actor.handle,
            action: 'node.block',
            target: report.targetDomain,
            reason: reason.value,
          });
          break;
        }
      }
      const status: ReportStatus = action === 'dismiss' ? 'dismissed' : 'resolved';
      await prisma.$transaction(async (tx) => {
        const { count } = await tx.report.updateMany({
          where: { id: report.id, status: 'open' },
          data: {
            status,
            resolution: action,
            resolutionReason: reason.value,
            resolvedById: actor.userId ?? null,
            resolvedAt: clock.now(),
          },
        });
        if (count === 1) {
          await audit.record(
            {
              actor: actor.handle,
              action: `report.${action}`,
              target: `${report.targetAddress}${report.postId ? ` post ${report.postId}` : ''}`,
              reason: reason.value,
              details: { reportId: report.id, category: report.category },
            },
            tx,
          );
        }
      });
      await deps.onChange?.();
      return ok((await loadView(report.id))!);
    },

    async setSuspended(actor, handle, suspended, reason) {
      const done = await setFlag(actor, handle, 'suspendedAt', suspended, reason);
      return done.ok ? ok({ handle: done.value, suspended }) : done;
    },

    async setSilenced(actor, handle, silenced, reason) {
      const done = await setFlag(actor, handle, 'silencedAt', silenced, reason);
      return done.ok ? ok({ handle: done.value, silenced }) : done;
    },

    muteNode,

    async mutedNodes() {
      const rows = await prisma.nodeMute.findMany({ orderBy: { createdAt: 'desc' }, take: 1000 });
      return rows.map((r) => ({
        domain: r.domain,
        reason: r.reason,
        createdAt: r.createdAt.toISOString(),
      }));
    },
  };
}
