import { ok, parseHandleAddress, type Result } from '@swarm/contract';
import type { Prisma } from '@swarm/db';
import { refuse, type Refusal } from '../refusal.ts';
import { parsePersonAddress } from '../views/addresses.ts';
import { isUuid } from './registrations.service.ts';
import { checkReason, createReportViews, reportSelect } from './report-views.ts';
import {
  REPORT_ACTIONS,
  REPORT_STATUSES,
  type ModerationActor,
  type ReportAction,
  type ReportService,
  type ReportServiceDeps,
  type ReportStatus,
} from './report-model.ts';

/**
 * The moderators' side: the queue, the actions on a report, and the same actions outside a
 * report (suspend, silence, mute a node). Each takes a reason and writes the audit log in the
 * transaction of its change.
 */
export type ReportModeration = Omit<ReportService, 'file' | 'receive'>;

export function createReportModeration(
  deps: Pick<
    ReportServiceDeps,
    'db' | 'clock' | 'config' | 'audit' | 'posts' | 'blockNode' | 'onChange'
  >,
): ReportModeration {
  const { db, clock, config, audit } = deps;
  const { prisma } = db;
  const self = config.domain;
  const views = createReportViews(db, self);
  const loadView = views.load;

  async function localUser(handle: string) {
    const address = parsePersonAddress(handle, self);
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
  ): Promise<Result<string, Refusal>> {
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
      return Promise.all(rows.map(views.view));
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
          // Every post the report names (an app's report may name several).
          const rows = await prisma.post.findMany({
            where: { id: { in: report.posts.map((p) => p.postId).filter(isUuid) } },
            select: { id: true, authorId: true, deletedAt: true },
          });
          for (const row of rows) {
            if (!row.authorId || row.deletedAt) continue;
            const deleted = await deps.posts.delete(row.authorId, row.id);
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
              target: `${report.targetAddress}${report.postId ? ` post ${report.posts.map((p) => p.postId).join(', ')}` : ''}`,
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
