import { LIMITS } from '@swarm/contract';
import {
  CRAWLER_DEFAULTS,
  GOSSIP_FANOUT,
  KNOWN_FILTER,
  POLLER_DEFAULTS,
  PROBE_BUDGET,
  REMOTE_CONTENT_INTERVALS,
} from '@swarm/domain';
import { calibrate, type Calibration } from './swarm-sim-calibrate.ts';
import { simulateCrawl, type CrawlSimResult } from './swarm-sim-crawl.ts';
import { simulateDelivery, type DeliverySimResult } from './swarm-sim-delivery.ts';
import { simulateGossip, type GossipSimResult } from './swarm-sim-gossip.ts';
import { envInt, quantile } from './swarm-sim-model.ts';
import { makePeople, type People } from './swarm-sim-people.ts';
import { writeTable } from './report.ts';

// `pnpm bench swarm-sim`: a swarm of SIM_NODES (10,000) nodes and SIM_PEOPLE (1,000,000) people,
// simulated on one machine. The policies are the domain's own functions; the network and the
// storage are modelled (typed arrays, no database, no HTTP), with per-request costs measured on
// real in-process nodes first (swarm-sim-calibrate.ts). What each part models: the header of
// each swarm-sim-*.ts file, and docs/benchmarks.md "Swarm simulation".

export interface SwarmSimConfig {
  nodes: number;
  people: number;
  gossipSizes: number[];
  /** Also N = 1,000 without the `known` filter and/or the probe budget (SIM_WHAT_IFS=0: not). */
  whatIfs: boolean;
  /** Only the gossip part (SIM_GOSSIP_ONLY=1): no people, load, crawl or delivery. */
  gossipOnly: boolean;
  gossipMaxRounds: number;
  steadyRounds: number;
  /** Rounds without loss between convergence and the counted steady rounds (SIM_SETTLE_ROUNDS). */
  settleRounds: number;
  followsMean: number;
  crawlRates: number[];
  deliveryFollowers: number;
  rttMs: number;
  downMinutes: number;
}

export function simConfig(): SwarmSimConfig {
  const list = (name: string, fallback: number[]) =>
    process.env[name]?.trim()
      ? process.env[name]!.split(',').map((v) => Number(v.trim()))
      : fallback;
  const nodes = envInt('SIM_NODES', 10_000);
  return {
    nodes,
    people: envInt('SIM_PEOPLE', 1_000_000),
    gossipSizes: list('SIM_GOSSIP_SIZES', [50, 200, 1_000, nodes]),
    whatIfs: envInt('SIM_WHAT_IFS', 1) > 0,
    gossipOnly: envInt('SIM_GOSSIP_ONLY', 0) > 0,
    gossipMaxRounds: envInt('SIM_GOSSIP_MAX_ROUNDS', 100),
    steadyRounds: envInt('SIM_STEADY_ROUNDS', 30),
    settleRounds: envInt('SIM_SETTLE_ROUNDS', 0),
    followsMean: envInt('SIM_FOLLOWS_MEAN', 50),
    crawlRates: list('SIM_CRAWL_PER_MIN', [CRAWLER_DEFAULTS.perMinute, 60]),
    deliveryFollowers: envInt('SIM_DELIVERY_FOLLOWERS', 1_000),
    rttMs: envInt('SIM_RTT_MS', 100),
    downMinutes: envInt('SIM_DOWN_MIN', 60),
  };
}

const mib = (b: number) =>
  b < 2 ** 20 ? `${(b / 1024).toFixed(1)} KiB` : `${(b / 2 ** 20).toFixed(1)} MiB`;
const num = (x: number, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d });
const stats = (xs: Float64Array | Int32Array) => {
  const a = Array.from(xs);
  return { mean: a.reduce((s, x) => s + x, 0) / a.length, p50: quantile(a, 0.5), max: a.at(-1)! };
};

export async function benchSwarmSim(resultsDir: string, log: (line: string) => void) {
  const config = simConfig();
  log(`swarm-sim: ${JSON.stringify(config)}`);
  const cal = await calibrate(log);
  const costs = {
    emptyExchangeBytes: cal.emptyExchangeBytes,
    nodeEntryBytes: cal.nodeEntryBytes,
    probeBytes: cal.probeBytes,
  };

  const gossip: GossipSimResult[] = [];
  for (const n of config.gossipSizes) {
    log(`swarm-sim gossip N=${n}…`);
    gossip.push(
      simulateGossip({
        n,
        deadShare: 0.1,
        loss: 0.1,
        maxRounds: config.gossipMaxRounds,
        steadyRounds: config.steadyRounds,
        settleRounds: config.settleRounds,
        costs,
      }),
    );
    const r = gossip.at(-1)!;
    log(`  rounds ${r.rounds ?? `> ${config.gossipMaxRounds}`}, ${r.seconds.toFixed(0)} s`);
  }
  // What each half of the change does: the same swarm of 1,000 as before it (no `known` filter,
  // a fixed 100 probes a round), and with only one of the two.
  const whatIfs = config.whatIfs
    ? [
        { knownFilter: false, probesPerRound: PROBE_BUDGET.base },
        { knownFilter: true, probesPerRound: PROBE_BUDGET.base },
        { knownFilter: false },
      ].map((w) => {
        log(`swarm-sim gossip what-if N=1000 ${JSON.stringify(w)}…`);
        return simulateGossip({
          n: 1_000,
          deadShare: 0.1,
          loss: 0.1,
          maxRounds: 60,
          steadyRounds: 1,
          costs,
          ...w,
        });
      })
    : [];
  await writeGossip(resultsDir, gossip, whatIfs, cal, config);
  if (config.gossipOnly) return;

  log(`swarm-sim people: ${config.people} over ${config.nodes} nodes…`);
  const people = makePeople({
    nodes: config.nodes,
    people: config.people,
    nodeZipf: 1,
    minPeople: 5,
    silentShare: 0.4,
    postsPerDay: 0.5,
    followsMean: config.followsMean,
    followZipf: 1,
    seed: 24,
  });
  log(`  ${num(people.follows)} follows, ${people.seconds.toFixed(0)} s`);
  await writeLoad(resultsDir, people, gossip, cal, config);

  // The crawl: one live node of the largest gossip run, its trust in the others, their rates.
  const big = gossip.find((g) => g.n === config.nodes);
  const peerCount = big ? big.observerTrust.length : Math.round(config.nodes * 0.9) - 1;
  const trust = big?.observerTrust ?? new Uint8Array(peerCount).fill(75);
  const peerRates = people.nodeRate.slice(0, peerCount);
  const crawls: CrawlSimResult[] = [];
  for (const perMinute of config.crawlRates) {
    log(`swarm-sim crawl at ${perMinute}/min over ${peerCount} peers…`);
    crawls.push(simulateCrawl({ perMinute, peerRates, trust, seed: 3 }));
    log(`  ${crawls.at(-1)!.seconds.toFixed(0)} s`);
  }
  await writeCrawl(resultsDir, crawls, cal);

  const deliveries: DeliverySimResult[] = [];
  for (const [downShare, downMode] of [
    [0, 'refused'],
    [0.1, 'refused'],
    [0.1, 'hanging'],
  ] as const) {
    deliveries.push(
      simulateDelivery({
        followerNodes: config.deliveryFollowers,
        downShare,
        downMode,
        downMs: config.downMinutes * 60_000,
        batch20Ms: cal.pushBatch20Ms,
        rttMs: config.rttMs,
        seed: 5,
      }),
    );
  }
  await writeDelivery(resultsDir, deliveries, cal, config);
}

async function writeGossip(
  dir: string,
  measured: GossipSimResult[],
  whatIfs: GossipSimResult[],
  cal: Calibration,
  config: SwarmSimConfig,
) {
  const results = [...measured, ...whatIfs];
  const defaultCap = LIMITS.gossipMaxNodes;
  const at = (r: GossipSimResult, round: number) =>
    r.knownShare[Math.min(round, r.knownShare.length) - 1] ?? 0;
  const firstAt = (r: GossipSimResult, share: number) => {
    const k = r.knownShare.findIndex((s) => s >= share);
    return k < 0 ? `> ${r.knownShare.length}` : String(k + 1);
  };
  await writeTable(
    dir,
    'swarm-sim-gossip',
    'Swarm simulation: gossip convergence and steady state',
    {
      intro:
        "Modelled registries (typed arrays), the domain's own peer selection, trust and probe rules; 10 % of nodes dead, 10 % of requests lost. Rounds and bytes do not depend on the CPU.",
      columns: [
        'N',
        'live / dead',
        'rounds to converge',
        'target ⌈log₂N⌉+3',
        'met',
        'known at target',
        'rounds to 99 % / 99.9 %',
        'per node while converging: requests, bytes',
        'steady, per node per hour: exchanges, probes, bytes (max)',
        'entries per steady exchange',
        'seconds',
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
        'right',
        'right',
      ],
      rows: results.map((r) => [
        r.knownFilter && r.probesPerRound === null
          ? num(r.n)
          : `${num(r.n)}, what-if: ${r.knownFilter ? 'with' : 'no'} known filter, ${r.probesPerRound === null ? 'probe budget' : `${num(r.probesPerRound)} probes a round`}`,
        `${num(r.live)} / ${num(r.dead)}`,
        r.rounds === null ? `> ${r.knownShare.length}` : String(r.rounds),
        String(r.targetRounds),
        r.rounds !== null && r.rounds <= r.targetRounds ? 'yes' : 'NO',
        `${(at(r, r.targetRounds) * 100).toFixed(1)} %`,
        `${firstAt(r, 0.99)} / ${firstAt(r, 0.999)}`,
        `${num(r.convergence.requestsPerNode)}, ${mib(r.convergence.bytesPerNode)}`,
        `${num(r.steady.exchangesPerNode)}, ${num(r.steady.probesPerNode)}, ${mib(r.steady.bytesPerNode)} (${mib(r.steady.maxBytesPerNode)})`,
        num(r.steady.entriesPerExchange),
        r.seconds.toFixed(0),
      ]),
      data: results.map(({ observerTrust: _, ...r }) => r),
      notes: [
        `"Known": share of (live node, live peer) pairs where the node holds the peer as active and verified, the convergence criterion of the gossip bench (nodes only; handles are not simulated). Gossip every 60 s, ${GOSSIP_FANOUT} peers a round, rounds one node after the other as in the gossip bench; steady state: ${config.steadyRounds} rounds without loss, ${config.settleRounds ? `after ${config.settleRounds} rounds without loss that are not counted` : 'right after the convergence phase'}, scaled to an hour.`,
        ...measured
          .filter((r) => r.rounds === null)
          .map(
            (r) =>
              `N = ${num(r.n)} did not converge: live pairs still unknown at the end, by the node's row of the peer: ${Object.entries(
                r.unknownPairs,
              )
                .map(([state, count]) => `${state} ${num(count)}`)
                .join(', ')}.`,
          ),
        `Bytes are bodies, from measured sizes: an exchange with no entries ${cal.emptyExchangeBytes} B (request + answer), ${cal.nodeEntryBytes.toFixed(0)} B per node entry, a probe answer ${cal.probeBytes} B, plus the request's \`known\` filter (${KNOWN_FILTER.bitsPerDomain} bits per node held, base64). Measured on this machine: one real exchange ${cal.gossipMs.toFixed(1)} ms, one probe ${cal.probeMs.toFixed(1)} ms (two in-process nodes).`,
        ...(whatIfs.length
          ? [
              `What-if rows (N = 1,000, steady state not meaningful there): without the \`known\` filter (answers page by \`since\`, at most ${defaultCap} nodes oldest change first: LIMITS.gossipMaxNodes) and/or with a fixed ${PROBE_BUDGET.base} probes a round instead of probeBudget (${PROBE_BUDGET.base}–${PROBE_BUDGET.max} by the backlog); both off is the protocol before the filter.`,
            ]
          : []),
        'Share known per round, N=' +
          measured
            .map((r) => `${r.n}: ${r.knownShare.map((s) => (s * 100).toFixed(1)).join(' ')}`)
            .join('; N='),
      ],
    },
  );
}

async function writeLoad(
  dir: string,
  people: People,
  gossip: GossipSimResult[],
  cal: Calibration,
  config: SwarmSimConfig,
) {
  const crawlReads = CRAWLER_DEFAULTS.perMinute * 60;
  const rows: string[][] = [];
  const add = (what: string, xs: Float64Array | Int32Array, bytesEach: number, note: string) => {
    const s = stats(xs);
    rows.push([
      what,
      num(s.mean, 1),
      num(s.p50, 1),
      num(s.max),
      mib(s.mean * bytesEach),
      mib(s.max * bytesEach),
      note,
    ]);
  };
  rows.push([
    `crawl (${CRAWLER_DEFAULTS.perMinute}/min)`,
    num(crawlReads),
    num(crawlReads),
    num(crawlReads),
    mib(crawlReads * cal.timelineBytes),
    mib(crawlReads * cal.timelineBytes),
    'the budget, whatever N (the crawl simulation counts the reads sent)',
  ]);
  for (const g of gossip) {
    rows.push([
      `gossip, N = ${num(g.n)}`,
      num(g.steady.exchangesPerNode + g.steady.probesPerNode),
      '',
      '',
      mib(g.steady.bytesPerNode),
      mib(g.steady.maxBytesPerNode),
      'exchanges started + probes; bytes in and out, answers included',
    ]);
  }
  add(
    'polls (followed remote people)',
    people.pollsPerHour,
    cal.pollBytes,
    'GET /users/{handle}?limit=20',
  );
  add(
    'pushes received',
    people.pushesInPerHour,
    cal.pushBytes,
    'one per post of a followed remote person (expected share when over the limit)',
  );
  add(
    'pushes sent',
    people.pushesOutPerHour,
    cal.pushBytes,
    'one per post per follower node, at most POST_PUSH_MAX_NODES',
  );
  const rf = stats(people.remoteFollowees);
  // What the poller can read an hour at most: its batches a tick × rows a batch, a tick every pollMs.
  const pollCapacity =
    (REMOTE_CONTENT_INTERVALS.pollBatchesPerTick * POLLER_DEFAULTS.batchSize * 3_600_000) /
    REMOTE_CONTENT_INTERVALS.pollMs;
  const overCapacity = Array.from(people.pollsPerHour).filter((x) => x > pollCapacity).length;
  const pn = stats(people.perNode);
  await writeTable(
    dir,
    'swarm-sim-load',
    `Swarm simulation: requests and bytes per node per hour (${num(config.nodes)} nodes, ${num(config.people)} people)`,
    {
      intro:
        'Requests a node sends (pushes: receives or sends), and their body bytes, per hour in steady state. Mean, median and max over nodes.',
      columns: [
        'what',
        'requests / h (mean)',
        'median',
        'max',
        'bytes / h (mean)',
        'bytes / h (max)',
        'note',
      ],
      align: ['left', 'right', 'right', 'right', 'right', 'right', 'left'],
      rows,
      data: {
        config,
        follows: people.follows,
        peoplePerNode: pn,
        remoteFolloweesPerNode: rf,
        polls: stats(people.pollsPerHour),
        pushesIn: stats(people.pushesInPerHour),
        pushesOut: stats(people.pushesOutPerHour),
        pollCapacity,
        overCapacity,
        calibration: cal,
      },
      notes: [
        `Follow graph: ${num(config.people)} people over ${num(config.nodes)} nodes, Zipf-shaped (exponent 1, at least 5 a node: median ${num(pn.p50)}, largest ${num(pn.max)}); 40 % never post, the others a log-normal rate (median 0.5 a day, σ 1.2); each follows a log-normal number of people (mean ${config.followsMean}), drawn by Zipf popularity (exponent 1) over everyone: ${num(people.follows)} follows. Distinct remote people a node follows (its poll rows): mean ${num(rf.mean)}, median ${num(rf.p50)}, max ${num(rf.max)}.`,
        `Polls per followed person from the poller's own intervalAfterSuccess over a simulated week at that person's rate. The poller reads at most ${num(pollCapacity)} an hour (${REMOTE_CONTENT_INTERVALS.pollBatchesPerTick} batches of ${POLLER_DEFAULTS.batchSize} every ${REMOTE_CONTENT_INTERVALS.pollMs / 1000} s): ${num(overCapacity)} nodes need more. Measured sizes: timeline read ${num(cal.timelineBytes)} B, poll read ${num(cal.pollBytes)} B (20 posts), push ${cal.pushBytes} B.`,
      ],
    },
  );
}

async function writeCrawl(dir: string, results: CrawlSimResult[], cal: Calibration) {
  await writeTable(
    dir,
    'swarm-sim-crawl',
    'Swarm simulation: freshness of the swarm feed through the crawler',
    {
      intro:
        'One live node crawling every other live node, at the default budget and ten times it. Minutes of simulated time.',
      columns: [
        'budget / min',
        'peers',
        'reads / h',
        'post → stored, median (p90) min',
        'never stored',
        "a random node's newest post: age when stored, median (p90) min",
        'of which never stored',
        'time since a random peer was read, median (p90) min',
        'simulated h (warm-up + window + tail)',
        'seconds',
      ],
      align: [
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
      ],
      rows: results.map((r) => [
        String(r.perMinute),
        num(r.peers),
        num(r.readsPerHour),
        `${num(r.postDelayMin.p50)} (${num(r.postDelayMin.p90)})`,
        `${(r.missedShare * 100).toFixed(1)} %`,
        `${num(r.newestAgeMin.p50)} (${num(r.newestAgeMin.p90)})`,
        `${(r.newestAgeMin.missedShare * 100).toFixed(1)} %`,
        `${num(r.readAgeMin.p50)} (${num(r.readAgeMin.p90)})`,
        `${r.hours.warmUp} + ${r.hours.window} + ${r.hours.tail}`,
        r.seconds.toFixed(0),
      ]),
      data: results,
      notes: [
        '"Post → stored": every post of the window alike (busy nodes weigh most); "a random node\'s newest post": every 5 simulated minutes of the window, a random peer\'s newest post at that moment, and its age when a read first stored it (quiet nodes weigh as much as busy ones; never stored, because 20 newer ones came first, counts as infinitely late). Posts counted: those created in the window; "never stored": more than 20 new between two reads of their node, or not read by the end of the tail. Peers: the live nodes of the largest gossip run, with the trust one node had in them at its end, and the posting rates of the follow-graph model.',
        `Measured on this machine: one crawl of a peer (read + 20 copies stored) ${cal.crawlMs.toFixed(0)} ms.`,
      ],
    },
  );
}

async function writeDelivery(
  dir: string,
  results: DeliverySimResult[],
  cal: Calibration,
  config: SwarmSimConfig,
) {
  await writeTable(
    dir,
    'swarm-sim-delivery',
    `Swarm simulation: one post to ${num(config.deliveryFollowers)} follower nodes`,
    {
      intro:
        'One outbox worker with its defaults; batch time from real pushes measured on this machine. Minutes of simulated time.',
      columns: [
        'down',
        'down nodes',
        'pushed / polled',
        'push attempts',
        'batches',
        'half the nodes, min',
        'every node up, min',
        'every node, min',
      ],
      align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
      rows: results.map((r) => [
        r.down === 0
          ? 'none'
          : r.downMode === 'refused'
            ? '10 %, connection refused'
            : '10 %, hanging (peer timeout)',
        String(r.down),
        `${num(r.deliveries)} / ${num(r.polled)}`,
        num(r.attempts),
        num(r.batches),
        num(r.medianMin, 1),
        num(r.allUpMin, 1),
        num(r.allMin, 1),
      ]),
      data: results,
      notes: [
        `Pushes go to at most POST_PUSH_MAX_NODES follower nodes (most followers first); the others get the post at their next poll of its author (every ${num(results[0]?.pollIntervalMin ?? 0, 1)} min for someone who posted today, by the poller's policy; a random phase per node). Measured: one real push received and stored ${cal.pushMs.toFixed(1)} ms, 20 at once ${cal.pushBatch20Ms.toFixed(0)} ms (both ends in this process), plus a ${config.rttMs} ms round trip per batch (SIM_RTT_MS). Down nodes come back after ${config.downMinutes} min (SIM_DOWN_MIN); until then every attempt fails and is retried on the delivery policy's schedule.`,
      ],
    },
  );
}
