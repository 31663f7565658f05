import { createTestNetwork, type NetworkNode, type TestNetwork } from '../test/harness.ts';

// Gossip convergence in an in-process swarm (createTestNetwork: every node its own gateway and
// PGlite database, requests as real HTTP requests routed in memory, one manual clock). All nodes
// start from one seed; once they have announced, 10 % of them die (connection refused) and
// 10 % of all requests are lost from then on. Rounds run one node after the other, the clock
// advancing 60 s between rounds. Measured: rounds until every live node knows every live node
// (verified, active) and every live node's handle, and gossip bytes (request + answer bodies).
// Then, converged and without loss, the same exchanges once more: as deltas (`since` from the
// previous exchange) and as full exchanges (cursors wiped, no `since` either way).
//
// Rounds and bytes do not depend on the CPU; the seconds do (and the machine may be shared).

export interface GossipResult {
  nodes: number;
  live: number;
  dead: number;
  /** ⌈log₂ N⌉ + 3 (the target). */
  targetRounds: number;
  /** Rounds until converged, or null when it did not within the limit. */
  rounds: number | null;
  maxRounds: number;
  /** Gossip bytes (requests + answers) per round, in order. */
  bytesPerRound: number[];
  /** Other requests per round: probes (`/info`) and relayed-handle lookups (`/users`). */
  probesPerRound: number[];
  lookupsPerRound: number[];
  lostRequests: number;
  /**
   * Converged, no loss: the same exchanges with `since` (delta) and without (full); the
   * smallest and largest delta exchange (request + answer).
   */
  steady: {
    exchanges: number;
    deltaBytes: number;
    fullBytes: number;
    deltaMinBytes: number;
    deltaMaxBytes: number;
  };
  seconds: { setup: number; rounds: number };
}

const LOSS = 0.1;
const DEAD = 0.1;
const ROUND_MS = 60_000;

/** A small deterministic PRNG, so runs lose the same share of requests. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const pad = (i: number, n: number) => String(i).padStart(String(n - 1).length, '0');

function gossipBytes(net: TestNetwork, from: number) {
  let bytes = 0;
  for (const r of net.network.requests.slice(from)) {
    if (r.path === '/api/swarm/gossip') bytes += (r.requestBytes ?? 0) + (r.responseBytes ?? 0);
  }
  return bytes;
}

export async function benchGossipConvergence(
  n: number,
  log: (line: string) => void,
): Promise<GossipResult> {
  const started = performance.now();
  const net = await createTestNetwork({ countBytes: true });
  try {
    const seed = `n${pad(0, n)}.test`;
    for (let i = 0; i < n; i++) {
      await net.add({
        domain: `n${pad(i, n)}.test`,
        seeds: i === 0 ? [] : [seed],
        handles: [`user${pad(i, n)}`],
      });
      if ((i + 1) % 25 === 0 || i + 1 === n) log(`  N=${n}: ${i + 1} nodes up`);
    }
    await net.announceAll();
    // Every 10th node from the 6th on dies (never the seed, through which everyone joined).
    const dead = net.nodes.filter((_, i) => i % Math.round(1 / DEAD) === 5);
    for (const m of dead) net.network.drop(m.domain);
    net.network.loss(LOSS, prng(n));
    const setup = (performance.now() - started) / 1000;

    const targetRounds = Math.ceil(Math.log2(n)) + 3;
    const maxRounds = targetRounds * 2;
    const bytesPerRound: number[] = [];
    const probesPerRound: number[] = [];
    const lookupsPerRound: number[] = [];
    let rounds: number | null = null;
    let lastPeers = new Map<string, string[]>();
    const roundsStarted = performance.now();
    for (let round = 1; round <= maxRounds; round++) {
      const t = performance.now();
      const from = net.network.requests.length;
      const reports = await net.round();
      net.clock.advance(ROUND_MS);
      lastPeers = new Map(
        [...reports].map(([domain, r]) => [
          domain,
          r.gossip.filter((g) => g.ok).map((g) => g.domain),
        ]),
      );
      const sent = net.network.requests.slice(from);
      bytesPerRound.push(gossipBytes(net, from));
      probesPerRound.push(sent.filter((r) => r.path === '/api/swarm/info').length);
      lookupsPerRound.push(sent.filter((r) => r.path.startsWith('/api/swarm/users/')).length);
      const done = await net.converged();
      log(
        `  N=${n} round ${round}: ${((performance.now() - t) / 1000).toFixed(1)} s, gossip ${(bytesPerRound.at(-1)! / 1024).toFixed(0)} KiB, ${probesPerRound.at(-1)} probes, ${lookupsPerRound.at(-1)} lookups${done ? ', converged' : ''}`,
      );
      if (done) {
        rounds = round;
        break;
      }
    }
    const roundSeconds = (performance.now() - roundsStarted) / 1000;
    const lostRequests = net.network.requests.filter((r) => r.fault === 'loss').length;

    // Steady state: each live node repeats its last round's successful exchanges, first as
    // deltas, then with every cursor of those pairs wiped (full answers, full pushes).
    net.network.loss(0);
    const pairs = net
      .live()
      .flatMap((m) => (lastPeers.get(m.domain) ?? []).map((peer) => [m, peer] as const));
    const deltaFrom = net.network.requests.length;
    const perExchange: number[] = [];
    for (const [m, peer] of pairs) {
      const from = net.network.requests.length;
      await m.node.gossip.exchangeWith(peer);
      perExchange.push(gossipBytes(net, from));
    }
    const deltaBytes = gossipBytes(net, deltaFrom);
    for (const [m, peer] of pairs) await forgetCursor(m, peer);
    const fullFrom = net.network.requests.length;
    for (const [m, peer] of pairs) await m.node.gossip.exchangeWith(peer);
    const fullBytes = gossipBytes(net, fullFrom);

    return {
      nodes: n,
      live: net.live().length,
      dead: dead.length,
      targetRounds,
      rounds,
      maxRounds,
      bytesPerRound,
      probesPerRound,
      lookupsPerRound,
      lostRequests,
      steady: {
        exchanges: pairs.length,
        deltaBytes,
        fullBytes,
        deltaMinBytes: Math.min(...perExchange),
        deltaMaxBytes: Math.max(...perExchange),
      },
      seconds: { setup, rounds: roundSeconds },
    };
  } finally {
    await net.close();
  }
}

/** What `m` remembers of its exchanges with `peer`: the peer's clock and our push cursor. */
async function forgetCursor(m: NetworkNode, peer: string) {
  const { prisma } = m.node.db;
  await prisma.$executeRaw`UPDATE swarm_nodes SET last_sync_at = NULL WHERE domain = ${peer}`;
  await prisma.swarmSyncLog.deleteMany({ where: { remoteDomain: peer, direction: 'push' } });
}
