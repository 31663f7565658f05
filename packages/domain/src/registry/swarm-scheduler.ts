import type { Db } from '@swarm/db';
import type { NodeContext } from '../node-context.ts';
import type { GossipReport, RelayCheckReport } from './gossip.service.ts';
import type { ContactReport } from './registry.service.ts';

/** Jitter of the gossip interval: ±20 %, so nodes started together drift apart. */
export const GOSSIP_JITTER = 0.2;

/** Postgres advisory lock key for a background round ("SWRM" in ASCII). */
export const ROUND_LOCK_KEY = 0x5357524d;

export interface RoundReport {
  /** True when another process (or an overlapping call) was running a round: nothing was done. */
  skipped: boolean;
  /** Re-probes of due nodes (inactive ones on their backoff, fresh hints). */
  probes: ContactReport[];
  /** Announcements to seeds, made only when no active peer was known. */
  announced: ContactReport[];
  gossip: GossipReport[];
  /** Relayed handle entries checked with their own nodes after the exchanges. */
  relayed: RelayCheckReport;
}

const NO_RELAY_CHECKS: RelayCheckReport = {
  checked: 0,
  accepted: 0,
  refused: 0,
  failed: 0,
  pending: 0,
};

export interface SwarmScheduler {
  /** Seeds from the configuration, an announce to seeds and active nodes, then rounds on a timer. */
  start(): void;
  /** Stops the timer and waits for work in flight. */
  stop(): Promise<void>;
  /** One background round now (what the timer runs): tests call this instead of waiting. */
  runOnce(): Promise<RoundReport>;
  /** The start-up announcement: configured seeds stored, then seeds by priority, then known active nodes. */
  announce(): Promise<ContactReport[]>;
  /** Waits until the work started so far (start-up announce, timer rounds) has finished. */
  processAll(): Promise<void>;
}

export interface SwarmSchedulerDeps {
  node: Pick<NodeContext, 'config' | 'db' | 'logger' | 'registry' | 'gossip'>;
  /** [0, 1) for the jitter; injectable for tests. */
  random?: () => number;
}

/** Rounds in progress per database object: replicas in one process (tests) share it. */
const localRounds = new WeakSet<object>();

/**
 * Runs `fn` unless a round is already running against the same database. Across processes that
 * is a Postgres transaction-scoped advisory lock held for the round (released when the
 * transaction ends, even if the process dies). PGlite is opened by one process only, so the
 * in-process guard is the whole lock there (a transaction held open would also block PGlite's
 * single connection for the round's own queries).
 */
export async function withRoundLock<T>(
  db: Db,
  fn: () => Promise<T>,
): Promise<{ ran: true; value: T } | { ran: false }> {
  if (localRounds.has(db)) return { ran: false };
  localRounds.add(db);
  try {
    if (db.kind !== 'postgres') return { ran: true, value: await fn() };
    return await db.prisma.$transaction(
      async (tx) => {
        const rows = await tx.$queryRaw<{ locked: boolean }[]>`
          SELECT pg_try_advisory_xact_lock(${ROUND_LOCK_KEY}::bigint) AS locked`;
        if (!rows[0]?.locked) return { ran: false as const };
        return { ran: true as const, value: await fn() };
      },
      { maxWait: 10_000, timeout: 10 * 60_000 },
    );
  } finally {
    localRounds.delete(db);
  }
}

export function createSwarmScheduler(deps: SwarmSchedulerDeps): SwarmScheduler {
  const { node } = deps;
  const random = deps.random ?? Math.random;
  const inFlight = new Set<Promise<unknown>>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;

  function track<T>(work: Promise<T>): Promise<T> {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work)).catch(() => undefined);
    return work;
  }

  async function announce(): Promise<ContactReport[]> {
    await node.registry.ensureSeeds(node.config.seeds);
    const seeds = await node.registry.announceToSeeds();
    const active = await node.registry.announceToActive();
    const reports = [...seeds, ...active];
    node.logger.info(
      { ok: reports.filter((r) => r.ok).length, failed: reports.filter((r) => !r.ok).length },
      'announced to seeds and known nodes',
    );
    return reports;
  }

  async function runOnce(): Promise<RoundReport> {
    const outcome = await withRoundLock(node.db, async () => {
      const probes = await node.registry.probeDue();
      // Without any active peer the mesh is out of reach: go back to the seeds.
      const announced =
        (await node.registry.activePeers()).length === 0
          ? await node.registry.announceToSeeds()
          : [];
      const gossip = await node.gossip.round();
      const relayed = await node.gossip.verifyRelayed();
      return { skipped: false, probes, announced, gossip, relayed };
    });
    if (!outcome.ran) {
      return { skipped: true, probes: [], announced: [], gossip: [], relayed: NO_RELAY_CHECKS };
    }
    const { gossip } = outcome.value;
    node.logger.debug(
      {
        peers: gossip.map((g) => ({ peer: g.domain, ok: g.ok, ms: g.ms })),
        probes: outcome.value.probes.length,
        relayed: outcome.value.relayed,
      },
      'gossip round',
    );
    return outcome.value;
  }

  function schedule() {
    const base = node.config.gossipIntervalMs;
    const delay = Math.round(base * (1 - GOSSIP_JITTER + 2 * GOSSIP_JITTER * random()));
    timer = setTimeout(() => {
      timer = undefined;
      void track(runOnce())
        .catch((err: unknown) => node.logger.error({ err }, 'gossip round failed'))
        .finally(() => {
          if (running) schedule();
        });
    }, delay);
    timer.unref?.();
  }

  return {
    start() {
      if (running) return;
      running = true;
      void track(
        announce().catch((err: unknown) => node.logger.error({ err }, 'start-up announce failed')),
      );
      schedule();
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await this.processAll();
    },
    runOnce: () => track(runOnce()),
    announce: () => track(announce()),
    async processAll() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
