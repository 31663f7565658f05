import {
  createDeliveryWorker,
  createSwarmScheduler,
  type DeliveryWorker,
  transportFromFetch,
  type RoundReport,
  type SwarmScheduler,
} from '@swarm/domain';
import { createManualClock, type ManualClock } from './manual-clock.ts';
import {
  createTestNode,
  type GatewayApp,
  type GatewayAppFactory,
  type TestNode,
} from './test-node.ts';

// N gateways in one process, each with its own database, connected by an in-process network
// that routes each domain to its node's app and can break any node's link. No sockets, no
// sleeps except the (short) peer timeout that models a hung peer.

/** The admin token of every node in a test network. */
export const TEST_NETWORK_ADMIN_TOKEN = 'test-network-admin-token-0123456789';

/**
 * Peer timeout inside a test network: a hung peer costs this much real time instead of 5 s. Not
 * shorter: a real in-process exchange (signature checks, key fetch, PGlite writes) takes 50-300 ms
 * and more on a loaded CI machine; a spurious timeout would make tests flaky.
 */
export const TEST_NETWORK_PEER_TIMEOUT_MS = 2_000;

/** A public address, so the SSRF guard lets `*.test` domains through. */
const PUBLIC_ADDRESS = '93.184.216.34';

export interface TestNetworkNodeSpec {
  domain: string;
  /** Extra environment for this node (the network sets SWARM_DOMAIN, SWARM_SEEDS, ADMIN_TOKEN). */
  env?: Record<string, string>;
  /** Seeds of this node (SWARM_SEEDS). */
  seeds?: string[];
  /** Local users created on this node (handle, did), to be spread through the registry. */
  handles?: string[];
  /** This node's own clock instead of the network's shared one. */
  clock?: ManualClock;
}

export interface TestNetworkOptions<App extends GatewayApp = GatewayApp> {
  /** Builds each node's gateway app (the gateway's `createGatewayApp`). */
  app: GatewayAppFactory<App>;
  nodes?: TestNetworkNodeSpec[];
  /** The shared clock (default: a fresh manual clock). */
  clock?: ManualClock;
  /** Environment applied to every node, below each node's own `env`. */
  env?: Record<string, string>;
  peerTimeoutMs?: number;
  /** Record body sizes in `network.requests` (benchmarks: bytes per gossip round). */
  countBytes?: boolean;
}

export interface NetworkNode<App extends GatewayApp = GatewayApp> extends TestNode<App> {
  domain: string;
  scheduler: SwarmScheduler;
  /** The node's outbox worker; `processAll` drains it on every live node. */
  delivery: DeliveryWorker;
  /** The users created from the spec's `handles`, with their dids. */
  users: { handle: string; did: string }[];
}

/**
 * What the network does to requests addressed to a domain:
 * - `drop`: connection refused (the node is dead: it also stops running rounds);
 * - `hang`: never answers, the caller's peer timeout fires;
 * - `status`: answers this HTTP status (e.g. 503) with a plain-text body;
 * - `garbage`: answers 200 with this body (not JSON, or JSON of the wrong shape);
 * - `delay`: answers after `ms` of simulated time. When `ms` reaches the peer timeout the
 *   caller gives up first (modelled as `hang`); otherwise the shared manual clock is advanced
 *   by `ms` before the answer is delivered, so the delay is visible in timestamps only (no
 *   real waiting; concurrent requests are not interleaved by it).
 */
export type LinkFault =
  | { kind: 'drop' }
  | { kind: 'hang' }
  | { kind: 'status'; status: number }
  | { kind: 'garbage'; body: string }
  | { kind: 'delay'; ms: number };

export interface NetworkControl {
  drop(domain: string): void;
  hang(domain: string): void;
  fail5xx(domain: string, status?: number): void;
  garbage(domain: string, body?: string): void;
  delay(domain: string, ms: number): void;
  heal(domain: string): void;
  /** `heal` for every domain: no link fault left (message loss stays as `loss` set it). */
  healAll(): void;
  faultOf(domain: string): LinkFault | undefined;
  /**
   * Message loss: from now on every request, to any domain, is refused with probability `rate`
   * (logged as fault `loss`). `loss(0)` ends it.
   */
  loss(rate: number, random?: () => number): void;
  /** Requests addressed to each domain so far (all of them, whatever their fate). */
  requests: NetworkRequest[];
}

export interface NetworkRequest {
  domain: string;
  method: string;
  path: string;
  fault: LinkFault['kind'] | 'loss' | null;
  /** Body bytes sent and answered (only with `countBytes`; 0 when nothing was answered). */
  requestBytes?: number;
  responseBytes?: number;
}

export interface TestNetwork<App extends GatewayApp = GatewayApp> {
  clock: ManualClock;
  nodes: NetworkNode<App>[];
  node(domain: string): NetworkNode<App>;
  network: NetworkControl;
  peerTimeoutMs: number;
  /** Adds a node to the running network (e.g. a newcomer joining through another node). */
  add(spec: TestNetworkNodeSpec): Promise<NetworkNode<App>>;
  /** Nodes that take part: no fault, or a delay shorter than the peer timeout. */
  live(): NetworkNode<App>[];
  /** The start-up announcement of every live node, one after the other. */
  announceAll(): Promise<Map<string, Awaited<ReturnType<SwarmScheduler['announce']>>>>;
  /** One background round (probes, seed fallback, gossip) on every live node, in order. */
  round(): Promise<Map<string, RoundReport>>;
  /** Rounds (each followed by `advanceMs` on the clock, default 60 s) until converged; the count or Infinity. */
  roundsUntilConverged(maxRounds: number, advanceMs?: number): Promise<number>;
  /**
   * Waits for the background work every node's scheduler has started, then drains the outbox of
   * every live node: each delivery due on the clock is attempted (advance the clock for retries).
   */
  processAll(): Promise<void>;
  /** Every live node knows every other live node (verified, active) and all their handles. */
  converged(): Promise<boolean>;
  close(): Promise<void>;
}

/** The domains of the two nodes of `createTwoNodes`. */
export const ALPHA = 'alpha.test';
export const BETA = 'beta.test';

export interface TwoNodes<App extends GatewayApp = GatewayApp> {
  net: TestNetwork<App>;
  alpha: NetworkNode<App>;
  beta: NetworkNode<App>;
}

/**
 * The network most swarm tests run on: alpha.test and beta.test, `alpha` and `beta` being the
 * rest of each node's spec (handles, seeds, env).
 */
export async function createTwoNodes<App extends GatewayApp>(
  options: Omit<TestNetworkOptions<App>, 'nodes'> & {
    alpha?: Omit<TestNetworkNodeSpec, 'domain'>;
    beta?: Omit<TestNetworkNodeSpec, 'domain'>;
  },
): Promise<TwoNodes<App>> {
  const { alpha, beta, ...rest } = options;
  const net = await createTestNetwork({
    ...rest,
    nodes: [
      { ...alpha, domain: ALPHA },
      { ...beta, domain: BETA },
    ],
  });
  return { net, alpha: net.node(ALPHA), beta: net.node(BETA) };
}

/** The did the network gives a spec's handle on its node (`users` of a network node). */
export function didFor(handle: string, domain: string): string {
  return `did:key:zDnTest${handle}${domain.replace(/[^A-Za-z0-9]/g, '')}`;
}

function refused(domain: string): Error {
  return Object.assign(new Error(`connect ECONNREFUSED (${domain})`), { code: 'ECONNREFUSED' });
}

/** Never resolves; rejects when the caller aborts (its timeout), so nothing is left dangling. */
function never(signal: AbortSignal): Promise<Response> {
  return new Promise((_resolve, reject) => {
    const abort = () =>
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  });
}

export async function createTestNetwork<App extends GatewayApp>(
  options: TestNetworkOptions<App>,
): Promise<TestNetwork<App>> {
  const clock = options.clock ?? createManualClock();
  const peerTimeoutMs = options.peerTimeoutMs ?? TEST_NETWORK_PEER_TIMEOUT_MS;
  const nodes: NetworkNode<App>[] = [];
  const byDomain = new Map<string, NetworkNode<App>>();
  const faults = new Map<string, LinkFault>();
  const requests: NetworkRequest[] = [];
  let loss = { rate: 0, random: Math.random };

  const effective = (domain: string): LinkFault | undefined => {
    const fault = faults.get(domain);
    return fault?.kind === 'delay' && fault.ms >= peerTimeoutMs ? { kind: 'hang' } : fault;
  };

  const transport = transportFromFetch(async (request) => {
    const url = new URL(request.url);
    const domain = url.host;
    const fault = effective(domain);
    const lost = loss.rate > 0 && loss.random() < loss.rate;
    const entry: NetworkRequest = {
      domain,
      method: request.method,
      path: url.pathname,
      fault: lost ? 'loss' : (fault?.kind ?? null),
    };
    requests.push(entry);
    if (options.countBytes) {
      entry.requestBytes = (await request.clone().arrayBuffer()).byteLength;
      entry.responseBytes = 0;
    }
    const target = byDomain.get(domain);
    if (!target || lost || fault?.kind === 'drop') throw refused(domain);
    if (!options.countBytes) return deliver(request, target, fault);
    const response = await deliver(request, target, fault);
    entry.responseBytes = (await response.clone().arrayBuffer()).byteLength;
    return response;
  });

  async function deliver(
    request: Request,
    target: NetworkNode<App>,
    fault: LinkFault | undefined,
  ): Promise<Response> {
    switch (fault?.kind) {
      case 'hang':
        return never(request.signal);
      case 'status':
        return new Response('Service Unavailable', {
          status: fault.status,
          headers: { 'content-type': 'text/plain' },
        });
      case 'garbage':
        return new Response(fault.body, {
          status: 200,
          headers: { 'content-type': 'application/json' },
        });
      case 'delay':
        clock.advance(fault.ms);
        return target.app.fetch(request);
      default:
        return target.app.fetch(request);
    }
  }

  async function add(spec: TestNetworkNodeSpec): Promise<NetworkNode<App>> {
    if (byDomain.has(spec.domain)) throw new Error(`test network: ${spec.domain} exists`);
    const t = await createTestNode(
      {
        SWARM_RATE_LIMIT_PER_MIN: '1000000',
        ...options.env,
        ...spec.env,
        SWARM_DOMAIN: spec.domain,
        SWARM_SEEDS: (spec.seeds ?? []).join(','),
        ADMIN_TOKEN: TEST_NETWORK_ADMIN_TOKEN,
      },
      {
        transport,
        resolveHost: async () => [PUBLIC_ADDRESS],
        clock: spec.clock ?? clock,
        peerTimeoutMs,
        app: options.app,
      },
    );
    const users = (spec.handles ?? []).map((handle) => ({
      handle,
      did: didFor(handle, spec.domain),
    }));
    for (const user of users) {
      await t.node.db.prisma.user.create({
        data: { ...user, displayName: user.handle, passwordHash: 'x' },
      });
    }
    const member: NetworkNode<App> = {
      ...t,
      domain: spec.domain,
      scheduler: createSwarmScheduler({ node: t.node }),
      delivery: createDeliveryWorker({ node: t.node }),
      users,
    };
    nodes.push(member);
    byDomain.set(spec.domain, member);
    return member;
  }

  const live = () =>
    nodes.filter((n) => {
      const fault = effective(n.domain);
      return fault === undefined || fault.kind === 'delay';
    });

  async function knows(m: NetworkNode<App>, others: NetworkNode<App>[]): Promise<boolean> {
    const prisma = m.node.db.prisma;
    const domains = others.map((o) => o.domain);
    const active = await prisma.swarmNode.count({
      where: { domain: { in: domains }, isVerified: true, isActive: true },
    });
    if (active !== domains.length) return false;
    const wanted = others.flatMap((o) => o.users.map((u) => ({ ...u, nodeDomain: o.domain })));
    if (wanted.length === 0) return true;
    const entries = await prisma.handleRegistryEntry.findMany({
      where: { handle: { in: wanted.map((w) => w.handle) } },
      select: { handle: true, nodeDomain: true, did: true },
    });
    const have = new Set(entries.map((e) => `${e.handle}@${e.nodeDomain}=${e.did}`));
    return wanted.every((w) => have.has(`${w.handle}@${w.nodeDomain}=${w.did}`));
  }

  const testNetwork: TestNetwork<App> = {
    clock,
    nodes,
    peerTimeoutMs,
    node(domain) {
      const found = byDomain.get(domain);
      if (!found) throw new Error(`test network: no node ${domain}`);
      return found;
    },
    network: {
      drop: (domain) => {
        faults.set(domain, { kind: 'drop' });
      },
      hang: (domain) => {
        faults.set(domain, { kind: 'hang' });
      },
      fail5xx: (domain, status = 503) => {
        if (status < 500 || status > 599) throw new RangeError(`not a 5xx status: ${status}`);
        faults.set(domain, { kind: 'status', status });
      },
      garbage: (domain, body = '<html>not json</html>') => {
        faults.set(domain, { kind: 'garbage', body });
      },
      delay: (domain, ms) => {
        faults.set(domain, { kind: 'delay', ms });
      },
      heal: (domain) => {
        faults.delete(domain);
      },
      healAll: () => {
        faults.clear();
      },
      faultOf: (domain) => faults.get(domain),
      loss: (rate, random = Math.random) => {
        if (!(rate >= 0 && rate < 1)) throw new RangeError(`not a loss rate: ${rate}`);
        loss = { rate, random };
      },
      requests,
    },
    add,
    live,
    async announceAll() {
      const reports = new Map<string, Awaited<ReturnType<SwarmScheduler['announce']>>>();
      for (const m of live()) reports.set(m.domain, await m.scheduler.announce());
      return reports;
    },
    async round() {
      const reports = new Map<string, RoundReport>();
      for (const m of live()) reports.set(m.domain, await m.scheduler.runOnce());
      return reports;
    },
    async roundsUntilConverged(maxRounds, advanceMs = 60_000) {
      for (let round = 1; round <= maxRounds; round++) {
        await testNetwork.round();
        clock.advance(advanceMs);
        if (await testNetwork.converged()) return round;
      }
      return Number.POSITIVE_INFINITY;
    },
    async processAll() {
      await Promise.all(nodes.map((m) => m.scheduler.processAll()));
      await Promise.all(live().map((m) => m.delivery.processAll()));
    },
    async converged() {
      const alive = live();
      for (const m of alive) {
        if (
          !(await knows(
            m,
            alive.filter((o) => o !== m),
          ))
        )
          return false;
      }
      return true;
    },
    async close() {
      for (const m of nodes) {
        await m.scheduler.stop();
        await m.delivery.stop();
        await m.close();
      }
    },
  };

  for (const spec of options.nodes ?? []) await add(spec);
  return testNetwork;
}
