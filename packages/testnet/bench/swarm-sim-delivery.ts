import { DELIVERY_BATCH, DELIVERY_POLL_MS, retryDelayMs } from '@swarm/domain';
import { LIMITS } from '@swarm/contract';
import { prng, quantile } from './swarm-sim-model.ts';

// The outbox sending one post to the F nodes that follow its author, one delivery per node.
// Real: the retry schedule (`retryDelayMs`, jitter included), the batch size (DELIVERY_BATCH)
// and the worker's pause between batches (DELIVERY_POLL_MS), the peer timeout
// (LIMITS.peerTimeoutMs). Modelled from delivery-worker.ts and delivery.service.ts: one worker;
// a batch claims the due rows oldest `next_attempt_at` first and sends them all at once
// (`Promise.all`), the next batch is `DELIVERY_POLL_MS` after the batch ends. A batch takes the
// measured time of that many real pushes at once on this machine plus a network round trip,
// or the peer timeout when one of its targets hangs. Down targets come back after `downMs`.

export interface DeliverySimOptions {
  followerNodes: number;
  downShare: number;
  /** How a down node fails: refused at once, or hanging until the peer timeout. */
  downMode: 'refused' | 'hanging';
  downMs: number;
  /** Measured: 20 real pushes at once (ms), one round trip added per batch. */
  batch20Ms: number;
  rttMs: number;
  seed: number;
}

export interface DeliverySimResult {
  followerNodes: number;
  down: number;
  downMode: 'refused' | 'hanging';
  deliveries: number;
  attempts: number;
  batches: number;
  /** Minutes until the post reached every node that was up, and every node at all. */
  allUpMin: number;
  allMin: number;
  /** Minutes until half of the nodes had it. */
  medianMin: number;
}

export function simulateDelivery(o: DeliverySimOptions): DeliverySimResult {
  const random = prng(o.seed);
  const F = o.followerNodes;
  const step = o.downShare > 0 ? Math.round(1 / o.downShare) : 0;
  const rows = Array.from({ length: F }, (_, k) => ({
    down: step > 0 && k % step === 5,
    nextAt: 0,
    attempts: 0,
    deliveredAt: -1,
  }));
  let now = DELIVERY_POLL_MS; // the worker's first tick after the post
  let attempts = 0;
  let batches = 0;
  const upMs = o.downMs;
  while (rows.some((r) => r.deliveredAt < 0)) {
    const due = rows
      .map((r, k) => ({ r, k }))
      .filter(({ r }) => r.deliveredAt < 0 && r.nextAt <= now)
      .sort((a, b) => a.r.nextAt - b.r.nextAt || a.k - b.k)
      .slice(0, DELIVERY_BATCH);
    if (due.length === 0) {
      now += DELIVERY_POLL_MS;
      continue;
    }
    batches++;
    const hangs = due.some(({ r }) => r.down && now < upMs) && o.downMode === 'hanging';
    const took = hangs
      ? LIMITS.peerTimeoutMs
      : o.rttMs + (o.batch20Ms * due.length) / DELIVERY_BATCH;
    const end = now + took;
    for (const { r } of due) {
      attempts++;
      r.attempts++;
      if (r.down && now < upMs) r.nextAt = end + retryDelayMs(r.attempts, random);
      else r.deliveredAt = end;
    }
    now = end + DELIVERY_POLL_MS;
  }
  const times = rows.map((r) => r.deliveredAt);
  const min = (ms: number) => ms / 60_000;
  return {
    followerNodes: F,
    down: rows.filter((r) => r.down).length,
    downMode: o.downMode,
    deliveries: F,
    attempts,
    batches,
    allUpMin: min(Math.max(...rows.filter((r) => !r.down).map((r) => r.deliveredAt))),
    allMin: min(Math.max(...times)),
    medianMin: min(quantile(times, 0.5)),
  };
}
