import { describe, expect, it } from 'vitest';
import { startProductionPair } from '../src/node-process.ts';
import { ADMIN_TOKEN, frontDoorHooks, sweepTests, type Sweep } from './front-door-harness.ts';

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
    let sweep: Sweep;
    let gatewayRoutes: { method: string; path: string }[];

    frontDoorHooks(
      'front-door-production',
      { postgres: true },
      async (dataDir, databaseUrl) => {
        const pair = await startProductionPair({
          databaseUrl: databaseUrl!,
          dataDir,
          env: { ADMIN_TOKEN, SWARM_RATE_LIMIT_PER_MIN: '1000000' },
        });
        return {
          domain: pair.domain,
          webBase: pair.webUrl.replace('localhost', '127.0.0.1'),
          gatewayBase: pair.gatewayUrl,
          output: () => pair.output(),
          stop: () => pair.stop(),
        };
      },
      (started) => ({ sweep, gatewayRoutes } = started),
    );

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
