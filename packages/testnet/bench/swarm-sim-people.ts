import { POLL_POLICY, POST_PUSH_MAX_NODES, intervalAfterSuccess } from '@swarm/domain';
import { normal, prng, zipf, zipfShares } from './swarm-sim-model.ts';

// The people of the simulated swarm and who follows whom (all modelled, sizes from the
// environment), and what the follow graph costs each node in polls and pushes an hour, with the
// poll intervals of the domain's own `intervalAfterSuccess` (remote-posts/poller-policy.ts).
//
// - People per node: Zipf-shaped (exponent `nodeZipf`), at least `minPeople` each.
// - Posting: a share `silentShare` never posts; the others post at a log-normal rate (median
//   `postsPerDay`, σ = 1.2), top-level and public.
// - Follows: each person follows a log-normal number of people (mean `followsMean`, σ = 1); whom
//   is drawn by popularity, Zipf (exponent `followZipf`) over all people, popularity independent
//   of the node. A follow of someone on the same node costs no request.

export interface PeopleOptions {
  nodes: number;
  people: number;
  nodeZipf: number;
  minPeople: number;
  silentShare: number;
  postsPerDay: number;
  followsMean: number;
  followZipf: number;
  seed: number;
}

export interface People {
  /** People per node, and the first person of each node (people are numbered by node). */
  perNode: Int32Array;
  firstOf: Int32Array;
  nodeOf: Int32Array;
  /** Posts per hour of each person. */
  rate: Float64Array;
  /** Per node: posts per hour of all its people. */
  nodeRate: Float64Array;
  /** Per person: how many other nodes follow them. */
  followerNodes: Int32Array;
  /** Per node: how many distinct people on other nodes its people follow (its poll rows). */
  remoteFollowees: Int32Array;
  /** Per node: polls an hour, and pushes received an hour, over its remote followees. */
  pollsPerHour: Float64Array;
  pushesInPerHour: Float64Array;
  /** Per node: pushes its outbox sends an hour (one per post per follower node, at most 100). */
  pushesOutPerHour: Float64Array;
  follows: number;
  seconds: number;
}

export function makePeople(o: PeopleOptions): People {
  const started = performance.now();
  const random = prng(o.seed);
  const perNode = Int32Array.from(zipfShares(o.people, o.nodes, o.nodeZipf, o.minPeople));
  const firstOf = new Int32Array(o.nodes);
  const nodeOf = new Int32Array(o.people);
  for (let i = 0, p = 0; i < o.nodes; i++) {
    firstOf[i] = p;
    for (let k = 0; k < perNode[i]!; k++) nodeOf[p++] = i;
  }
  const rate = new Float64Array(o.people);
  const nodeRate = new Float64Array(o.nodes);
  for (let p = 0; p < o.people; p++) {
    if (random() < o.silentShare) continue;
    rate[p] = (o.postsPerDay * Math.exp(1.2 * normal(random))) / 24;
    nodeRate[nodeOf[p]!]! += rate[p]!;
  }
  // Popularity rank → person, shuffled so that popularity does not follow the node.
  const byRank = Int32Array.from({ length: o.people }, (_, k) => k);
  for (let k = o.people - 1; k > 0; k--) {
    const r = Math.floor(random() * (k + 1));
    [byRank[k], byRank[r]] = [byRank[r]!, byRank[k]!];
  }
  const marker = new Int32Array(o.people).fill(-1);
  const followerNodes = new Int32Array(o.people);
  const remoteFollowees = new Int32Array(o.nodes);
  const pollsPerHour = new Float64Array(o.nodes);
  const pushesInPerHour = new Float64Array(o.nodes);
  const table = pollTable();
  /** Every node's distinct remote followees, drawn again from the same seed for each pass. */
  const eachFollow = (fn: (node: number, author: number) => void) => {
    const again = prng(o.seed + 1);
    const draw = zipf(o.people, o.followZipf, again);
    marker.fill(-1);
    let follows = 0;
    for (let i = 0; i < o.nodes; i++) {
      for (let p = firstOf[i]!; p < firstOf[i]! + perNode[i]!; p++) {
        const count = Math.min(5_000, Math.round(o.followsMean * Math.exp(normal(again) - 0.5)));
        follows += count;
        for (let f = 0; f < count; f++) {
          const a = byRank[draw()]!;
          if (nodeOf[a] === i || marker[a] === i) continue;
          marker[a] = i;
          fn(i, a);
        }
      }
    }
    return follows;
  };
  const follows = eachFollow((i, a) => {
    followerNodes[a]! += 1;
    remoteFollowees[i]! += 1;
    pollsPerHour[i]! += table(rate[a]!);
  });
  // Pushes: a post goes to at most POST_PUSH_MAX_NODES of its author's follower nodes (those
  // with most followers first; here each follower node's expected share), the rest poll.
  eachFollow((i, a) => {
    pushesInPerHour[i]! += rate[a]! * Math.min(1, POST_PUSH_MAX_NODES / followerNodes[a]!);
  });
  const pushesOutPerHour = new Float64Array(o.nodes);
  for (let p = 0; p < o.people; p++) {
    pushesOutPerHour[nodeOf[p]!]! += rate[p]! * Math.min(followerNodes[p]!, POST_PUSH_MAX_NODES);
  }
  return {
    perNode,
    firstOf,
    nodeOf,
    rate,
    nodeRate,
    followerNodes,
    remoteFollowees,
    pollsPerHour,
    pushesInPerHour,
    pushesOutPerHour,
    follows,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * Polls an hour of one followed person who posts `perHour` posts an hour (Poisson), in steady
 * state under the poller's policy: the mean of a simulated week, precomputed on a log scale of
 * rates and read by the nearest one.
 */
export function pollTable(): (perHour: number) => number {
  const random = prng(7);
  const rates = [0, ...Array.from({ length: 41 }, (_, k) => 10 ** (-4 + k / 10))]; // 1e-4 … 1e0
  const week = 7 * 24 * 60 * 60_000;
  const polls = rates.map((r) => {
    let now = 0;
    let interval: number = POLL_POLICY.initialMs;
    let newest: number | null = null;
    let nextPost = r > 0 ? (-Math.log(1 - random()) / r) * 3_600_000 : Infinity;
    let count = 0;
    while (now < week) {
      now += interval;
      count++;
      let fresh = 0;
      while (nextPost <= now) {
        fresh++;
        newest = nextPost;
        nextPost += (-Math.log(1 - random()) / r) * 3_600_000;
      }
      interval = intervalAfterSuccess({
        intervalMs: interval,
        newPosts: fresh,
        newestPostAt: newest === null ? null : new Date(newest),
        now: new Date(now),
      });
    }
    return count / (week / 3_600_000);
  });
  return (perHour) => {
    if (perHour <= 0) return polls[0]!;
    const k = Math.round((Math.log10(perHour) + 4) * 10);
    return polls[1 + Math.max(0, Math.min(40, k))]!;
  };
}
