import type { Db } from '@swarm/db';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../clock.ts';
import {
  nodesByStateSql,
  oldestDueDeliverySql,
  outboxByStatusSql,
} from '../persistence/ops.sql.ts';

/** Which half of the node answered a request (one process answers both in embedded mode). */
export type HttpService = 'gateway' | 'web';

type HttpLabels = 'service' | 'method' | 'route' | 'status';

/**
 * The node's Prometheus metrics: one registry per node context (tests run several nodes in one
 * process), the process defaults (memory, CPU, event-loop lag, GC) included. Counters are
 * updated where things happen; the database-backed gauges (outbox, registry, pool) are read
 * when scraped.
 */
export interface NodeMetrics {
  readonly registry: Registry;
  readonly contentType: string;
  /** Prometheus text exposition of everything. */
  text(): Promise<string>;
  /** One answered HTTP request; `route` is the route template, never the raw path. */
  observeRequest(labels: {
    service: HttpService;
    method: string;
    route: string;
    status: number;
    seconds: number;
  }): void;
  /** One delivery attempt from the outbox: delivered, retry (kept for later) or failed (final). */
  observeDelivery(result: 'delivered' | 'retry' | 'failed'): void;
  /** One gossip round: its duration, the exchanges it made and how many failed. */
  observeGossipRound(round: {
    result: 'ok' | 'failed' | 'skipped';
    seconds?: number;
    exchanges?: { ok: boolean }[];
  }): void;
  /** One background read of a peer by the poller or the crawler (skipped: blocked node). */
  observeRemoteRead(job: 'poll' | 'crawl', result: 'ok' | 'failed' | 'skipped'): void;
  /** Remote copies the retention sweep deleted: past their retention, or over the budget. */
  observeRemoteCopiesDeleted(reason: 'expired' | 'budget', count: number): void;
}

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** HTTP methods as labels: anything unusual collapses into OTHER (bounded label values). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const COLLECT_TIMEOUT_MS = 2_000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function createMetrics(deps: {
  db: Db;
  clock: Clock;
  /** Process metrics (memory, CPU, event loop, from the first scrape on); default true. */
  defaults?: boolean;
}): NodeMetrics {
  const { db, clock } = deps;
  const registry = new Registry();
  // Process metrics start with the first scrape: in-process test networks and benchmarks run
  // hundreds of node contexts, which should not each watch the event loop and the GC.
  let defaultsOn = deps.defaults === false;
  const registers = [registry];

  const httpRequests = new Counter<HttpLabels>({
    name: 'swarm_http_requests_total',
    help: 'HTTP requests answered, by service, method, route template and status.',
    labelNames: ['service', 'method', 'route', 'status'],
    registers,
  });
  const httpDuration = new Histogram<HttpLabels>({
    name: 'swarm_http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by service, method, route template and status.',
    labelNames: ['service', 'method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const deliveries = new Counter<'result'>({
    name: 'swarm_deliveries_total',
    help: 'Outbox delivery attempts by result: delivered, retry (kept for later), failed (final).',
    labelNames: ['result'],
    registers,
  });
  const gossipRounds = new Counter<'result'>({
    name: 'swarm_gossip_rounds_total',
    help: 'Gossip rounds by result: ok, failed (the round threw), skipped (another round ran).',
    labelNames: ['result'],
    registers,
  });
  const gossipDuration = new Histogram({
    name: 'swarm_gossip_round_duration_seconds',
    help: 'Duration of gossip rounds that ran (probes, exchanges, relayed-handle checks).',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const gossipExchanges = new Counter<'result'>({
    name: 'swarm_gossip_exchanges_total',
    help: 'Gossip exchanges with peers by result: ok or failed.',
    labelNames: ['result'],
    registers,
  });
  // Initialise the label sets a dashboard shows, so they exist (at 0) from the first scrape.
  for (const result of ['delivered', 'retry', 'failed']) deliveries.inc({ result }, 0);
  for (const result of ['ok', 'failed', 'skipped']) gossipRounds.inc({ result }, 0);
  for (const result of ['ok', 'failed']) gossipExchanges.inc({ result }, 0);

  const remoteReads = new Counter<'job' | 'result'>({
    name: 'swarm_remote_reads_total',
    help: 'Background reads of peers by the poller and the crawler, by result',
    labelNames: ['job', 'result'],
    registers,
  });
  const remoteCopiesDeleted = new Counter<'reason'>({
    name: 'swarm_remote_copies_deleted_total',
    help: 'Stored remote copies deleted by the retention sweep (expired, or over the budget)',
    labelNames: ['reason'],
    registers,
  });
  const databaseUp = new Gauge({
    name: 'swarm_database_up',
    help: '1 when the database answered the last scrape’s queries, 0 otherwise.',
    registers,
  });
  const outboxRows = new Gauge<'state'>({
    name: 'swarm_outbox_rows',
    help: 'Outbox deliveries by state (pending, delivered, failed, cancelled).',
    labelNames: ['state'],
    registers,
  });
  const outboxOldestDue = new Gauge({
    name: 'swarm_outbox_oldest_due_age_seconds',
    help: 'How long the oldest pending delivery has been due (0 when none is due).',
    registers,
  });
  const registryNodes = new Gauge<'state'>({
    name: 'swarm_registry_nodes',
    help: 'Known nodes by state: active, inactive (verified, not answering), unverified (heard of in gossip).',
    labelNames: ['state'],
    registers,
  });
  const poolMax = new Gauge({
    name: 'swarm_db_pool_max',
    help: 'Database connections this process may open (1 for the embedded database).',
    registers,
  });
  const poolConnections = new Gauge<'state'>({
    name: 'swarm_db_pool_connections',
    help: 'Open Postgres connections of this process by state: in_use or idle.',
    labelNames: ['state'],
    registers,
  });
  const poolWaiting = new Gauge({
    name: 'swarm_db_pool_waiting',
    help: 'Queries waiting for a free Postgres connection.',
    registers,
  });

  async function collectDatabaseGauges() {
    if (db.kind === 'postgres') {
      const { pool } = db;
      poolMax.set(pool.options.max ?? 10);
      poolConnections.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
      poolConnections.set({ state: 'idle' }, pool.idleCount);
      poolWaiting.set(pool.waitingCount);
    } else {
      poolMax.set(1);
    }
    const now = clock.now();
    try {
      const [outbox, oldest, nodes] = await withTimeout(
        Promise.all([
          db.prisma.$queryRaw<{ state: string; n: number }[]>(outboxByStatusSql()),
          db.prisma.$queryRaw<{ due: Date | null }[]>(oldestDueDeliverySql(now)),
          db.prisma.$queryRaw<{ state: string; n: number }[]>(nodesByStateSql()),
        ]),
        COLLECT_TIMEOUT_MS,
      );
      for (const state of ['pending', 'delivered', 'failed', 'cancelled']) {
        outboxRows.set({ state }, outbox.find((r) => r.state === state)?.n ?? 0);
      }
      const due = oldest[0]?.due;
      outboxOldestDue.set(due ? Math.max(0, (now.getTime() - new Date(due).getTime()) / 1000) : 0);
      for (const state of ['active', 'inactive', 'unverified']) {
        registryNodes.set({ state }, nodes.find((r) => r.state === state)?.n ?? 0);
      }
      databaseUp.set(1);
    } catch {
      // The database is down or slow: the gauges keep their last values, and say so.
      databaseUp.set(0);
    }
  }

  const requestSeries = new Map<
    string,
    { count: { inc(): void }; duration: { observe(value: number): void } }
  >();

  return {
    registry,
    contentType: METRICS_CONTENT_TYPE,
    async text() {
      if (!defaultsOn) {
        defaultsOn = true;
        collectDefaultMetrics({ register: registry });
      }
      await collectDatabaseGauges();
      return registry.metrics();
    },
    observeRequest({ service, method, route, status, seconds }) {
      const m = METHODS.has(method) ? method : 'OTHER';
      // prom-client hashes a label object on every call; the children of one label set are
      // looked up once (routes are templates, so the sets are few and bounded).
      const key = `${service}\n${m}\n${route}\n${status}`;
      let series = requestSeries.get(key);
      if (!series) {
        const labels = { service, method: m, route, status: String(status) };
        series = { count: httpRequests.labels(labels), duration: httpDuration.labels(labels) };
        requestSeries.set(key, series);
      }
      series.count.inc();
      series.duration.observe(seconds);
    },
    observeDelivery(result) {
      deliveries.inc({ result });
    },
    observeGossipRound({ result, seconds, exchanges = [] }) {
      gossipRounds.inc({ result });
      if (seconds !== undefined) gossipDuration.observe(seconds);
      for (const e of exchanges) gossipExchanges.inc({ result: e.ok ? 'ok' : 'failed' });
    },
    observeRemoteRead(job, result) {
      remoteReads.inc({ job, result });
    },
    observeRemoteCopiesDeleted(reason, count) {
      remoteCopiesDeleted.inc({ reason }, count);
    },
  };
}
