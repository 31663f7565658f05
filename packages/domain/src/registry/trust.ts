import { INACTIVE_AFTER_FAILURES, PROBE_BACKOFF, TRUST } from '../persistence/registry.sql.ts';

/**
 * Registry and trust rules of docs/protocol.md, as pure functions so that the service, the docs
 * and the tests agree. Trust is a reputation 0–100 that follows direct contacts; its numbers sit
 * beside the statements that apply them atomically (persistence/registry.sql.ts).
 */
/**
 * Delay before the next probe of an inactive node, given how many probes failed since it became
 * inactive (1 for the first). Gossip-mentioned nodes that were never reached count from their
 * first failed probe.
 */
export function probeDelayMs(failedProbes: number): number {
  const exponent = Math.max(0, Math.min(failedProbes - 1, 30));
  return Math.min(PROBE_BACKOFF.firstMs * 2 ** exponent, PROBE_BACKOFF.maxMs);
}

/** Failed probes since going inactive, from the node's consecutive failures after this one. */
export function failedProbesSinceInactive(failures: number, isVerified: boolean): number {
  return isVerified ? failures - INACTIVE_AFTER_FAILURES + 1 : failures;
}

/** Trust after a successful direct contact. */
export function trustAfterSuccess(trust: number, wasVerified: boolean): number {
  if (!wasVerified) return Math.max(trust, TRUST.direct);
  return Math.min(trust + TRUST.successStep, TRUST.max);
}

/** Trust after a failed contact. */
export function trustAfterFailure(trust: number): number {
  return Math.max(trust - TRUST.failureStep, TRUST.min);
}

/**
 * Picks up to `count` distinct items, each draw weighted by `weight` (+1 so a node at trust 0 can
 * still be picked). `random` returns [0, 1), injectable for tests.
 */
export function weightedSample<T>(
  items: readonly T[],
  count: number,
  weight: (item: T) => number,
  random: () => number = Math.random,
): T[] {
  const pool = items.map((item) => ({ item, w: Math.max(0, weight(item)) + 1 }));
  const picked: T[] = [];
  while (picked.length < count && pool.length > 0) {
    const total = pool.reduce((sum, p) => sum + p.w, 0);
    let r = random() * total;
    let index = pool.length - 1;
    for (let i = 0; i < pool.length; i++) {
      r -= pool[i]!.w;
      if (r < 0) {
        index = i;
        break;
      }
    }
    picked.push(pool[index]!.item);
    pool.splice(index, 1);
  }
  return picked;
}
