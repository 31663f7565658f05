// Slightly over 500 lines on purpose: the durable outbox (enqueue, attempt, retry, give up) is
// one state machine over one table; its raw statements are in persistence/delivery.sql.ts.

import { randomUUID } from 'node:crypto';
import type { Refusal } from '../refusal.ts';
import type { z } from 'zod';
import {
  SWARM_PATHS,
  err,
  forwardedReportResponseSchema,
  interactionResponseSchema,
  messageResponseSchema,
  ok,
  receiptResponseSchema,
  replyResponseSchema,
  uuidSchema,
  type Result,
  type UserAction,
} from '@swarm/contract';
import type { Db, Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { NodeMetrics } from '../ops/index.ts';
import type { PeerClient } from '../peers/index.ts';
import type { RegistryService } from '../registry/index.ts';
import { removeFollow, type Tx } from '../interactions/interaction-effects.ts';
import { claimDeliverySql, claimDueDeliveriesSql } from '../persistence/delivery.sql.ts';
import type { DeliveryView } from '../views/index.ts';
import {
  GIVE_UP_AFTER_MS,
  GIVE_UP_REASON,
  HELD_SUSPENDED,
  RETRY_CAP_MS,
  failureText,
  judgeFailure,
  messageFailureReason,
  retryDelayMs,
  toDeliveryView,
} from './delivery-policy.ts';

/**
 * The durable outbox (docs/protocol.md). Every delivery to another node is a row written in
 * the same transaction as the user's local effect (`enqueue`), then sent at once after the
 * commit (`attempt`), so the user hears the peer's answer; what may succeed later is retried by
 * the worker (`processDue`). A row is sent only by whoever holds its claim: an atomic UPDATE
 * sets `lockedBy`/`lockedUntil` on rows that are due and unclaimed (`FOR UPDATE SKIP LOCKED` on
 * Postgres, so replicas never take the same row), and a claimer that dies loses its rows when
 * the lease runs out.
 */

/**
 * What the outbox carries: interactions, replies, direct messages and their receipts, account
 * deletions and moves, and forwarded moderation reports (node-signed only).
 */
export type DeliveryKind = Exclude<UserAction, 'encryption-key' | 'export' | 'import'> | 'report';

export interface DeliveryRequest {
  targetDomain: string;
  kind: DeliveryKind;
  /** The exact body to send (user-signed already where that applies). */
  body: Record<string, unknown>;
  interactionId?: string | null;
  /** The local user whose action this is (null for the node's own deliveries). */
  createdById?: string | null;
}

export interface DeliveryListQuery {
  status?: DeliveryView['status'];
  /** Default 50, at most 200. */
  limit?: number;
  createdById?: string;
}

export interface DeliveryCounts {
  pending: number;
  failed: number;
  delivered: number;
}

/** Why a delivery could not be retried now. */
export type DeliveryError = Refusal<'NOT_FOUND' | 'DELIVERY_CONFLICT'>;

/** What one worker step did. */
export interface DeliveryBatchReport {
  claimed: number;
  delivered: number;
  retrying: number;
  failed: number;
}

export interface DeliveryService {
  /** Writes a pending row inside the caller's transaction; send it after the commit (`attempt`). */
  enqueue(tx: Tx, request: DeliveryRequest): Promise<string>;
  /** Sends these rows now (unless someone else is sending them); their views, in order. */
  attempt(ids: readonly string[]): Promise<DeliveryView[]>;
  /** Newest first. */
  list(query?: DeliveryListQuery): Promise<DeliveryView[]>;
  /** One delivery; with `createdById`, only when that user made it. */
  get(id: string, options?: { createdById?: string }): Promise<DeliveryView | null>;
  /** The delivery of a user's action, by its interaction id (the newest when several). */
  findByInteraction(interactionId: string): Promise<DeliveryView | null>;
  /** A pending or failed delivery, attempted now. */
  retryNow(id: string): Promise<Result<DeliveryView, DeliveryError>>;
  counts(): Promise<DeliveryCounts>;
  /**
   * Undo before it was delivered: cancels the pending, unclaimed delivery of an interaction,
   * inside the caller's transaction. `unsent`: it never left this node, so the peer needs no
   * undo; `attempted`: an earlier attempt may have arrived (a timeout), so send the undo too;
   * `none`: nothing was pending.
   */
  cancelPending(tx: Tx, interactionId: string): Promise<'none' | 'unsent' | 'attempted'>;
  /** Claims up to `limit` due rows and sends them: one step of the worker. */
  processDue(options?: { limit?: number; owner?: string }): Promise<DeliveryBatchReport>;
}

export interface DeliveryServiceDeps {
  db: Db;
  peers: Pick<PeerClient, 'postJson'>;
  clock: Clock;
  logger: Logger;
  registry?: Pick<RegistryService, 'isBlocked'>;
  /** [0, 1) for the retry jitter; injectable for tests. */
  random?: () => number;
  /** Counts attempts by result (`swarm_deliveries_total`). */
  metrics?: Pick<NodeMetrics, 'observeDelivery'>;
}

/** How long a claim holds: far above one exchange (5 s timeout), short enough to recover soon. */
export const DELIVERY_LEASE_MS = 2 * 60_000;
export const DELIVERY_BATCH = 20;
const LIST_DEFAULT = 50;
const LIST_MAX = 200;

const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 } as const;

const viewSelect = {
  id: true,
  kind: true,
  targetDomain: true,
  status: true,
  attempts: true,
  nextAttemptAt: true,
  lastError: true,
  lastStatus: true,
  interactionId: true,
  createdAt: true,
  deliveredAt: true,
} as const satisfies Prisma.OutboxDeliverySelect;

export function pathOfDelivery(kind: DeliveryKind): string {
  switch (kind) {
    case 'reply':
      return SWARM_PATHS.replies;
    case 'message':
      return SWARM_PATHS.messages;
    case 'receipt':
      return SWARM_PATHS.messageReceipts;
    case 'delete-post':
    case 'delete-account':
      return SWARM_PATHS.deletions;
    case 'move':
      return SWARM_PATHS.moves;
    case 'report':
      return SWARM_PATHS.reports;
    default:
      return SWARM_PATHS.interaction(kind);
  }
}

function answerSchemaOf(kind: string): z.ZodType {
  switch (kind) {
    case 'reply':
      return replyResponseSchema;
    case 'message':
      return messageResponseSchema;
    case 'receipt':
      return receiptResponseSchema;
    case 'report':
      return forwardedReportResponseSchema;
    default:
      return interactionResponseSchema;
  }
}

export function createDeliveryService(deps: DeliveryServiceDeps): DeliveryService {
  const { db, peers, clock, logger } = deps;
  const prisma = db.prisma;
  const random = deps.random ?? Math.random;

  const view = (row: Prisma.OutboxDeliveryGetPayload<{ select: typeof viewSelect }>) =>
    toDeliveryView(row, clock.now());

  async function loadView(id: string): Promise<DeliveryView | null> {
    const row = await prisma.outboxDelivery.findUnique({ where: { id }, select: viewSelect });
    return row ? view(row) : null;
  }

  /**
   * The claim: one UPDATE over due, unclaimed rows. The inner SELECT locks what it takes and
   * skips rows another transaction holds; the outer conditions are checked again on the locked
   * row version, so two claimers never both win a row.
   */
  async function claimDue(limit: number, owner: string): Promise<string[]> {
    const now = clock.now();
    const until = new Date(now.getTime() + DELIVERY_LEASE_MS);
    const rows = await prisma.$queryRaw<{ id: string }[]>(
      claimDueDeliveriesSql(now, until, owner, limit),
    );
    return rows.map((r) => r.id);
  }

  /** Claims one row for an immediate attempt; `revive` also takes a failed row back. */
  async function claimOne(id: string, owner: string, revive: boolean): Promise<boolean> {
    const now = clock.now();
    const until = new Date(now.getTime() + DELIVERY_LEASE_MS);
    const count = await prisma.$executeRaw(claimDeliverySql(id, now, until, owner, revive));
    return count === 1;
  }

  type Outcome =
    | { status: 'delivered'; httpStatus: number }
    | { status: 'pending'; httpStatus: number | null; error: string; nextAttemptAt: Date }
    | { status: 'failed'; httpStatus: number | null; error: string };

  /** Sends one claimed row and records the outcome (only while the claim is still ours). */
  async function send(id: string, owner: string): Promise<DeliveryView | null> {
    const row = await prisma.outboxDelivery.findUnique({
      where: { id },
      include: { createdBy: { select: { suspendedAt: true } } },
    });
    if (!row) return null;
    if (row.createdBy?.suspendedAt) {
      // Suspended after it was queued: nothing of the account leaves. Held (not an attempt) so
      // that an unsuspension lets it go, and given up as any row after 48 h.
      const now = clock.now();
      if (now.getTime() - row.createdAt.getTime() >= GIVE_UP_AFTER_MS) {
        const error = failureText(GIVE_UP_REASON, HELD_SUSPENDED);
        await record(row, owner, { status: 'failed', httpStatus: null, error });
      } else {
        await prisma.outboxDelivery.updateMany({
          where: { id, lockedBy: owner },
          data: {
            nextAttemptAt: new Date(now.getTime() + RETRY_CAP_MS),
            lastError: HELD_SUSPENDED,
            lockedBy: null,
            lockedUntil: null,
            updatedAt: now,
          },
        });
      }
      return loadView(id);
    }
    let outcome: Outcome;
    let body: unknown;
    try {
      body = JSON.parse(row.body);
    } catch {
      body = undefined;
    }
    if (body === undefined) {
      outcome = { status: 'failed', httpStatus: null, error: 'not sent: the body is not JSON' };
    } else if (await deps.registry?.isBlocked(row.targetDomain)) {
      outcome = {
        status: 'failed',
        httpStatus: null,
        error: failureText('node blocked', `${row.targetDomain} is blocked on this node.`),
      };
    } else {
      const answer = await peers.postJson(
        row.targetDomain,
        row.path,
        body,
        answerSchemaOf(row.kind),
      );
      const now = clock.now();
      if (answer.ok) {
        outcome = { status: 'delivered', httpStatus: answer.status };
      } else {
        const verdict = judgeFailure(answer.error);
        if (verdict.final) {
          outcome = { status: 'failed', httpStatus: verdict.status, error: verdict.error };
        } else if (now.getTime() - row.createdAt.getTime() >= GIVE_UP_AFTER_MS) {
          outcome = {
            status: 'failed',
            httpStatus: verdict.status,
            error: failureText(GIVE_UP_REASON, verdict.error),
          };
        } else {
          const delay = retryDelayMs(row.attempts + 1, random, verdict.retryAfterSec);
          outcome = {
            status: 'pending',
            httpStatus: verdict.status,
            error: verdict.error,
            nextAttemptAt: new Date(now.getTime() + delay),
          };
        }
      }
    }
    await record(row, owner, outcome);
    const log = {
      delivery: row.id,
      kind: row.kind,
      peer: row.targetDomain,
      attempt: row.attempts + 1,
      status: outcome.status,
    };
    deps.metrics?.observeDelivery(outcome.status === 'pending' ? 'retry' : outcome.status);
    if (outcome.status === 'delivered') logger.debug(log, 'delivered');
    else logger.info({ ...log, error: outcome.error }, 'delivery not done');
    return loadView(row.id);
  }

  async function record(
    row: { id: string; kind: string; interactionId: string | null },
    owner: string,
    outcome: Outcome,
  ): Promise<void> {
    const now = clock.now();
    await prisma.$transaction(async (tx) => {
      const { count } = await tx.outboxDelivery.updateMany({
        where: { id: row.id, lockedBy: owner },
        data: {
          status: outcome.status,
          attempts: { increment: 1 },
          lastStatus: outcome.httpStatus,
          lastError: outcome.status === 'delivered' ? null : outcome.error,
          nextAttemptAt: outcome.status === 'pending' ? outcome.nextAttemptAt : undefined,
          deliveredAt: outcome.status === 'delivered' ? now : undefined,
          lockedBy: null,
          lockedUntil: null,
          updatedAt: now,
        },
      });
      // Our lease ran out and someone else took the row: their outcome counts, not ours.
      if (count === 1 && outcome.status !== 'pending') {
        await settle(tx, row, outcome);
      }
    }, TX_OPTIONS);
  }

  /**
   * What a final outcome means locally. A follow of a remote user is `pending` until its node
   * accepted it (2xx); a follow the node refused or that never arrived is undone.
   */
  async function settle(
    tx: Tx,
    row: { id: string; kind: string; interactionId: string | null },
    outcome: Exclude<Outcome, { status: 'pending' }>,
  ): Promise<void> {
    const { status } = outcome;
    if (row.kind === 'report' && row.interactionId) {
      // A forwarded report (moderation/report-filing.ts): its row says whether it arrived.
      await tx.report.updateMany({
        where: { id: row.interactionId, forwardState: { in: ['pending', 'failed'] } },
        data: { forwardState: status === 'delivered' ? 'sent' : 'failed' },
      });
      return;
    }
    if (row.kind === 'message') {
      // Only forward: a receipt may have arrived first (then the row is delivered or read). A
      // failed row that an admin retried successfully becomes sent.
      if (status === 'delivered') {
        await tx.message.updateMany({
          where: { outboxDeliveryId: row.id, status: { in: ['sending', 'failed'] } },
          data: { status: 'sent', failureReason: null },
        });
      } else {
        // A failed message retried (Retry now) that fails again takes the new reason.
        await tx.message.updateMany({
          where: { outboxDeliveryId: row.id, status: { in: ['sending', 'failed'] } },
          data: {
            status: 'failed',
            failureReason: messageFailureReason(outcome.httpStatus, outcome.error),
          },
        });
      }
      return;
    }
    if (row.kind !== 'follow' || !row.interactionId) return;
    if (status === 'delivered') {
      await tx.follow.updateMany({
        where: { interactionId: row.interactionId, state: 'pending' },
        data: { state: 'accepted' },
      });
      return;
    }
    const follows = await tx.follow.findMany({
      where: { interactionId: row.interactionId, state: 'pending', followerUserId: { not: null } },
      select: { followerKey: true, followeeKey: true },
    });
    for (const follow of follows) await removeFollow(tx, follow);
  }

  const newOwner = () => `delivery:${randomUUID()}`;

  return {
    async enqueue(tx, request) {
      const now = clock.now();
      const created = await tx.outboxDelivery.create({
        data: {
          targetDomain: request.targetDomain,
          kind: request.kind,
          path: pathOfDelivery(request.kind),
          body: JSON.stringify(request.body),
          interactionId: request.interactionId ?? null,
          createdById: request.createdById ?? null,
          status: 'pending',
          nextAttemptAt: now,
          createdAt: now,
          updatedAt: now,
        },
        select: { id: true },
      });
      return created.id;
    },

    async attempt(ids) {
      const views = await Promise.all(
        ids.map(async (id) => {
          const owner = newOwner();
          if (await claimOne(id, owner, false)) return send(id, owner);
          return loadView(id); // already being sent, or done
        }),
      );
      return views.filter((v): v is DeliveryView => v !== null);
    },

    async list(query = {}) {
      const take = Math.min(Math.max(Math.trunc(query.limit ?? LIST_DEFAULT), 1), LIST_MAX);
      const rows = await prisma.outboxDelivery.findMany({
        where: {
          ...(query.status ? { status: query.status } : {}),
          ...(query.createdById ? { createdById: query.createdById } : {}),
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take,
        select: viewSelect,
      });
      return rows.map(view);
    },

    async get(id, options = {}) {
      if (!uuidSchema.safeParse(id).success) return null;
      const row = await prisma.outboxDelivery.findFirst({
        where: { id, ...(options.createdById ? { createdById: options.createdById } : {}) },
        select: viewSelect,
      });
      return row ? view(row) : null;
    },

    async findByInteraction(interactionId) {
      const row = await prisma.outboxDelivery.findFirst({
        where: { interactionId },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        select: viewSelect,
      });
      return row ? view(row) : null;
    },

    async retryNow(id) {
      const current = await this.get(id);
      if (!current) return err({ code: 'NOT_FOUND', message: `No delivery ${id}.` });
      if (current.status === 'delivered' || current.status === 'cancelled') {
        return err({
          code: 'DELIVERY_CONFLICT',
          message: `Delivery ${id} is ${current.status}: there is nothing to retry.`,
        });
      }
      if (current.status === 'failed' && current.kind === 'follow') {
        // A follow that failed for good was undone here; sending it now would follow there only.
        return err({
          code: 'DELIVERY_CONFLICT',
          message: 'This follow failed and was undone on this node: follow again instead.',
        });
      }
      const owner = newOwner();
      if (!(await claimOne(id, owner, true))) {
        return err({
          code: 'DELIVERY_CONFLICT',
          message: `Delivery ${id} is being sent right now; look again in a moment.`,
        });
      }
      const sent = await send(id, owner);
      return sent ? ok(sent) : err({ code: 'NOT_FOUND', message: `No delivery ${id}.` });
    },

    async counts() {
      const groups = await prisma.outboxDelivery.groupBy({ by: ['status'], _count: true });
      const counts: DeliveryCounts = { pending: 0, failed: 0, delivered: 0 };
      for (const group of groups) {
        if (group.status in counts) counts[group.status as keyof DeliveryCounts] = group._count;
      }
      return counts;
    },

    async cancelPending(tx, interactionId) {
      const now = clock.now();
      const cancel = (attempted: boolean) =>
        tx.outboxDelivery.updateMany({
          where: {
            interactionId,
            status: 'pending',
            attempts: attempted ? { gt: 0 } : 0,
            OR: [{ lockedUntil: null }, { lockedUntil: { lt: now } }],
          },
          data: {
            status: 'cancelled',
            lastError: 'undone before it was delivered',
            updatedAt: now,
          },
        });
      const unsent = await cancel(false);
      const attempted = await cancel(true);
      if (attempted.count > 0) return 'attempted';
      return unsent.count > 0 ? 'unsent' : 'none';
    },

    async processDue(options = {}) {
      const owner = options.owner ?? newOwner();
      const ids = await claimDue(options.limit ?? DELIVERY_BATCH, owner);
      const views = await Promise.all(ids.map((id) => send(id, owner)));
      const report: DeliveryBatchReport = {
        claimed: ids.length,
        delivered: 0,
        retrying: 0,
        failed: 0,
      };
      for (const v of views) {
        if (v?.status === 'delivered') report.delivered += 1;
        else if (v?.status === 'pending') report.retrying += 1;
        else if (v?.status === 'failed') report.failed += 1;
      }
      return report;
    },
  };
}
