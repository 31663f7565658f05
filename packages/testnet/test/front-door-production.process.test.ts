import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '@swarm/db';
import { createTestDb } from '@swarm/db/testing';
import { startProductionPair, type ProductionPair } from '../src/node-process.ts';
import {
  ADMIN_TOKEN,
  gatewayRouteList,
  saveOutput,
  startSweep,
  sweepTests,
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

    sweepTests(() => ({ sweep, gatewayRoutes }), { fuzzRuns: 15 });
  });
}
