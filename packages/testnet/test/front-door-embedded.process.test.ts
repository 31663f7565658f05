import { describe, expect, it } from 'vitest';
import { send } from '../src/front-door.ts';
import { freePort, startNodeProcess, withMigratedDataDir } from '../src/node-process.ts';
import { ADMIN_TOKEN, frontDoorHooks, sweepTests, type Sweep } from './front-door-harness.ts';

// The front door, embedded: the node started as the README's `pnpm start` does (the gateway's
// entry with `--with-web`, the built web app mounted in the same process, NODE_ENV unset), on
// embedded PGlite, or on a fresh Postgres database when TEST_DATABASE_URL is set. Every route
// of the web app and the gateway is called over a socket (front-door-harness.ts). Needs
// `pnpm build`.

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe(`the embedded node's front door (${onPostgres ? 'Postgres' : 'PGlite'})`, () => {
  let sweep: Sweep;
  let gatewayRoutes: { method: string; path: string }[];

  frontDoorHooks(
    'front-door-embedded',
    { postgres: onPostgres },
    async (dataDir, databaseUrl) => {
      const port = await freePort();
      const node = await startNodeProcess(
        await withMigratedDataDir({
          PORT: String(port),
          DATA_DIR: dataDir,
          ADMIN_TOKEN,
          SWARM_RATE_LIMIT_PER_MIN: '1000000',
          ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        }),
      );
      const base = `http://127.0.0.1:${port}`;
      return {
        domain: `localhost:${port}`,
        webBase: base,
        gatewayBase: base,
        output: () => node.output(),
        stop: () => node.stop(),
      };
    },
    (started) => ({ sweep, gatewayRoutes } = started),
  );

  it("answers the spec's /api/users endpoints with JSON (issue 12, bug 1)", async () => {
    const profile = await sweep.web({ method: 'GET', path: '/api/users/alice' });
    expect(profile.status, profile.text).toBe(200);
    expect(JSON.parse(profile.text)).toMatchObject({
      profile: { handle: 'alice' },
      isSwarm: false,
    });
    const posts = await sweep.web({ method: 'GET', path: '/api/users/alice/posts?limit=5' });
    expect(posts.status, posts.text).toBe(200);
    expect(JSON.parse(posts.text).posts).toHaveLength(1);
    const follow = await sweep.web({
      method: 'POST',
      path: '/api/users/bob/follow',
      headers: { cookie: sweep.alice.cookie, origin: `http://${sweep.target.domain}` },
    });
    expect(follow.status, follow.text).toBe(400);
    expect(JSON.parse(follow.text)).toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('answers unknown /api paths with a JSON 404 (issue 12, bug 2)', async () => {
    for (const path of ['/api/nope', '/api/users/alice/nope']) {
      const answer = await sweep.web({ method: 'GET', path, headers: { accept: 'text/html' } });
      expect(answer.status).toBe(404);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(answer.text)).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('refuses a NUL in a path or query with 400 on both sides (issue 17, item 8)', async () => {
    for (const path of [
      '/api/swarm/users/%00',
      '/api/swarm/timeline?limit=%00',
      '/api/users/%00',
    ]) {
      const answer = await sweep.web({ method: 'GET', path });
      expect(answer.status, path).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({ code: 'INVALID_REQUEST' });
    }
    expect((await sweep.web({ method: 'GET', path: '/@a%00b' })).status).toBe(400);
  });

  it('puts no stack in tRPC error bodies with NODE_ENV unset (issue 17, item 5)', async () => {
    for (const path of ['/trpc/nope', '/trpc/profiles.get?input=%7B%7D', '/trpc/settings.get']) {
      const answer = await send(sweep.target.webBase, sweep.target.domain, { method: 'GET', path });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.text).not.toMatch(/stack|\bat .*:\d+:\d+/);
    }
  });

  sweepTests(() => ({ sweep, gatewayRoutes }), { fuzzRuns: 25 });
});
