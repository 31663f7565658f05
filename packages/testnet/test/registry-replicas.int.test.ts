import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '@swarm/db';
import { createTestDb } from '@swarm/db/testing';
import { SWARM_PATHS } from '@swarm/contract';
import {
  createDeliveryWorker,
  createLogger,
  createNodeContext,
  createSwarmScheduler,
  GOSSIP_JITTER,
  parseConfig,
  transportFromFetch,
  type NodeContext,
  type SwarmScheduler,
} from '@swarm/domain';
import { createGatewayApp } from '@swarm/gateway';
import { createManualClock, createTestNode, type TestNode } from './harness.ts';

// Two gateway replicas of one node (alpha.test) on one Postgres database, each with its own
// connection pool, as two processes would have: background rounds must never overlap (the
// round's Postgres advisory lock), the replicas' timers together must not run more rounds than
// one process (a tick skips when another replica started a round less than an interval ago),
// and the outbox is sent once. PGlite is opened by one process only, so there is no second
// replica to race there: this file needs a Postgres server.

const url = process.env.TEST_DATABASE_URL;

if (!url) {
  describe('two gateway replicas on one Postgres', () => {
    it.skip('needs TEST_DATABASE_URL (a Postgres server; PGlite has a single owner, no replicas)', () => {});
  });
} else {
  describe('two gateway replicas on one Postgres', () => {
    const clock = createManualClock();
    let beta: TestNode;
    let first: Db;
    let second: Db;
    let alphaFront: ReturnType<typeof createGatewayApp> | undefined;
    const replicas: { node: NodeContext; scheduler: SwarmScheduler }[] = [];
    /** Requests to beta are held here while set, so a round stays in progress. */
    let gate: { arrived: () => void; release: Promise<void> } | undefined;
    const sentBy: string[] = [];
    /** Requests in flight to beta now, and the most ever at once. */
    let inFlight = 0;
    let maxInFlight = 0;

    beforeAll(async () => {
      // Beta checks alpha's signatures with the key from alpha's /api/swarm/info (replica 1).
      beta = await createTestNode(
        { SWARM_DOMAIN: 'beta.test' },
        {
          clock,
          transport: transportFromFetch(async (request) => alphaFront!.fetch(request)),
          resolveHost: async () => ['93.184.216.34'],
        },
      );
      first = await createTestDb();
      if (first.kind !== 'postgres') throw new Error('TEST_DATABASE_URL did not give Postgres');
      // A second, separate pool on the same database.
      const dbUrl = first.pool.options.connectionString;
      if (!dbUrl) throw new Error('no connection string on the test database pool');
      second = await createDb({ databaseUrl: dbUrl, dataDir: '.', poolSize: 5 });
      const parsed = parseConfig({ SWARM_DOMAIN: 'alpha.test', LOG_LEVEL: 'silent' });
      if (!parsed.ok) throw new Error(parsed.errors.join('; '));
      for (const [index, db] of [first, second].entries()) {
        const transport = transportFromFetch(async (request) => {
          sentBy.push(`replica ${index + 1} ${new URL(request.url).pathname}`);
          maxInFlight = Math.max(maxInFlight, ++inFlight);
          try {
            if (gate) {
              gate.arrived();
              await gate.release;
            }
            // Let the event loop turn, so the other replica's round could start meanwhile.
            await new Promise((resolve) => setImmediate(resolve));
            return await beta.app.fetch(request);
          } finally {
            inFlight--;
          }
        });
        // One after the other: the second replica loads the node key the first one created.
        const node = await createNodeContext({
          config: parsed.value,
          db,
          logger: createLogger('silent'),
          clock,
          transport,
          resolveHost: async () => ['93.184.216.34'],
        });
        replicas.push({ node, scheduler: createSwarmScheduler({ node }) });
      }
      alphaFront = createGatewayApp(replicas[0]!.node);
      expect(replicas[1]!.node.keys.publicKeyPem).toBe(replicas[0]!.node.keys.publicKeyPem);
      expect(await replicas[0]!.node.registry.probe('beta.test', 'admin')).toMatchObject({
        ok: true,
      });
    });

    afterAll(async () => {
      await second?.close();
      await first?.close();
      await beta?.close();
    });

    it('skips a round while the other replica holds the lock, and runs once it is released', async () => {
      let arrived!: () => void;
      const inRound = new Promise<void>((resolve) => (arrived = resolve));
      let release!: () => void;
      gate = { arrived, release: new Promise<void>((resolve) => (release = resolve)) };
      sentBy.length = 0;
      const running = replicas[0]!.scheduler.runOnce();
      await inRound; // replica 1 is inside its round, talking to beta

      const skipped = await replicas[1]!.scheduler.runOnce();
      expect(skipped).toMatchObject({ skipped: true, probes: [], gossip: [] });
      expect(sentBy.filter((s) => s.startsWith('replica 2'))).toEqual([]);

      gate = undefined;
      release();
      const ran = await running;
      expect(ran.skipped).toBe(false);
      expect(ran.gossip).toEqual([expect.objectContaining({ domain: 'beta.test', ok: true })]);

      // The lock went with the round's transaction: replica 2's next round runs.
      const next = await replicas[1]!.scheduler.runOnce();
      expect(next.skipped).toBe(false);
      expect(next.gossip).toEqual([expect.objectContaining({ domain: 'beta.test', ok: true })]);
    });

    it('never runs two rounds at once when both replicas start rounds together', async () => {
      // A round talks to beta once (its only peer), so overlapping rounds would show as two
      // requests in flight at beta.
      maxInFlight = 0;
      const reports = await Promise.all(
        Array.from({ length: 6 }, (_, i) => replicas[i % 2]!.scheduler.runOnce()),
      );
      expect(maxInFlight).toBe(1);
      const ran = reports.filter((r) => !r.skipped);
      expect(ran.length).toBeGreaterThanOrEqual(1);
      expect(ran.every((r) => r.gossip.length === 1 && r.gossip[0]!.ok)).toBe(true);
      // One push row per round that ran (two from the test above), whichever replica ran it.
      const pushes = await second.prisma.swarmSyncLog.count({
        where: { remoteDomain: 'beta.test', direction: 'push' },
      });
      expect(pushes).toBe(2 + ran.length);
    });

    /** Round rows (remote domain = our own) written since `from`, oldest first. */
    const roundsSince = (from: Date) =>
      second.prisma.swarmSyncLog.findMany({
        where: { remoteDomain: 'alpha.test', direction: 'push', createdAt: { gte: from } },
        orderBy: { createdAt: 'asc' },
        select: { createdAt: true, success: true, handlesSent: true },
      });
    const gossipsSent = () => sentBy.filter((s) => s.endsWith(SWARM_PATHS.gossip)).length;

    it('two timers half an interval apart run one round per interval, and the other takes over', async () => {
      const interval = replicas[0]!.node.config.gossipIntervalMs;
      // Clear of the rounds the tests above ran (those are recent for both replicas).
      clock.advance(interval);
      const start = clock.now();
      const gossipsBefore = gossipsSent();
      for (let k = 0; k < 6; k++) {
        const ran = await replicas[0]!.scheduler.tick();
        expect(ran.skipped).toBe(false);
        expect(ran.gossip).toEqual([expect.objectContaining({ domain: 'beta.test', ok: true })]);
        const at = clock.now().toISOString();
        clock.advance(interval / 2);
        const skipped = await replicas[1]!.scheduler.tick();
        expect(skipped).toMatchObject({
          skipped: true,
          skipReason: `another replica ran a round at ${at}`,
          gossip: [],
          probes: [],
        });
        clock.advance(interval / 2);
      }
      // Naive timers would have made 12 rounds; these made 6, one interval apart, each finished.
      const rounds = await roundsSince(start);
      expect(rounds.map((r) => r.createdAt.getTime() - start.getTime())).toEqual(
        Array.from({ length: 6 }, (_, k) => k * interval),
      );
      expect(rounds.every((r) => r.success)).toBe(true);
      expect(gossipsSent() - gossipsBefore).toBe(6);

      // Replica 1 stops: an interval after its last round (now), replica 2's tick runs, and
      // from then on replica 2 follows its own timer.
      expect(clock.now().getTime() - rounds.at(-1)!.createdAt.getTime()).toBe(interval);
      expect((await replicas[1]!.scheduler.tick()).skipped).toBe(false);
      clock.advance(interval * (1 - GOSSIP_JITTER));
      expect((await replicas[1]!.scheduler.tick()).skipped).toBe(false);
      // ...and replica 1, back, waits for replica 2's rounds to be an interval old.
      clock.advance(interval / 2);
      expect((await replicas[0]!.scheduler.tick()).skipReason).toMatch(/another replica ran/);
    });

    it('jittered timers of both replicas: rounds by different replicas stay an interval apart', async () => {
      const interval = replicas[0]!.node.config.gossipIntervalMs;
      clock.advance(2 * interval);
      const start = clock.now();
      // Each replica's timer as the scheduler draws it: 80-120 % of the interval after its last
      // tick (rounds take no time on the manual clock). A fixed sequence of draws, both started
      // at once: the worst case for two naive timers.
      const draws = [0.1, 0.9, 0.5, 0.3, 0.7, 0.0, 0.99, 0.2, 0.6, 0.4, 0.8, 0.05];
      const next = [0, 0];
      const drawn = [0, 0];
      const ticks: { replica: number; at: number; skipped: boolean }[] = [];
      const span = 10 * interval;
      for (;;) {
        const replica = next[0]! <= next[1]! ? 0 : 1;
        const at = next[replica]!;
        if (at > span) break;
        clock.advance(start.getTime() + at - clock.now().getTime());
        const report = await replicas[replica]!.scheduler.tick();
        ticks.push({ replica, at, skipped: report.skipped });
        const r = draws[(drawn[replica]! * 2 + replica * 5) % draws.length]!;
        drawn[replica]!++;
        next[replica] = at + Math.round(interval * (1 - GOSSIP_JITTER + 2 * GOSSIP_JITTER * r));
      }
      const ran = ticks.filter((t) => !t.skipped);
      expect(ticks.length).toBeGreaterThanOrEqual(18); // both timers ticked ~10 times each
      expect(ran.length).toBeLessThanOrEqual(span / (interval * (1 - GOSSIP_JITTER)) + 1);
      expect(ran.length).toBeGreaterThanOrEqual(span / (interval * (1 + GOSSIP_JITTER)));
      for (const [i, t] of ran.entries()) {
        if (i === 0) continue;
        const gap = t.at - ran[i - 1]!.at;
        // A replica follows its own timer; a round by the other one waits a whole interval.
        expect(gap).toBeGreaterThanOrEqual(
          t.replica === ran[i - 1]!.replica ? interval * (1 - GOSSIP_JITTER) : interval,
        );
      }
      const rounds = await roundsSince(start);
      expect(rounds.map((r) => r.createdAt.getTime() - start.getTime())).toEqual(
        ran.map((t) => t.at),
      );
    });

    it('delivery workers of both replicas, ticking too, send each outbox row exactly once', async () => {
      const path = SWARM_PATHS.interaction('mention');
      const rows = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          first.prisma.outboxDelivery.create({
            data: {
              targetDomain: 'beta.test',
              kind: 'mention',
              path,
              // Not a mention beta accepts: it answers 400, a final outcome (no retry).
              body: JSON.stringify({ probe: i }),
              // On the test's clock (the column defaults are the database's).
              nextAttemptAt: clock.now(),
              createdAt: clock.now(),
            },
            select: { id: true },
          }),
        ),
      );
      const sentBefore = sentBy.filter((s) => s.endsWith(path)).length;
      const workers = replicas.map(({ node }, i) =>
        createDeliveryWorker({ node, name: `replica-${i + 1}` }),
      );
      clock.advance(replicas[0]!.node.config.gossipIntervalMs);
      await Promise.all([
        ...workers.map((w) => w.processAll()),
        ...replicas.map((r) => r.scheduler.tick()),
      ]);
      const sent = sentBy.filter((s) => s.endsWith(path));
      expect(sent.length - sentBefore).toBe(rows.length);
      const after = await second.prisma.outboxDelivery.findMany({
        where: { id: { in: rows.map((r) => r.id) } },
        select: { status: true, attempts: true },
      });
      // Every row attempted once, by one replica or the other, none left behind.
      expect(after.map((r) => [r.status, r.attempts])).toEqual(rows.map(() => ['failed', 1]));
    });
  });
}
