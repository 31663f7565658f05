import type { Logger } from '../logger.ts';
import { reportJobFailure, type FailureLog } from '../ops/failure-log.ts';
import { READS_TOPIC, type Invalidations } from '../replicas/invalidations.ts';
import type {
  ConfirmationReport,
  OriginConfirmationService,
} from './origin-confirmation.service.ts';

/** How often held origin effects are looked at (a cheap indexed query when there are none). */
export const ORIGIN_CONFIRMATION_POLL_MS = 5_000;
/** `processAll` stops after this many batches (a safety net). */
const DRAIN_MAX_BATCHES = 200;

export interface OriginConfirmationWorker {
  start(): void;
  stop(): Promise<void>;
  runOnce(): Promise<ConfirmationReport>;
  /** Batches until nothing is due on the node's clock: tests drain the queue with this. */
  processAll(): Promise<void>;
}

/**
 * Runs `originConfirmations.processDue` in the gateway process (next to the delivery worker),
 * one batch at a time; what it applies is announced like any write (reads, live pages).
 */
export function createOriginConfirmationWorker(deps: {
  /** The services it uses (the node context fits). */
  node: {
    originConfirmations: Pick<OriginConfirmationService, 'processDue'>;
    logger: Logger;
    failures?: FailureLog;
    invalidations?: Pick<Invalidations, 'publish'>;
  };
  pollMs?: number;
}): OriginConfirmationWorker {
  const { node } = deps;
  let timer: ReturnType<typeof setInterval> | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();

  async function batch() {
    const report = await node.originConfirmations.processDue();
    if (report.applied > 0) await node.invalidations?.publish(READS_TOPIC);
    return report;
  }
  /** One batch after the one in flight: batches never overlap in one process. */
  function runOnce() {
    const run = inFlight.then(batch);
    inFlight = run.catch((err: unknown) =>
      reportJobFailure(node, 'origin confirmations failed', err),
    );
    return run;
  }

  return {
    start() {
      timer ??= setInterval(
        () => void runOnce().catch(() => undefined),
        deps.pollMs ?? ORIGIN_CONFIRMATION_POLL_MS,
      );
      timer.unref?.();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await inFlight;
    },
    runOnce,
    async processAll() {
      for (let i = 0; i < DRAIN_MAX_BATCHES; i++) {
        if ((await runOnce()).looked === 0) break;
      }
    },
  };
}
