import {
  CRAWLER_DEFAULTS,
  CRAWL_POLICY,
  crawlOrder,
  crawlPriority,
  crawlRule,
} from '@swarm/domain';
import { prng, quantile } from './swarm-sim-model.ts';

// One node's crawler over P active peers, tick by tick (10 s, REMOTE_CONTENT_INTERVALS.crawlMs).
// Real: the order (`crawlPriority`, the same order as `crawlOrder`, checked against it every
// 500 ticks), the budget's shape (`crawlRule`: a token bucket of `perMinute` a minute with its
// burst), the posts per read, reads per tick, the minimum gap. Modelled: the token bucket's
// refill (continuous), peers' posts (Poisson at each peer's rate), the store (a post is stored
// the first time a read returns it; a read returns the peer's newest `postsPerRead`), no failures
// (peers are live: dead ones are not active peers).

const TICK_MS = 10_000;
const HOUR = 3_600_000;

export interface CrawlSimOptions {
  perMinute: number;
  /** Posts per hour of each active peer (the whole node). */
  peerRates: Float64Array;
  /** The observer's trust in each peer. */
  trust: Uint8Array;
  seed: number;
}

export interface CrawlSimResult {
  perMinute: number;
  peers: number;
  /** Simulated hours (warm-up, measured window, tail). */
  hours: { warmUp: number; window: number; tail: number };
  /** Timeline reads per hour over the window (the budget, whatever P). */
  readsPerHour: number;
  /** Posts created in the window: delay until first stored (minutes), median and p90. */
  postDelayMin: { p50: number; p90: number };
  /** Share of those posts never stored (more than 20 new between two reads, or not read yet). */
  missedShare: number;
  /**
   * The measure: at a random moment of the window, a random active peer's newest post;
   * its age when it first shows up in the store (minutes; not stored, because 20 newer came
   * first, counts as infinitely late), and the share never stored.
   */
  newestAgeMin: { p50: number; p90: number; missedShare: number };
  /** A random active peer: minutes since it was last read, sampled in the window, median. */
  readAgeMin: { p50: number; p90: number };
  seconds: number;
}

export function simulateCrawl(o: CrawlSimOptions): CrawlSimResult {
  const started = performance.now();
  const random = prng(o.seed);
  const P = o.peerRates.length;
  const { postsPerRead, maxPerTick } = CRAWLER_DEFAULTS;
  const rule = crawlRule(o.perMinute);
  // One rotation through P peers takes P / perMinute minutes: warm up past the first one.
  const rotationH = P / o.perMinute / 60;
  const warmUp = Math.max(2, Math.ceil(rotationH * 1.5));
  const window = Math.max(2, Math.ceil(rotationH));
  const tail = Math.max(4, Math.ceil(rotationH * 2));
  const end = (warmUp + window + tail) * HOUR;
  const w0 = warmUp * HOUR;
  const w1 = (warmUp + window) * HOUR;

  const peers = Array.from({ length: P }, (_, k) => ({
    domain: `p${String(k).padStart(6, '0')}.test`,
    trustScore: o.trust[k]!,
    lastCrawledAt: null as Date | null,
    lastNewPosts: 0,
    nextAt: 0,
    /** Posts not yet stored (creation times, oldest first) and the next post's time. */
    pending: [] as number[],
    nextPost: 0,
  }));
  const gap = (k: number) => (-Math.log(1 - random()) / o.peerRates[k]!) * HOUR;
  peers.forEach((p, k) => (p.nextPost = o.peerRates[k]! > 0 ? gap(k) : Infinity));

  let tokens = rule.burst;
  const refillPerMs = rule.points / rule.windowMs;
  const delays: number[] = [];
  /** Sampled newest posts waiting for their peer's next read, and their ages when stored. */
  const watches: number[][] = Array.from({ length: P }, () => []);
  const newestAges: number[] = [];
  /** Per peer: the age of its newest post when the last read stored it. */
  const storedNewestAge = new Float64Array(P).fill(NaN);
  const readAges: number[] = [];
  let windowPosts = 0;
  let windowReads = 0;
  for (let now = 0, tick = 0; now < end; now += TICK_MS, tick++) {
    tokens = Math.min(rule.burst, tokens + TICK_MS * refillPerMs);
    const at = new Date(now);
    const take = Math.min(maxPerTick, Math.floor(tokens));
    if (take <= 0) continue;
    // The `take` due peers of highest priority (ties by domain, as crawlOrder sorts them).
    const chosen: number[] = [];
    const score: number[] = [];
    for (let k = 0; k < P; k++) {
      const p = peers[k]!;
      if (p.nextAt > now) continue;
      const s = crawlPriority(p, at);
      let pos = chosen.length;
      while (pos > 0 && score[pos - 1]! < s) pos--;
      if (pos >= take) continue;
      chosen.splice(pos, 0, k);
      score.splice(pos, 0, s);
      if (chosen.length > take) {
        chosen.pop();
        score.pop();
      }
    }
    if (tick % 500 === 0 && chosen.length > 0) {
      const due = peers.filter((p) => p.nextAt <= now);
      const first = crawlOrder(due, at)[0]!;
      if (first !== peers[chosen[0]!]) throw new Error('crawl sim: order differs from crawlOrder');
    }
    for (const k of chosen) {
      tokens -= 1;
      const p = peers[k]!;
      while (p.nextPost <= now) {
        if (p.nextPost >= w0 && p.nextPost < w1) windowPosts++;
        p.pending.push(p.nextPost);
        p.nextPost += gap(k);
      }
      // The read returns the newest `postsPerRead`: older unstored posts are missed for good.
      const got = p.pending.slice(-postsPerRead);
      for (const t of got) if (t >= w0 && t < w1) delays.push(now - t);
      for (const c of watches[k]!) newestAges.push(got.length && c >= got[0]! ? now - c : Infinity);
      watches[k] = [];
      if (got.length > 0) storedNewestAge[k] = now - got.at(-1)!;
      if (now >= w0 && now < w1) windowReads++;
      p.pending = [];
      p.lastNewPosts = got.length;
      p.lastCrawledAt = at;
      p.nextAt = now + CRAWL_POLICY.minGapMs;
    }
    if (now >= w0 && now < w1 && tick % 30 === 0) {
      const k = Math.floor(random() * P);
      const p = peers[k]!;
      readAges.push(p.lastCrawledAt ? now - p.lastCrawledAt.getTime() : now);
      while (p.nextPost <= now) {
        if (p.nextPost >= w0 && p.nextPost < w1) windowPosts++;
        p.pending.push(p.nextPost);
        p.nextPost += gap(k);
      }
      if (p.pending.length > 0) watches[k]!.push(p.pending.at(-1)!);
      else if (!Number.isNaN(storedNewestAge[k]!)) newestAges.push(storedNewestAge[k]!);
    }
  }
  // Posts of the window never returned by a read before the end.
  for (const w of watches) for (const _ of w) newestAges.push(Infinity);
  const minutes = (xs: number[], q: number) => quantile(xs, q) / 60_000;
  return {
    perMinute: o.perMinute,
    peers: P,
    hours: { warmUp, window, tail },
    readsPerHour: windowReads / window,
    postDelayMin: { p50: minutes(delays, 0.5), p90: minutes(delays, 0.9) },
    missedShare: windowPosts ? 1 - delays.length / windowPosts : 0,
    newestAgeMin: {
      p50: minutes(newestAges, 0.5),
      p90: minutes(newestAges, 0.9),
      missedShare: newestAges.filter((d) => d === Infinity).length / Math.max(1, newestAges.length),
    },
    readAgeMin: { p50: minutes(readAges, 0.5), p90: minutes(readAges, 0.9) },
    seconds: (performance.now() - started) / 1000,
  };
}
