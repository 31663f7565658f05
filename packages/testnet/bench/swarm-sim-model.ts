// Shared pieces of the swarm simulation (swarm-sim.bench.ts): a seeded PRNG, Zipf draws, a
// min-heap of numbers, percentiles. Nothing here is policy: the policies are the domain's own.

/** A small deterministic PRNG (mulberry32), so a run is reproducible. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * Draws ranks 0…n−1 with P(rank k) ∝ 1 / (k + 1)^s (Zipf): a cumulative table and a binary
 * search per draw.
 */
export function zipf(n: number, s: number, random: () => number): () => number {
  const cdf = new Float64Array(n);
  let total = 0;
  for (let k = 0; k < n; k++) {
    total += 1 / (k + 1) ** s;
    cdf[k] = total;
  }
  return () => {
    const r = random() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** Splits `total` into `n` Zipf-shaped integer shares (each at least `min`), largest first. */
export function zipfShares(total: number, n: number, s: number, min = 1): number[] {
  const weights = Array.from({ length: n }, (_, k) => 1 / (k + 1) ** s);
  const sum = weights.reduce((a, b) => a + b, 0);
  const spare = total - min * n;
  const shares = weights.map((w) => min + Math.floor((spare * w) / sum));
  let left = total - shares.reduce((a, b) => a + b, 0);
  for (let k = 0; left > 0; k = (k + 1) % n, left--) shares[k]! += 1;
  return shares;
}

/** A standard normal draw (Box–Muller). */
export function normal(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** A binary min-heap of numbers (callers pack their keys into one number). */
export class NumberHeap {
  private items: number[] = [];
  get size() {
    return this.items.length;
  }
  peek(): number | undefined {
    return this.items[0];
  }
  push(value: number) {
    const a = this.items;
    a.push(value);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]! <= value) break;
      a[i] = a[parent]!;
      i = parent;
    }
    a[i] = value;
  }
  pop(): number | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        let mv = last;
        if (l < a.length && a[l]! < mv) {
          m = l;
          mv = a[l]!;
        }
        if (r < a.length && a[r]! < mv) m = r;
        if (m === i) break;
        a[i] = a[m]!;
        i = m;
      }
      a[i] = last;
    }
    return top;
  }
}

/** The `q`-quantile (0…1) of `xs` (sorted in place); NaN when empty. */
export function quantile(xs: number[] | Float64Array, q: number): number {
  if (xs.length === 0) return NaN;
  xs.sort((a, b) => a - b);
  return xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
}

/** A positive integer from the environment, or the default. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`${name}: expected a number, got "${raw}"`);
  return value;
}
