import { z } from 'zod';
import {
  forwardedReportResponseSchema,
  interactionResponseSchema,
  messageResponseSchema,
  postPushAnswerSchema,
  receiptResponseSchema,
  replyResponseSchema,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { NodeMetrics } from '../ops/index.ts';
import type { PeerClient } from '../peers/index.ts';
import { claimDeliverySql, claimDueDeliveriesSql } from '../persistence/delivery.sql.ts';
import type { RegistryService } from '../registry/index.ts';
import type { DeliveryView } from '../views/index.ts';
import {
  GIVE_UP_AFTER_MS,
  GIVE_UP_REASON,
  HELD_SUSPENDED,
  RETRY_CAP_MS,
  failureText,
  judgeFailure,
  retryDelayMs,
} from './delivery-policy.ts';
import { settle, type SendOutcome } from './delivery-settle.ts';
import type { DeliveryViews } from './delivery-views.ts';

/** How long a claim holds: far above one exchange (5 s timeout), short enough to recover soon. */
export const DELIVERY_LEASE_MS = 2 * 60_000;

const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 } as const;

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
    case 'post':
      return postPushAnswerSchema;
    case 'delete-reply':
      return z.unknown(); // the origin's answer says nothing we act on
    default:
      return interactionResponseSchema;
  }
}

/** Claiming rows and sending them: the attempt, its outcome, and what it means locally. */
export interface DeliverySender {
  /**
   * The claim: one UPDATE over due, unclaimed rows. The inner SELECT locks what it takes and
   * skips rows another transaction holds; the outer conditions are checked again on the locked
   * row version, so two claimers never both win a row.
   */
  claimDue(limit: number, owner: string): Promise<string[]>;
  /** Claims one row for an immediate attempt; `revive` also takes a failed row back. */
  claimOne(id: string, owner: string, revive: boolean): Promise<boolean>;
  /** Sends one claimed row and records the outcome (only while the claim is still ours). */
  send(id: string, owner: string): Promise<DeliveryView | null>;
}

export function createDeliverySender(deps: {
  db: Db;
  peers: Pick<PeerClient, 'postJson'>;
  clock: Clock;
  logger: Logger;
  registry?: Pick<RegistryService, 'isBlocked'>;
  random: () => number;
  metrics?: Pick<NodeMetrics, 'observeDelivery'>;
  views: DeliveryViews;
}): DeliverySender {
  const { db, peers, clock, logger, random, views } = deps;
  const prisma = db.prisma;
  const { loadView } = views;

  async function claimDue(limit: number, owner: string): Promise<string[]> {
    const now = clock.now();
    const until = new Date(now.getTime() + DELIVERY_LEASE_MS);
    const rows = await prisma.$queryRaw<{ id: string }[]>(
      claimDueDeliveriesSql(now, until, owner, limit),
    );
    return rows.map((r) => r.id);
  }

  async function claimOne(id: string, owner: string, revive: boolean): Promise<boolean> {
    const now = clock.now();
    const until = new Date(now.getTime() + DELIVERY_LEASE_MS);
    const count = await prisma.$executeRaw(claimDeliverySql(id, now, until, owner, revive));
    return count === 1;
  }

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
    let outcome: SendOutcome;
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
      // The origin's unsigned DELETE of a reply goes as queued; every other row is a signed POST.
      const options = row.method === 'DELETE' ? { method: 'DELETE' as const, sign: false } : {};
      const answer = await peers.postJson(
        row.targetDomain,
        row.path,
        body,
        answerSchemaOf(row.kind),
        options,
      );
      const now = clock.now();
      if (answer.ok) {
        outcome = { status: 'delivered', httpStatus: answer.status };
      } else {
        const verdict = judgeFailure(answer.reason);
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
    outcome: SendOutcome,
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

  return { claimDue, claimOne, send };
}
