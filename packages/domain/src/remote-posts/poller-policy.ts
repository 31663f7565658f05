/**
 * When the poller reads a followed remote person again (docs/architecture.md "Stored remote
 * content", "The poller"). Pure, so that the worker, the docs and the tests agree.
 *
 * - A new follow is read at once (the backfill), then every `initialMs`.
 * - A read that brought new posts halves the interval, down to `minMs`: busy authors are read
 *   often. A read with nothing new stretches it by half, up to `maxMs`: quiet ones rarely.
 * - An author who posted within `recentMs` is never left longer than `recentCapMs`.
 * - A failed read (node down, error, breaker open) waits `failureBaseMs` × 2^(failures−1), at
 *   most `failureCapMs`, and keeps the interval it had; the first success resets the count.
 * - An author whose node pushes their posts here (capability `posts`, our profile) is read only
 *   to fill gaps: every `pushedMs` while reads find nothing the pushes did not bring. A read that
 *   finds new posts means pushes were lost, and the rules above apply again.
 */
export const POLL_POLICY = {
  initialMs: 5 * 60_000,
  minMs: 60_000,
  maxMs: 30 * 60_000,
  recentMs: 24 * 60 * 60_000,
  recentCapMs: 10 * 60_000,
  failureBaseMs: 60_000,
  failureCapMs: 60 * 60_000,
  pushedMs: 6 * 60 * 60_000,
} as const;

export type PollPolicy = typeof POLL_POLICY;

/** The interval after a successful read that found `newPosts` new posts. */
export function intervalAfterSuccess(
  input: {
    intervalMs: number;
    newPosts: number;
    newestPostAt: Date | null;
    now: Date;
    pushes?: boolean;
  },
  policy: PollPolicy = POLL_POLICY,
): number {
  if (input.pushes && input.newPosts === 0) return policy.pushedMs;
  const stretched =
    input.newPosts > 0 ? Math.floor(input.intervalMs / 2) : Math.ceil(input.intervalMs * 1.5);
  let interval = Math.min(policy.maxMs, Math.max(policy.minMs, stretched));
  const sincePost = input.newestPostAt
    ? input.now.getTime() - input.newestPostAt.getTime()
    : Infinity;
  if (sincePost <= policy.recentMs) interval = Math.min(interval, policy.recentCapMs);
  return interval;
}

/** How long to wait after the `failures`-th failed read in a row (1 for the first). */
export function delayAfterFailure(failures: number, policy: PollPolicy = POLL_POLICY): number {
  const exponent = Math.max(0, Math.min(failures - 1, 30));
  return Math.min(policy.failureBaseMs * 2 ** exponent, policy.failureCapMs);
}
