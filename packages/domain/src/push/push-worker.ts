import type { Logger } from '../logger.ts';
import { reportJobFailure, type FailureLog } from '../ops/failure-log.ts';
import type { PushBatchReport, PushSender } from './push-sender.ts';

/**
 * The push outbox's background sender, in the gateway process beside the delivery worker. It
 * looks often (a push should reach a phone within seconds of what caused it, docs/benchmarks.md)
 * and cheaply: an empty outbox is one indexed query. Replicas share the outbox safely: each row
 * is claimed by one worker (`FOR UPDATE SKIP LOCKED`).
 */

export const PUSH_POLL_MS = 500;

export interface PushWorker {
  start(): void;
  stop(): Promise<void>;
  runOnce(): Promise<PushBatchReport>;
  /** Batches until nothing is due (tests). */
  processAll(): Promise<void>;
}

export function createPushWorker(deps: {
  node: { push: { sender: PushSender }; logger: Logger; failures?: FailureLog };
  pollMs?: number;
}): PushWorker {
  const { node } = deps;
  const pollMs = deps.pollMs ?? PUSH_POLL_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let current: Promise<unknown> = Promise.resolve();

  const runOnce = () => {
    const work = node.push.sender.processDue();
    current = work.catch(() => undefined);
    return work;
  };

  function schedule(delay: number) {
    timer = setTimeout(() => {
      timer = undefined;
      void runOnce()
        // A full batch: more may be waiting, so look again at once.
        .then((report) => (report.claimed >= 32 ? 0 : pollMs))
        .catch((err: unknown) => {
          reportJobFailure(node, 'push batch failed', err);
          return pollMs;
        })
        .then((next) => {
          if (running) schedule(next);
        });
    }, delay);
    timer.unref?.();
  }

  return {
    start() {
      if (running) return;
      running = true;
      schedule(pollMs);
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await current;
    },
    runOnce,
    async processAll() {
      await current;
      for (let i = 0; i < 1_000; i++) {
        if ((await runOnce()).claimed === 0) break;
      }
    },
  };
}
