import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '@swarm/db';
import { createTestDb } from '@swarm/db/testing';
import { startProductionPair, type ProductionPair } from '../src/node-process.ts';
import {
  ADMIN_TOKEN,
  expectNoFailures,
  expectSessionsAlive,
  fuzzPathsAndQueries,
  gatewayRouteList,
  saveOutput,
  startSweep,
  sweepActions,
  sweepEndpoints,
  sweepGateway,
  sweepPages,
  sweepSessionEnders,
  sweepTrpc,
  type Sweep,
} from './front-door-harness.ts';

// The front door, in production: the pair of docker-compose.yml (the gateway alone, the built
// web app alone with `node apps/web/build/index.js`, NODE_ENV=production) on one Postgres
// database, every route called over a socket (front-door-harness.ts). PGlite is opened by one
// process only, so this file needs TEST_DATABASE_URL (CI's second pass sets it). Needs
// `pnpm build`.

const url = process.env.TEST_DATABASE_URL;

if (!url) {
  describe("the production pair's front door", () => {
    it.skip('needs TEST_DATABASE_URL (two processes share one Postgres; PGlite has one owner)', () => {});
  });
} else {
  describe("the production pair's front door (Postgres)", () => {
    let dataDir: string;
    let db: Db;
    let pair: ProductionPair;
    let sweep: Sweep;
    let gatewayRoutes: { method: string; path: string }[];

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'swarm-front-door-pair-'));
      db = await createTestDb();
      if (db.kind !== 'postgres') throw new Error('TEST_DATABASE_URL did not give Postgres');
      const databaseUrl = db.pool.options.connectionString;
      if (!databaseUrl) throw new Error('no connection string on the test database pool');
      pair = await startProductionPair({
        databaseUrl,
        dataDir,
        env: { ADMIN_TOKEN, SWARM_RATE_LIMIT_PER_MIN: '1000000' },
      });
      sweep = await startSweep({
        domain: pair.domain,
        webBase: pair.webUrl.replace('localhost', '127.0.0.1'),
        gatewayBase: pair.gatewayUrl,
        output: () => pair.output(),
      });
      gatewayRoutes = await gatewayRouteList();
    });

    beforeEach(() => {
      if (sweep) sweep.failures.length = 0;
    });

    afterAll(async () => {
      await pair?.stop();
      await saveOutput('front-door-production', pair?.output() ?? '');
      await db?.close();
      await rm(dataDir, { recursive: true, force: true });
    });

    it("answers the spec's /api/users endpoints and unknown /api paths with JSON", async () => {
      const profile = await sweep.web({ method: 'GET', path: '/api/users/alice' });
      expect(profile.status, profile.text).toBe(200);
      expect(JSON.parse(profile.text)).toMatchObject({ profile: { handle: 'alice' } });
      const missing = await sweep.web({ method: 'GET', path: '/api/nope' });
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.text)).toMatchObject({ code: 'NOT_FOUND' });
      const nul = await sweep.gateway({ method: 'GET', path: '/api/swarm/users/%00' });
      expect(nul.status).toBe(400);
    });

    it('answers every page of the route tree, as anyone, without a 5xx', async () => {
      await sweepPages(sweep);
      await expectSessionsAlive(sweep, 'the pages');
      expectNoFailures(sweep);
    }, 300_000);

    it('answers every form action and endpoint with any body, without a 5xx', async () => {
      await sweepActions(sweep);
      await expectSessionsAlive(sweep, 'the form actions');
      await sweepEndpoints(sweep);
      await expectSessionsAlive(sweep, 'the endpoints');
      expectNoFailures(sweep);
    }, 600_000);

    it('answers every tRPC procedure with any input, JSON errors and no 5xx', async () => {
      await sweepTrpc(sweep);
      await expectSessionsAlive(sweep, 'the tRPC procedures');
      expectNoFailures(sweep);
    }, 300_000);

    it('answers every gateway route, JSON errors and no 5xx', async () => {
      await sweepGateway(sweep, gatewayRoutes);
      expectNoFailures(sweep);
    }, 300_000);

    it('answers any bytes in path parameters and queries with a 4xx at worst (fuzzed)', async () => {
      await fuzzPathsAndQueries(sweep, gatewayRoutes, 15);
      expectNoFailures(sweep);
    }, 300_000);

    it('signs out through every way there is, last, without a 5xx', async () => {
      await sweepSessionEnders(sweep);
      expectNoFailures(sweep);
      expect(await sweep.alice.alive()).toBe(false);
    }, 300_000);
  });
}
