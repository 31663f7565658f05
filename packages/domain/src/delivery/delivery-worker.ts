import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.ts';
import { reportJobFailure, type FailureLog } from '../ops/failure-log.ts';
import type { Invalidations } from '../replicas/invalidations.ts';
import { LIVE_TOPIC } from '../live/live-hub.ts';
import type { DeliveryBatchReport, DeliveryService } from './delivery.service.ts';

/** How often the worker looks for due deliveries (a cheap indexed query when there are none). */
export const DELIVERY_POLL_MS = 5_000;
/** `processAll` stops after this many batches even if rows keep coming due (a safety net). */
const DRAIN_MAX_BATCHES = 1_000;

export interface DeliveryWorker {
  /** Polls for due deliveries on a timer until `stop`. */
  start(): void;
  /** Stops the timer and waits for the batch in flight. */
  stop(): Promise<void>;
  /** One batch now: claims due rows and sends them. */
  runOnce(): Promise<DeliveryBatchReport>;
  /**
   * Waits for work in flight, then sends batches until nothing is due on the node's clock (a
   * retried row is due again only later): tests drain the outbox with this instead of waiting.
   */
  processAll(): Promise<void>;
}

export interface DeliveryWorkerDeps {
  /** The services it uses (the node context fits). */
  node: {
    delivery: Pick<DeliveryService, 'processDue'>;
    logger: Logger;
    failures?: FailureLog;
    invalidations?: Pick<Invalidations, 'publish'>;
    /**
     * Posts to push again as their counts grew (actions/post-repush.ts), queued before each
     * batch so that they go in it. Named by shape: the actions sit above the outbox.
     */
    actions?: { repush?: { queueDue(): Promise<number> } };
  };
  pollMs?: number;
  /** Names this worker in `lockedBy` (default: a random id per batch). */
  name?: string;
}

/**
 * The outbox's background sender (runs in the gateway process, next to the swarm scheduler).
 * Safe with several replicas: each batch is claimed atomically by `processDue`, so a row is
 * sent by one worker at a time, whoever else polls the same database.
 */
export function createDeliveryWorker(deps: DeliveryWorkerDeps): DeliveryWorker {
  const { node } = deps;
  const pollMs = deps.pollMs ?? DELIVERY_POLL_MS;
  const inFlight = new Set<Promise<unknown>>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;

  function track<T>(work: Promise<T>): Promise<T> {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work)).catch(() => undefined);
    return work;
  }

  /** A failure to queue re-pushes is reported and does not hold up the batch. */
  const queueRepushes = () =>
    (node.actions?.repush?.queueDue() ?? Promise.resolve(0)).catch((err: unknown) => {
      reportJobFailure(node, 'queueing re-pushed posts failed', err);
      return 0;
    });

  const runOnce = () =>
    track(
      queueRepushes()
        .then(() =>
          node.delivery.processDue(deps.name ? { owner: `${deps.name}:${randomUUID()}` } : {}),
        )
        .then(async (report) => {
          // Statuses moved: the live pages of the people whose deliveries these are update.
          if (report.claimed > 0) await node.invalidations?.publish(LIVE_TOPIC);
          return report;
        }),
    );

  function schedule() {
    timer = setTimeout(() => {
      timer = undefined;
      void runOnce()
        .catch((err: unknown) => reportJobFailure(node, 'delivery batch failed', err))
        .finally(() => {
          if (running) schedule();
        });
    }, pollMs);
    timer.unref?.();
  }

  async function settle() {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  }

  return {
    start() {
      if (running) return;
      running = true;
      schedule();
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await settle();
    },
    runOnce,
    async processAll() {
      await settle();
      for (let batch = 0; batch < DRAIN_MAX_BATCHES; batch++) {
        const report = await runOnce();
        if (report.claimed === 0) break;
      }
      await settle();
    },
  };
}
