// The durable outbox, by concern: claiming and sending rows (delivery-send.ts), what a final
// outcome means locally (delivery-settle.ts), and its reads (delivery-views.ts). Raw statements
// are in persistence/delivery.sql.ts.

import { randomUUID } from 'node:crypto';
import type { Refusal } from '../refusal.ts';
import { SWARM_PATHS, err, ok, type Result, type UserAction } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { NodeMetrics } from '../ops/index.ts';
import type { PeerClient } from '../peers/index.ts';
import type { RegistryService } from '../registry/index.ts';
import type { Tx } from '../interactions/interaction-effects.ts';
import type { DeliveryView } from '../views/index.ts';
import { createDeliverySender } from './delivery-send.ts';
import {
  createDeliveryViews,
  type DeliveryCounts,
  type DeliveryListQuery,
} from './delivery-views.ts';

export { DELIVERY_LEASE_MS } from './delivery-send.ts';
export type { DeliveryCounts, DeliveryListQuery } from './delivery-views.ts';

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
 * deletions and moves, forwarded moderation reports (node-signed only), new posts to the nodes
 * of the author's followers (`post`), and the origin profile's unsigned removal of a reply
 * (`delete-reply`, to origin peers only).
 */
export type DeliveryKind =
  | Exclude<UserAction, 'encryption-key' | 'export' | 'import' | 'delegate'>
  | 'report'
  | 'delete-reply';

export interface DeliveryRequest {
  targetDomain: string;
  kind: DeliveryKind;
  /** The exact body to send (user-signed already where that applies). */
  body: Record<string, unknown>;
  interactionId?: string | null;
  /** The local user whose action this is (null for the node's own deliveries). */
  createdById?: string | null;
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
   * `none`: nothing was pending. With `kind`, only deliveries of that kind.
   */
  cancelPending(
    tx: Tx,
    interactionId: string,
    kind?: DeliveryKind,
  ): Promise<'none' | 'unsent' | 'attempted'>;
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

export const DELIVERY_BATCH = 20;

export function pathOfDelivery(kind: DeliveryKind): string {
  switch (kind) {
    case 'reply':
    case 'delete-reply':
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
    case 'post':
      return SWARM_PATHS.inbox;
    default:
      return SWARM_PATHS.interaction(kind);
  }
}

export function createDeliveryService(deps: DeliveryServiceDeps): DeliveryService {
  const { db, clock } = deps;
  const random = deps.random ?? Math.random;

  const views = createDeliveryViews({ db, clock });
  const { loadView } = views;
  const { claimDue, claimOne, send } = createDeliverySender({ ...deps, random, views });

  const newOwner = () => `delivery:${randomUUID()}`;

  return {
    async enqueue(tx, request) {
      const now = clock.now();
      const created = await tx.outboxDelivery.create({
        data: {
          targetDomain: request.targetDomain,
          kind: request.kind,
          method: request.kind === 'delete-reply' ? 'DELETE' : 'POST',
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
      const attempted = await Promise.all(
        ids.map(async (id) => {
          const owner = newOwner();
          if (await claimOne(id, owner, false)) return send(id, owner);
          return loadView(id); // already being sent, or done
        }),
      );
      return attempted.filter((v): v is DeliveryView => v !== null);
    },

    list: views.list,
    get: views.get,
    findByInteraction: views.findByInteraction,

    async retryNow(id) {
      const current = await views.get(id);
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

    counts: views.counts,

    async cancelPending(tx, interactionId, kind) {
      const now = clock.now();
      const cancel = (attempted: boolean) =>
        tx.outboxDelivery.updateMany({
          where: {
            interactionId,
            ...(kind ? { kind } : {}),
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
      const sent = await Promise.all(ids.map((id) => send(id, owner)));
      const report: DeliveryBatchReport = {
        claimed: ids.length,
        delivered: 0,
        retrying: 0,
        failed: 0,
      };
      for (const v of sent) {
        if (v?.status === 'delivered') report.delivered += 1;
        else if (v?.status === 'pending') report.retrying += 1;
        else if (v?.status === 'failed') report.failed += 1;
      }
      return report;
    },
  };
}
