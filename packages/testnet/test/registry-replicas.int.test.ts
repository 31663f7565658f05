import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '@swarm/db';
import { createTestDb } from '@swarm/db/testing';
import {
  createLogger,
  createNodeContext,
  createSwarmScheduler,
  parseConfig,
  transportFromFetch,
  type NodeContext,
  type SwarmScheduler,
} from '@swarm/domain';
import { createGatewayApp } from '@swarm/gateway';
import { createManualClock, createTestNode, type TestNode } from '../src/index.ts';

// Two gateway replicas of one node (alpha.test) on one Postgres database, each with its own
// connection pool, as two processes would have: background rounds must never overlap (the
// round's Postgres advisory lock). PGlite is opened by one process only, so there is no second
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
  });
}
