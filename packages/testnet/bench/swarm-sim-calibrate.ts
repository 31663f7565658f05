import { randomUUID } from 'node:crypto';
import { SWARM_PATHS, formatTimestamp, signUserAction } from '@swarm/contract';
import {
  ALPHA,
  BETA,
  createTestNetwork,
  sessionUserByHandle,
  signedInCaller,
  type TestNetwork,
} from '../test/harness.ts';
import { createInteractionPair } from '../test/interactions-harness.ts';

// The simulation's per-request costs, measured on real nodes of this workspace: two in-process
// test nodes (own gateway and PGlite each, requests as real HTTP requests routed in memory).
// Milliseconds are wall time on this machine, both ends in one process; bytes are the bodies.

export interface Calibration {
  /** One gossip exchange with nothing new (delta): wall ms, request + answer bytes. */
  gossipMs: number;
  emptyExchangeBytes: number;
  /** One node entry of a gossip page, from a real full exchange (bytes per entry). */
  nodeEntryBytes: number;
  /** One probe of `GET /api/swarm/info`. */
  probeMs: number;
  probeBytes: number;
  /** One crawl of a peer holding 20 posts: read + store of 20 copies (wall ms, answer bytes). */
  crawlMs: number;
  timelineBytes: number;
  /** One poll read `GET /api/swarm/users/{handle}?limit=20` of a person with 20 posts. */
  pollMs: number;
  pollBytes: number;
  /** One signed push `POST /api/swarm/inbox` received and stored; 20 at once (a batch). */
  pushMs: number;
  pushBatch20Ms: number;
  pushBytes: number;
}

/** A node with no seeds that knows alpha only: its crawl reads alpha alone. */
const READER = 'reader.test';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(times: number, fn: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let k = 0; k < times; k++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

function bodyBytes(net: TestNetwork, from: number, path: string) {
  const hits = net.network.requests.slice(from).filter((r) => r.path.startsWith(path));
  const total = hits.reduce((s, r) => s + (r.requestBytes ?? 0) + (r.responseBytes ?? 0), 0);
  return hits.length ? total / hits.length : 0;
}

/** Gossip, probe, crawl and poll costs on a network of two nodes (plus 30 that fill a gossip page, and a reader). */
async function networkCosts(log: (line: string) => void) {
  const extra = Array.from({ length: 30 }, (_, k) => `peer${String(k).padStart(2, '0')}.test`);
  const net = await createTestNetwork({
    countBytes: true,
    nodes: [
      { domain: ALPHA, handles: ['alice'] },
      { domain: BETA, handles: ['bob'] },
      { domain: READER, env: { SWARM_CRAWL_PER_MIN: '6000' } },
      ...extra.map((domain) => ({ domain, seeds: [BETA] })),
    ],
  });
  try {
    const alpha = net.node(ALPHA);
    await net.announceAll();
    log('  calibration: 32 nodes up');
    // A full exchange: beta knows the 30 extra nodes, alpha knows none of them.
    await alpha.node.registry.probe(BETA, 'admin');
    let from = net.network.requests.length;
    await alpha.node.gossip.exchangeWith(BETA);
    const fullBytes = bodyBytes(net, from, SWARM_PATHS.gossip);
    from = net.network.requests.length;
    const gossipMs = await timed(20, () => alpha.node.gossip.exchangeWith(BETA));
    const emptyExchangeBytes = bodyBytes(net, from, SWARM_PATHS.gossip);
    const nodeEntryBytes = (fullBytes - emptyExchangeBytes) / extra.length;
    from = net.network.requests.length;
    const probeMs = await timed(20, () => alpha.node.registry.probe(BETA, 'admin'));
    const probeBytes = bodyBytes(net, from, '/api/swarm/info');

    // Twenty posts on alpha; the reader crawls alpha (read + store 20 copies); alice's page as
    // the poller reads it.
    const alice = await sessionUserByHandle(alpha.node, 'alice');
    for (let k = 0; k < 20; k++) {
      await signedInCaller(alpha.node, alice).posts.create({
        content: `post ${k}: ${'a realistic sentence of a post, '.repeat(4)}`,
      });
    }
    const reader = net.node(READER);
    await reader.node.registry.probe(ALPHA, 'admin');
    const crawls: number[] = [];
    let timelineBytes = 0;
    for (let k = 0; k < 10; k++) {
      net.clock.advance(120_000);
      await reader.node.db.prisma.post.deleteMany({ where: { fetchedAt: { not: null } } });
      from = net.network.requests.length;
      const t = performance.now();
      const report = await reader.node.remoteContent.crawler.crawlDue();
      if (report.ok !== 1 || report.created !== 20) throw new Error('calibration: crawl missed');
      crawls.push(performance.now() - t);
      timelineBytes = Math.max(timelineBytes, bodyBytes(net, from, SWARM_PATHS.timeline));
    }
    const pollPath = `${SWARM_PATHS.user('alice')}?limit=20`;
    let pollBytes = 0;
    const pollMs = await timed(20, async () => {
      net.clock.advance(5_000); // past the read cache
      const res = await alpha.request(pollPath);
      pollBytes = (await res.arrayBuffer()).byteLength;
    });
    return {
      gossipMs,
      emptyExchangeBytes,
      nodeEntryBytes,
      probeMs,
      probeBytes,
      crawlMs: median(crawls),
      timelineBytes,
      pollMs,
      pollBytes,
    };
  } finally {
    await net.close();
  }
}

/** A signed push of a followed author's post, as beta would send it, received by alpha. */
async function pushCosts() {
  const pair = await createInteractionPair();
  try {
    const scene = await pair.scene();
    const alice = await sessionUserByHandle(pair.alpha.node, scene.alice);
    await signedInCaller(pair.alpha.node, alice).interactions.follow({
      address: `${scene.bob.handle}@${BETA}`,
    });
    const body = async () => {
      const post = {
        id: randomUUID(),
        content: `a post by ${scene.bob.handle}: ${'a realistic sentence of a post, '.repeat(4)}`,
        createdAt: formatTimestamp(pair.clock.now()),
        isNsfw: false,
      };
      const postSignature = await signUserAction({
        privateKey: scene.bob.privateKey,
        action: 'post',
        targetDomain: BETA,
        body: post,
      });
      return {
        post,
        author: { handle: scene.bob.handle, displayName: 'Bob', isNsfw: false, did: scene.bob.did },
        nodeDomain: BETA,
        timestamp: formatTimestamp(pair.clock.now()),
        postSignature,
      };
    };
    let pushBytes = 0;
    const pushMs = await timed(20, async () => {
      const b = await body();
      const res = await pair.send(SWARM_PATHS.inbox, b);
      if (res.status !== 200) throw new Error(`calibration push: HTTP ${res.status}`);
      pushBytes = JSON.stringify(b).length + (await res.arrayBuffer()).byteLength;
    });
    const pushBatch20Ms = await timed(3, async () => {
      const bodies = await Promise.all(Array.from({ length: 20 }, body));
      await Promise.all(bodies.map((b) => pair.send(SWARM_PATHS.inbox, b)));
    });
    return { pushMs, pushBatch20Ms, pushBytes };
  } finally {
    await pair.close();
  }
}

export async function calibrate(log: (line: string) => void): Promise<Calibration> {
  const network = await networkCosts(log);
  log(
    `  calibration: gossip ${network.gossipMs.toFixed(1)} ms, crawl ${network.crawlMs.toFixed(1)} ms`,
  );
  const push = await pushCosts();
  log(
    `  calibration: push ${push.pushMs.toFixed(1)} ms, 20 at once ${push.pushBatch20Ms.toFixed(0)} ms`,
  );
  return { ...network, ...push };
}
