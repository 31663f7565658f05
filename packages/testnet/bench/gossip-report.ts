import { benchGossipConvergence, type GossipResult } from './gossip.bench.ts';
import { writeTable } from './report.ts';

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * Runs the convergence benchmark for each size and writes `gossip.json` / `gossip.md`.
 * `BENCH_GOSSIP_SIZES=50` (comma-separated) runs only those sizes: N = 200 takes minutes.
 */
export async function benchGossip(
  resultsDir: string,
  defaultSizes: number[],
  log: (line: string) => void,
): Promise<GossipResult[]> {
  const sizes = parseSizes(process.env.BENCH_GOSSIP_SIZES) ?? defaultSizes;
  if (sizes !== defaultSizes) log(`gossip: BENCH_GOSSIP_SIZES=${sizes.join(',')}`);
  const results: GossipResult[] = [];
  for (const n of sizes) {
    log(`gossip N=${n}: starting ${n} nodes…`);
    results.push(await benchGossipConvergence(n, log));
  }
  const rows = results.map((r) => {
    const ratio = r.steady.fullBytes ? r.steady.deltaBytes / r.steady.fullBytes : 0;
    return [
      String(r.nodes),
      `${r.live} / ${r.dead}`,
      r.rounds === null ? `> ${r.maxRounds}` : String(r.rounds),
      String(r.targetRounds),
      r.rounds !== null && r.rounds <= r.targetRounds ? 'yes' : 'NO',
      `${kib(mean(r.bytesPerRound))} (max ${kib(Math.max(...r.bytesPerRound))})`,
      `${sum(r.probesPerRound)} / ${sum(r.lookupsPerRound)}`,
      `${kib(r.steady.deltaBytes / Math.max(1, r.steady.exchanges))} (${r.steady.deltaMinBytes}–${r.steady.deltaMaxBytes} B) vs ${kib(r.steady.fullBytes / Math.max(1, r.steady.exchanges))}`,
      `${(ratio * 100).toFixed(2)} %`,
      ratio <= 0.01 ? 'yes' : 'NO',
      `${r.seconds.setup.toFixed(0)} + ${r.seconds.rounds.toFixed(0)}`,
    ];
  });
  await writeTable(resultsDir, 'gossip', 'Gossip convergence, 10 % message loss, 10 % dead nodes', {
    intro:
      'In-process nodes (own gateway and PGlite each), rounds one node after the other. Rounds and bytes do not depend on the CPU; seconds do.',
    columns: [
      'N',
      'live / dead',
      'rounds',
      'target ⌈log₂N⌉+3',
      'met',
      'gossip per round (mean)',
      'probes / lookups',
      'steady exchange: delta (min–max) vs full',
      'delta / full',
      'target ≤ 1 %',
      'seconds (setup + rounds)',
    ],
    align: [
      'right',
      'right',
      'right',
      'right',
      'left',
      'right',
      'right',
      'right',
      'right',
      'left',
      'right',
    ],
    rows,
    data: results,
    notes: [
      'Gossip bytes are request + answer bodies of POST /api/swarm/gossip. Probes are GET /api/swarm/info of',
      'nodes heard of in gossip (verified before use); lookups are GET /api/swarm/users/<handle>?limit=0 checking',
      'relayed handle entries with their own node. "Steady exchange": after convergence, without loss, each live',
      "node repeats its last round's exchanges, once with `since` (delta) and once with both cursors wiped (full).",
      'Per round, bytes: ' +
        results
          .map((r) => `N=${r.nodes}: ${r.bytesPerRound.map((b) => kib(b)).join(', ')}`)
          .join('; '),
    ],
  });
  return results;
}

function parseSizes(value: string | undefined): number[] | undefined {
  if (!value?.trim()) return undefined;
  const sizes = value.split(',').map((v) => Number(v.trim()));
  if (sizes.some((n) => !Number.isInteger(n) || n < 2)) {
    throw new Error(`BENCH_GOSSIP_SIZES: expected sizes such as 50,200, got "${value}"`);
  }
  return sizes;
}
