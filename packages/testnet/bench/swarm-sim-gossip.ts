import {
  GOSSIP_FANOUT,
  HINT_BOUNDS,
  KNOWN_FILTER,
  PROBE_BUDGET,
  afterPrune,
  knownFilterBytes,
  failedProbesSinceInactive,
  knownFilterFalsePositiveRate,
  probeBudget,
  probeDelayMs,
  trustAfterFailure,
  trustAfterSuccess,
  weightedSample,
  type PrunedHint,
} from '@swarm/domain';
import { LIMITS } from '@swarm/contract';
import { NumberHeap, prng } from './swarm-sim-model.ts';

// The registry and gossip of N nodes, modelled in typed arrays (one row per ordered pair of
// nodes instead of a database per node). Real: peer selection (`weightedSample` weighted by trust,
// GOSSIP_FANOUT a round), trust steps (`trustAfterSuccess` / `trustAfterFailure`), the probe
// backoff (`probeDelayMs`, `failedProbesSinceInactive`), the probe budget (`probeBudget`), which
// pruned hints the `known` filter holds (`afterPrune`), the
// constants (PROBE_BUDGET, HINT_BOUNDS, INACTIVE_AFTER_FAILURES, LIMITS.gossipMaxNodes,
// KNOWN_FILTER) and the `known` filter's false-positive rate (`knownFilterFalsePositiveRate`).
// Modelled from the code, as the SQL and services do it: push-pull exchanges with `since` cursors
// and capped pages, answers to a `known` filter listing a random sample of the nodes the
// requester lacks (gossip-exchange.ts, gossip-receive.ts, gossip-pages.ts), mentions stored as
// hints due for a probe (node-hints.ts), due probes oldest first (dueKnownNodesSql), inactivity
// after 5 failures. Not modelled: handles (convergence counts nodes only), unsigned gossip,
// blocks, time of day.

const ROUND_MS = 60_000;
/**
 * Failures in a row after which a verified node is inactive (INACTIVE_AFTER_FAILURES of the
 * domain's registry statements, not exported): read back from the exported rule built on it,
 * failedProbesSinceInactive(f, true) = f − INACTIVE_AFTER_FAILURES + 1.
 */
const INACTIVE_AFTER_FAILURES = 1 - failedProbesSinceInactive(0, true);
const NONE = 0xffff;
const J_BITS = 16384; // packs (round or stamp, node) into one number: N < 16,384
const UNKNOWN = 0;
const HINT = 1;
const ACTIVE = 2;
const INACTIVE = 3;

export interface GossipCosts {
  /** Bytes of an exchange with no entries (request + answer bodies). */
  emptyExchangeBytes: number;
  /** Bytes of one node entry in a request or an answer. */
  nodeEntryBytes: number;
  /** Bytes of one probe (`GET /api/swarm/info` answer). */
  probeBytes: number;
}

export interface GossipSimOptions {
  n: number;
  deadShare: number;
  loss: number;
  maxRounds: number;
  /** Rounds run after convergence, without loss (60 = one hour at the default interval). */
  steadyRounds: number;
  /** Rounds run without loss after convergence and before the steady rounds are counted. */
  settleRounds?: number;
  /** What-if knobs. A fixed number of probes a round instead of `probeBudget`'s. */
  probesPerRound?: number;
  /** Node entries per gossip page (default LIMITS.gossipMaxNodes). */
  pageCap?: number;
  /** False: requests carry no `known` filter (as before it, or peers of other implementations). */
  knownFilter?: boolean;
  seed?: number;
  costs: GossipCosts;
}

export interface GossipSimResult {
  n: number;
  live: number;
  dead: number;
  /** The fixed probes a round of a what-if, or null for `probeBudget`. */
  probesPerRound: number | null;
  pageCap: number;
  knownFilter: boolean;
  targetRounds: number;
  rounds: number | null;
  /** Per round: share of (live node, live peer) pairs known as active and verified. */
  knownShare: number[];
  /** Unless converged: the live pairs still unknown at the end, by the state of the row. */
  unknownPairs: Record<string, number>;
  settleRounds: number;
  /** Per live node during convergence, mean: requests it sent, bytes it sent and received. */
  convergence: { requestsPerNode: number; bytesPerNode: number };
  /** Steady state, per live node per hour (60 rounds), mean and max. */
  steady: {
    exchangesPerNode: number;
    probesPerNode: number;
    bytesPerNode: number;
    maxBytesPerNode: number;
    entriesPerExchange: number;
  };
  seconds: number;
  /** One live node's trust in each other live node at the end (the crawl simulation uses it). */
  observerTrust: Uint8Array;
}

export function simulateGossip(o: GossipSimOptions): GossipSimResult {
  const started = performance.now();
  const { n, costs } = o;
  if (n >= J_BITS) throw new Error(`gossip sim: N must be < ${J_BITS}`);
  const probesPerRound = o.probesPerRound ?? null;
  const pageCap = o.pageCap ?? LIMITS.gossipMaxNodes;
  const knownFilter = o.knownFilter ?? true;
  const random = prng(o.seed ?? n);
  const lossRandom = prng((o.seed ?? n) + 1);
  const cells = n * n;
  const st = new Uint8Array(cells);
  const trust = new Uint8Array(cells);
  const fails = new Uint8Array(cells);
  const due = new Uint16Array(cells).fill(NONE);
  const upd = new Float64Array(cells);
  const hintSrc = new Uint16Array(cells);
  const listed = new Uint8Array(cells);
  const known: number[][] = Array.from({ length: n }, () => []);
  const logs: number[][] = Array.from({ length: n }, () => []);
  const heaps = Array.from({ length: n }, () => new NumberHeap());
  const pushCur = Array.from({ length: n }, () => new Map<number, number>());
  const lastSync = Array.from({ length: n }, () => new Map<number, number>());
  const hintsTotal = new Int32Array(n);
  const hintsBySource = Array.from({ length: n }, () => new Map<number, number>());
  /** Pruned hints remembered, in rounds' ms, and whether the `known` filter holds them (NodeHints.pruned). */
  const pruned = Array.from({ length: n }, () => new Map<number, PrunedHint>());
  const activeCount = new Int32Array(n);
  const liveActive = new Int32Array(n);
  const alive = new Uint8Array(n).fill(1);
  const requests = new Float64Array(n);
  const bytes = new Float64Array(n);
  let stamp = 1;
  let round = 0;
  let loss = 0;
  let probesSent = 0;
  let exchanges = 0;
  let entriesSent = 0;

  const lost = () => loss > 0 && lossRandom() < loss;
  const dueIn = (ms: number) => Math.min(NONE - 1, round + Math.ceil(ms / ROUND_MS));

  function list(i: number, j: number) {
    if (listed[i * n + j]) return;
    listed[i * n + j] = 1;
    known[i]!.push(j);
  }
  function dropHint(i: number, k: number) {
    hintsTotal[i]! -= 1;
    const m = hintsBySource[i]!;
    m.set(hintSrc[k]!, (m.get(hintSrc[k]!) ?? 1) - 1);
  }
  function schedule(i: number, j: number, at: number) {
    due[i * n + j] = at;
    heaps[i]!.push(at * J_BITS + j);
  }
  function setActive(i: number, j: number, on: boolean) {
    const d = on ? 1 : -1;
    activeCount[i]! += d;
    if (alive[j]) liveActive[i]! += d;
  }

  /** recordSuccess: verified, active, trust up, failures and probe cleared, changed if it was not active. */
  function success(i: number, j: number) {
    const k = i * n + j;
    const s = st[k]!;
    if (s === HINT) dropHint(i, k);
    trust[k] = trustAfterSuccess(trust[k]!, s === ACTIVE || s === INACTIVE);
    fails[k] = 0;
    due[k] = NONE;
    list(i, j);
    if (s !== ACTIVE) {
      st[k] = ACTIVE;
      setActive(i, j, true);
      upd[k] = ++stamp;
      logs[i]!.push(stamp * J_BITS + j);
    }
  }

  /** recordFailure (contactFailedSql), and the pruning of never-reached hints. */
  function failure(i: number, j: number) {
    const k = i * n + j;
    const s = st[k]!;
    trust[k] = trustAfterFailure(trust[k]!);
    const f = Math.min(255, fails[k]! + 1);
    fails[k] = f;
    if (s === HINT) {
      if (f >= HINT_BOUNDS.pruneAfterFailedProbes) {
        dropHint(i, k);
        st[k] = UNKNOWN;
        due[k] = NONE;
        trust[k] = 0;
        fails[k] = 0;
        pruned[i]!.set(j, afterPrune(pruned[i]!.get(j), round * ROUND_MS));
      } else schedule(i, j, dueIn(probeDelayMs(f)));
    } else if (s === ACTIVE && f >= INACTIVE_AFTER_FAILURES) {
      st[k] = INACTIVE;
      setActive(i, j, false);
      schedule(i, j, dueIn(probeDelayMs(failedProbesSinceInactive(f, true))));
    } else if (s === INACTIVE) {
      schedule(i, j, dueIn(probeDelayMs(failedProbesSinceInactive(f, true))));
    }
  }

  /** noteHints from a verified sender: new domains stored (within the bounds), due now. */
  function noteHints(i: number, sender: number, mentioned: number[]) {
    const bySource = hintsBySource[i]!;
    for (const j of mentioned) {
      if (j === i || j === sender) continue;
      const k = i * n + j;
      const s = st[k]!;
      if (s === HINT && fails[k]! > 0 && due[k]! > round + 1) schedule(i, j, round + 1); // vouched
      if (s !== UNKNOWN) continue;
      const fromSender = bySource.get(sender) ?? 0;
      if (hintsTotal[i]! >= HINT_BOUNDS.total || fromSender >= HINT_BOUNDS.perSource) continue;
      st[k] = HINT;
      hintSrc[k] = sender;
      hintsTotal[i]! += 1;
      bySource.set(sender, fromSender + 1);
      list(i, j);
      schedule(i, j, round);
    }
  }

  /** changedNodes: active verified rows changed at or after `since`, oldest change first, capped. */
  function changed(i: number, since: number, a: number, b: number) {
    const log = logs[i]!;
    let lo = 0;
    let hi = log.length;
    const from = since * J_BITS;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (log[mid]! < from) lo = mid + 1;
      else hi = mid;
    }
    const items: number[] = [];
    let lastChange = 0;
    for (let x = lo; x < log.length && items.length < pageCap; x++) {
      const entry = log[x]!;
      const j = entry % J_BITS;
      const at = (entry - j) / J_BITS;
      const k = i * n + j;
      if (upd[k] !== at || st[k] !== ACTIVE || j === a || j === b) continue;
      items.push(j);
      lastChange = at;
    }
    return { items, capped: items.length >= pageCap, lastChange };
  }

  /** A request's `known` member: base64 of the filter's bytes, its salt and hash count. */
  const filterWireBytes = (count: number) => Math.ceil(knownFilterBytes(count) / 3) * 4 + 50;

  /**
   * Whether i's `known` filter holds j (heldDomains): verified, a hint not failed yet, or a hint
   * pruned lately.
   */
  function holds(i: number, j: number) {
    const s = st[i * n + j]!;
    if (s === UNKNOWN) {
      const p = pruned[i]!.get(j);
      return p !== undefined && p.held && p.until > round * ROUND_MS;
    }
    return s === ACTIVE || s === INACTIVE || (s === HINT && fails[i * n + j] === 0);
  }

  /**
   * missingNodes: a random sample of j's active nodes that i's filter does not hold. A false
   * positive leaves a lacking node out; the salt is new every request, so independently each time.
   */
  function missing(j: number, i: number) {
    const falsePositive = knownFilterFalsePositiveRate(known[i]!.length + 1);
    const lacks: number[] = [];
    for (const x of known[j]!) {
      if (st[j * n + x] !== ACTIVE || x === i) continue;
      if (!holds(i, x) && random() >= falsePositive) lacks.push(x);
    }
    const take = Math.min(KNOWN_FILTER.answerNodes, lacks.length);
    for (let a = 0; a < take; a++) {
      const b = a + Math.floor(random() * (lacks.length - a));
      [lacks[a], lacks[b]] = [lacks[b]!, lacks[a]!];
    }
    lacks.length = take;
    return lacks;
  }

  function exchange(i: number, j: number) {
    exchanges++;
    requests[i]! += 1;
    const exchangeStart = ++stamp;
    const out = changed(i, pushCur[i]!.get(j) ?? 0, i, j);
    const filterBytes = knownFilter ? filterWireBytes(known[i]!.length + 1) : 0;
    const requestBytes =
      costs.emptyExchangeBytes / 2 + out.items.length * costs.nodeEntryBytes + filterBytes;
    entriesSent += out.items.length;
    bytes[i]! += requestBytes;
    if (!alive[j] || lost()) {
      failure(i, j);
      return;
    }
    bytes[j]! += requestBytes;
    success(j, i);
    noteHints(j, i, out.items);
    const now = ++stamp;
    const answer = knownFilter
      ? { items: missing(j, i), capped: false, lastChange: 0 }
      : changed(j, lastSync[i]!.get(j) ?? 0, j, i);
    entriesSent += answer.items.length;
    const answerBytes = costs.emptyExchangeBytes / 2 + answer.items.length * costs.nodeEntryBytes;
    bytes[i]! += answerBytes;
    bytes[j]! += answerBytes;
    success(i, j);
    noteHints(i, j, answer.items);
    lastSync[i]!.set(j, answer.capped ? answer.lastChange : now);
    pushCur[i]!.set(j, out.capped ? out.lastChange : exchangeStart);
  }

  /** probeDue: what is due, oldest first, up to the cap; then as many as the budget allows. */
  function probeDue(i: number) {
    const heap = heaps[i]!;
    const cap = probesPerRound ?? Math.ceil(PROBE_BUDGET.max / PROBE_BUDGET.backlogShare);
    const dueNow: number[] = [];
    while (dueNow.length < cap && heap.size > 0) {
      const key = heap.peek()!;
      const j = key % J_BITS;
      const at = (key - j) / J_BITS;
      if (at > round) break;
      heap.pop();
      const k = i * n + j;
      if (due[k] !== at || (st[k] !== HINT && st[k] !== INACTIVE)) continue; // stale entry
      dueNow.push(key);
    }
    const budget = probesPerRound ?? probeBudget(dueNow.length);
    for (const key of dueNow.slice(budget)) heap.push(key);
    for (const key of dueNow.slice(0, budget)) {
      const j = key % J_BITS;
      probesSent++;
      requests[i]! += 1;
      bytes[i]! += costs.probeBytes;
      if (alive[j] && !lost()) {
        bytes[j]! += costs.probeBytes;
        success(i, j);
      } else failure(i, j);
    }
  }

  /** The round's peers: `weightedSample` itself while it is cheap, else the same draw by rejection. */
  function samplePeers(i: number): number[] {
    if (activeCount[i]! <= 500) {
      const peers = known[i]!.filter((j) => st[i * n + j] === ACTIVE);
      return weightedSample(peers, GOSSIP_FANOUT, (j) => trust[i * n + j]!, random);
    }
    // Uniform over the known, accepted with probability (trust + 1) / 101: each draw picks an
    // active peer with probability ∝ trust + 1 among those not yet picked, as weightedSample does.
    const list = known[i]!;
    const picked: number[] = [];
    while (picked.length < GOSSIP_FANOUT) {
      const j = list[Math.floor(random() * list.length)]!;
      const k = i * n + j;
      if (st[k] !== ACTIVE || picked.includes(j)) continue;
      if (random() * 101 < trust[k]! + 1) picked.push(j);
    }
    return picked;
  }

  /** Live pairs not known at the end of convergence, by the state of the peer's row. */
  function residue(): Record<string, number> {
    const byState: Record<string, number> = {};
    for (const i of liveNodes) {
      for (const j of liveNodes) {
        const k = i * n + j;
        if (i === j || st[k] === ACTIVE) continue;
        const s = st[k]!;
        const state =
          s === UNKNOWN
            ? holds(i, j)
              ? 'pruned, held in the filter'
              : 'unheard of'
            : s === HINT
              ? fails[k]! > 0
                ? 'hint, probes failed'
                : 'hint, not probed yet'
              : 'inactive';
        byState[state] = (byState[state] ?? 0) + 1;
      }
    }
    return byState;
  }

  // Start: every node announces to the seed (node 0), signed: both record a direct contact.
  for (let i = 1; i < n; i++) {
    requests[i]! += 1;
    bytes[i]! += 2 * costs.probeBytes;
    bytes[0]! += 2 * costs.probeBytes;
    success(0, i);
    success(i, 0);
  }
  // Then every 10th node from the 6th dies (never the seed), and 10 % of requests are lost.
  const step = Math.round(1 / o.deadShare);
  for (let i = 0; i < n; i++) {
    if (i % step !== 5) continue;
    alive[i] = 0;
    for (let x = 0; x < n; x++) if (st[x * n + i] === ACTIVE) liveActive[x]! -= 1;
  }
  const liveNodes = [...Array(n).keys()].filter((i) => alive[i]);
  const live = liveNodes.length;
  loss = o.loss;
  requests.fill(0);
  bytes.fill(0);

  const knownShare: number[] = [];
  const targetRounds = Math.ceil(Math.log2(n)) + 3;
  let rounds: number | null = null;
  for (round = 1; round <= o.maxRounds; round++) {
    for (const i of liveNodes) {
      probeDue(i);
      if (activeCount[i] === 0) {
        requests[i]! += 1;
        if (!lost()) success(i, 0);
      }
      for (const j of samplePeers(i)) exchange(i, j);
    }
    let pairs = 0;
    for (const i of liveNodes) pairs += liveActive[i]!;
    knownShare.push(pairs / (live * (live - 1)));
    if (pairs === live * (live - 1)) {
      rounds = round;
      break;
    }
  }
  const unknownPairs = rounds === null ? residue() : {};
  const mean = (xs: Float64Array) => liveNodes.reduce((s, i) => s + xs[i]!, 0) / live;
  const convergence = { requestsPerNode: mean(requests), bytesPerNode: mean(bytes) };

  // Steady state: converged (or given up), no loss; settling rounds first, then the counted ones.
  loss = 0;
  const settleRounds = o.settleRounds ?? 0;
  const settled = round + settleRounds;
  const end = settled + o.steadyRounds;
  for (round = round + 1; round <= end; round++) {
    if (round === settled + 1) {
      requests.fill(0);
      bytes.fill(0);
      probesSent = 0;
      exchanges = 0;
      entriesSent = 0;
    }
    for (const i of liveNodes) {
      probeDue(i);
      for (const j of samplePeers(i)) exchange(i, j);
    }
  }
  const hours = o.steadyRounds / 60;
  const observer = liveNodes[1]!;
  const observerTrust = Uint8Array.from(
    liveNodes.filter((j) => j !== observer).map((j) => trust[observer * n + j]!),
  );
  return {
    n,
    live,
    dead: n - live,
    probesPerRound,
    pageCap,
    knownFilter,
    targetRounds,
    rounds,
    knownShare,
    unknownPairs,
    settleRounds,
    convergence,
    steady: {
      exchangesPerNode: exchanges / live / hours,
      probesPerNode: probesSent / live / hours,
      bytesPerNode: mean(bytes) / hours,
      maxBytesPerNode: Math.max(...liveNodes.map((i) => bytes[i]!)) / hours,
      entriesPerExchange: exchanges ? entriesSent / exchanges : 0,
    },
    seconds: (performance.now() - started) / 1000,
    observerTrust,
  };
}
