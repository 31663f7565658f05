import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { reportJobFailure, type FailureLog } from '../ops/failure-log.ts';
import type { NodeMetrics } from '../ops/metrics.ts';
import type { GossipReport, GossipService, RelayCheckReport } from './gossip.service.ts';
import type { ContactReport, RegistryService } from './registry.service.ts';
import { tryAdvisoryXactLockSql } from '../persistence/ops.sql.ts';

/** Jitter of the gossip interval: ±20 %, so nodes started together drift apart. */
export const GOSSIP_JITTER = 0.2;

/** Postgres advisory lock key for a background round ("SWRM" in ASCII). */
export const ROUND_LOCK_KEY = 0x5357524d;

/**
 * Each round leaves one `swarm_sync_logs` row with this node's own domain as `remote_domain`
 * (the round's start, its totals and duration; an unfinished round keeps this error message).
 * A timer tick reads the newest: when another replica on the same database started a round less
 * than one interval ago, the tick does nothing. A process's own rounds follow its own jittered
 * timer, so replicas together run rounds as often as one process would.
 */
export const ROUND_IN_PROGRESS = 'round in progress (or its process stopped)';

export interface RoundReport {
  /**
   * True when nothing was done: another round was running (another process, or an overlapping
   * call), or, for a timer tick, another replica started one less than an interval ago.
   */
  skipped: boolean;
  /** Why it was skipped, for logs: "another round is running" or "another replica ran a round at <time>". */
  skipReason?: string;
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
  /** One background round now, however recent the last one (tests, admin): never overlapping. */
  runOnce(): Promise<RoundReport>;
  /**
   * What the timer runs: a round, unless one is running or another replica on this database
   * started one less than `gossipIntervalMs` ago. Tests call it with an injected clock.
   */
  tick(): Promise<RoundReport>;
  /** The start-up announcement: configured seeds stored, then seeds by priority, then known active nodes. */
  announce(): Promise<ContactReport[]>;
  /** Waits until the work started so far (start-up announce, timer rounds) has finished. */
  processAll(): Promise<void>;
}

export interface SwarmSchedulerDeps {
  /** The services and ports it uses (the node context fits). */
  node: {
    config: Pick<NodeConfig, 'domain' | 'seeds' | 'gossipIntervalMs'>;
    db: Db;
    clock: Clock;
    logger: Logger;
    registry: Pick<
      RegistryService,
      'ensureSeeds' | 'announceToSeeds' | 'announceToActive' | 'probeDue' | 'activePeers'
    >;
    gossip: Pick<GossipService, 'round' | 'verifyRelayed'>;
    metrics?: Pick<NodeMetrics, 'observeGossipRound'>;
    failures?: FailureLog;
  };
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
        const rows = await tx.$queryRaw<{ locked: boolean }[]>(
          tryAdvisoryXactLockSql(ROUND_LOCK_KEY),
        );
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
  /** The round row this process wrote last: its own rounds never hold back its timer. */
  let ownLastRound: string | undefined;

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

  const skippedReport = (skipReason: string): RoundReport => ({
    skipped: true,
    skipReason,
    probes: [],
    announced: [],
    gossip: [],
    relayed: NO_RELAY_CHECKS,
  });

  /** The newest round any replica recorded (see ROUND_IN_PROGRESS). */
  function lastRound() {
    return node.db.prisma.swarmSyncLog.findFirst({
      where: { remoteDomain: node.config.domain, direction: 'push' },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: { id: true, createdAt: true },
    });
  }

  /** Probes, seed fallback, gossip exchanges, relayed-handle checks. */
  async function roundWork(): Promise<RoundReport> {
    const probes = await node.registry.probeDue();
    // Without any active peer the mesh is out of reach: go back to the seeds.
    const announced =
      (await node.registry.activePeers()).length === 0 ? await node.registry.announceToSeeds() : [];
    const gossip = await node.gossip.round();
    const relayed = await node.gossip.verifyRelayed();
    return { skipped: false, probes, announced, gossip, relayed };
  }

  /** A round, counted in the metrics (`swarm_gossip_rounds_total`, its duration, exchanges). */
  async function round(spaced: boolean): Promise<RoundReport> {
    const started = performance.now();
    try {
      const report = await lockedRound(spaced);
      node.metrics?.observeGossipRound(
        report.skipped
          ? { result: 'skipped' }
          : {
              result: 'ok',
              seconds: (performance.now() - started) / 1000,
              exchanges: report.gossip,
            },
      );
      return report;
    } catch (err) {
      node.metrics?.observeGossipRound({
        result: 'failed',
        seconds: (performance.now() - started) / 1000,
      });
      throw err;
    }
  }

  async function lockedRound(spaced: boolean): Promise<RoundReport> {
    const { prisma } = node.db;
    const outcome = await withRoundLock(node.db, async (): Promise<RoundReport> => {
      const startedAt = node.clock.now();
      if (spaced) {
        // Under the lock, so two replicas cannot both find the last round old enough.
        const last = await lastRound();
        if (
          last &&
          last.id !== ownLastRound &&
          startedAt.getTime() - last.createdAt.getTime() < node.config.gossipIntervalMs
        ) {
          return skippedReport(`another replica ran a round at ${last.createdAt.toISOString()}`);
        }
      }
      const started = performance.now();
      const record = await prisma.swarmSyncLog.create({
        data: {
          remoteDomain: node.config.domain,
          direction: 'push',
          success: false,
          errorMessage: ROUND_IN_PROGRESS,
          durationMs: 0,
          createdAt: startedAt,
        },
        select: { id: true },
      });
      ownLastRound = record.id;
      try {
        const report = await roundWork();
        const total = (key: 'nodesSent' | 'nodesReceived' | 'handlesSent' | 'handlesReceived') =>
          report.gossip.reduce((sum, g) => sum + g[key], 0);
        await prisma.swarmSyncLog.update({
          where: { id: record.id },
          data: {
            success: true,
            errorMessage: null,
            durationMs: Math.round(performance.now() - started),
            nodesSent: total('nodesSent'),
            nodesReceived: total('nodesReceived'),
            handlesSent: total('handlesSent'),
            handlesReceived: total('handlesReceived'),
          },
        });
        return report;
      } catch (err) {
        await prisma.swarmSyncLog
          .update({
            where: { id: record.id },
            data: {
              errorMessage: err instanceof Error ? err.message : String(err),
              durationMs: Math.round(performance.now() - started),
            },
          })
          .catch(() => undefined);
        throw err;
      }
    });
    const report = outcome.ran ? outcome.value : skippedReport('another round is running');
    if (report.skipped) {
      node.logger.debug({ reason: report.skipReason }, 'gossip round skipped');
      return report;
    }
    node.logger.debug(
      {
        peers: report.gossip.map((g) => ({ peer: g.domain, ok: g.ok, ms: g.ms })),
        probes: report.probes.length,
        relayed: report.relayed,
      },
      'gossip round',
    );
    return report;
  }

  function schedule() {
    const base = node.config.gossipIntervalMs;
    const delay = Math.round(base * (1 - GOSSIP_JITTER + 2 * GOSSIP_JITTER * random()));
    timer = setTimeout(() => {
      timer = undefined;
      void track(round(true))
        .catch((err: unknown) => reportJobFailure(node, 'gossip round failed', err))
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
    runOnce: () => track(round(false)),
    tick: () => track(round(true)),
    announce: () => track(announce()),
    async processAll() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
