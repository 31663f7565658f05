import type { Logger } from '../logger.ts';
import { reportJobFailure, type FailureLog } from '../ops/failure-log.ts';
import type { SwarmCrawler } from './crawler.ts';
import type { RemotePoller } from './poller.ts';
import type { RetentionSweep } from './retention.ts';

/** The background reads of remote content and their upkeep, as boot.ts builds them. */
export interface RemoteContent {
  poller: RemotePoller;
  crawler: SwarmCrawler;
  retention: RetentionSweep;
  /** The crawler's budget (requests per minute, 0: off), for the start-up line. */
  crawlPerMinute: number;
}

export const REMOTE_CONTENT_INTERVALS = {
  /** Due poll rows are looked for this often (a cheap indexed query when there are none). */
  pollMs: 10_000,
  /** The crawler spends what its budget holds this often. */
  crawlMs: 10_000,
  /** The poll schedule is held to the follow graph this often (and at start). */
  reconcileMs: 10 * 60_000,
  /** Retention sweeps. */
  sweepMs: 60 * 60_000,
  /** Poll batches one tick runs at most, even if rows keep coming due. */
  pollBatchesPerTick: 20,
};

export interface RemoteContentWorker {
  start(): void;
  /** Stops the timers and waits for the step in flight. */
  stop(): Promise<void>;
  /** Reconciles, then polls batches until nothing is due on the node's clock (tests). */
  pollAll(): Promise<void>;
  crawlOnce(): ReturnType<SwarmCrawler['crawlDue']>;
  sweepOnce(): ReturnType<RetentionSweep['sweep']>;
}

/**
 * Runs the poller, the crawler and the retention sweep on timers in the gateway's process, next
 * to gossip and the outbox (apps/gateway/src/main.ts); never in the web app. Each job's rows are
 * claimed, so several replicas may run this together.
 */
export function createRemoteContentWorker(deps: {
  node: { remoteContent: RemoteContent; logger: Logger; failures?: FailureLog };
  intervals?: Partial<typeof REMOTE_CONTENT_INTERVALS>;
}): RemoteContentWorker {
  const { node } = deps;
  const { poller, crawler, retention } = node.remoteContent;
  const intervals = { ...REMOTE_CONTENT_INTERVALS, ...deps.intervals };
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const inFlight = new Set<Promise<unknown>>();
  let running = false;
  let lastReconcile = -Infinity;

  function track<T>(work: Promise<T>): Promise<T> {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work)).catch(() => undefined);
    return work;
  }

  async function pollTick() {
    if (Date.now() - lastReconcile >= intervals.reconcileMs) {
      lastReconcile = Date.now();
      await poller.reconcile();
    }
    for (let batch = 0; batch < intervals.pollBatchesPerTick; batch++) {
      const report = await poller.pollDue();
      if (report.claimed === 0) break;
    }
  }

  /** Runs `work` every `ms` (after the previous run ended) until `stop`. */
  function every(name: string, ms: number, work: () => Promise<unknown>, firstMs = ms) {
    const schedule = (delay: number) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        void track(work())
          .catch((err: unknown) => reportJobFailure(node, `${name} failed`, err))
          .finally(() => {
            if (running) schedule(ms);
          });
      }, delay);
      timer.unref?.();
      timers.add(timer);
    };
    schedule(firstMs);
  }

  async function settle() {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  }

  return {
    start() {
      if (running) return;
      running = true;
      // The first poll comes at once: an upgraded node backfills from its follow graph.
      every('remote posts poll', intervals.pollMs, pollTick, 0);
      if (node.remoteContent.crawlPerMinute > 0) {
        every('swarm crawl', intervals.crawlMs, () => crawler.crawlDue());
      }
      every('remote posts retention', intervals.sweepMs, () => retention.sweep(), 60_000);
      node.logger.info(
        {
          pollMs: intervals.pollMs,
          crawlPerMinute: node.remoteContent.crawlPerMinute,
          sweepMs: intervals.sweepMs,
        },
        node.remoteContent.crawlPerMinute > 0
          ? 'remote content jobs started: poller, crawler, retention'
          : 'remote content jobs started: poller, retention (crawler off)',
      );
    },
    async stop() {
      if (!running) return;
      running = false;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await settle();
      node.logger.info('remote content jobs stopped');
    },
    async pollAll() {
      await settle();
      await track(poller.reconcile());
      for (let batch = 0; batch < 1_000; batch++) {
        const report = await track(poller.pollDue());
        if (report.claimed === 0) break;
      }
    },
    crawlOnce: () => track(crawler.crawlDue()),
    sweepOnce: () => track(retention.sweep()),
  };
}
