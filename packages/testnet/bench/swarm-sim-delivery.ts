import {
  DELIVERY_BATCH,
  DELIVERY_POLL_MS,
  POLL_POLICY,
  POST_PUSH_MAX_NODES,
  intervalAfterSuccess,
  retryDelayMs,
} from '@swarm/domain';
import { LIMITS } from '@swarm/contract';
import { prng, quantile } from './swarm-sim-model.ts';

// One post whose author is followed from F nodes. The author's node pushes it to at most
// POST_PUSH_MAX_NODES of them (actions/post-fan-out.ts: most followers first); the others read it
// at their next poll of the author, who posts daily, so they poll at the interval
// `intervalAfterSuccess` settles on for a recent poster with nothing new (a random phase each).
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
  /** Outbox rows (pushes), and nodes left to their polls. */
  deliveries: number;
  polled: number;
  pollIntervalMin: number;
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
  const pushed = Math.min(F, POST_PUSH_MAX_NODES);
  const step = o.downShare > 0 ? Math.round(1 / o.downShare) : 0;
  const rows = Array.from({ length: pushed }, (_, k) => ({
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
  // The nodes past the push limit poll: steady interval for an author who posted today.
  let interval: number = POLL_POLICY.initialMs;
  for (let k = 0; k < 50; k++) {
    interval = intervalAfterSuccess({
      intervalMs: interval,
      newPosts: 0,
      newestPostAt: new Date(0),
      now: new Date(3_600_000),
    });
  }
  const polled = Array.from({ length: F - pushed }, (_, k) => {
    const down = step > 0 && (pushed + k) % step === 5;
    const phase = random() * interval;
    // A node that is down polls nothing; back up, it polls on its schedule again.
    return down ? o.downMs + phase : phase;
  });
  const times = [...rows.map((r) => r.deliveredAt), ...polled];
  const upTimes = [
    ...rows.filter((r) => !r.down).map((r) => r.deliveredAt),
    ...polled.filter((t) => t < o.downMs || o.downShare === 0),
  ];
  const min = (ms: number) => ms / 60_000;
  return {
    followerNodes: F,
    down: step > 0 ? Array.from({ length: F }, (_, k) => k % step === 5).filter(Boolean).length : 0,
    downMode: o.downMode,
    deliveries: pushed,
    polled: F - pushed,
    pollIntervalMin: interval / 60_000,
    attempts,
    batches,
    allUpMin: min(Math.max(...upTimes)),
    allMin: min(Math.max(...times)),
    medianMin: min(quantile(times, 0.5)),
  };
}
