import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb } from '@swarm/db/testing';
import type { Db } from '@swarm/db';
import { SWARM_PATHS } from '@swarm/contract';
import {
  freePort,
  startNodeProcess,
  startWebProcess,
  type NodeProcess,
} from '../src/node-process.ts';

// Replicas share limits (issue 13): two gateway processes and two web processes on one
// Postgres database, as compose runs them behind a load balancer. A client gets one budget of
// writes and one budget of login attempts, not one per process; a write through one gateway is
// seen by a read through the other at once (caches kept for 10 minutes here, so only the
// invalidation can make it show). Run once sharing through Postgres, once through Redis.
// Needs TEST_DATABASE_URL (PGlite has one owner: no replicas); the Redis run TEST_REDIS_URL.

const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const ADMIN_TOKEN = 'replica-test-admin-token-0123456789';

const modes: [string, string | undefined][] = [
  ['Postgres', databaseUrl],
  ['Redis', databaseUrl && redisUrl],
];

for (const [mode, enabled] of modes) {
  describe.skipIf(!enabled)(`two replicas on one database share limits through ${mode}`, () => {
    let db: Db;
    const gateways: { url: string; process: NodeProcess }[] = [];
    const webs: { url: string; process: NodeProcess }[] = [];

    beforeAll(async () => {
      db = await createTestDb();
      if (db.kind !== 'postgres') throw new Error('TEST_DATABASE_URL did not give Postgres');
      const [gatewayPorts, webPorts] = [
        [await freePort(), await freePort()],
        [await freePort(), await freePort()],
      ];
      // One node: one public domain, whichever process answers (here the first gateway's).
      const domain = `localhost:${gatewayPorts[0]}`;
      const shared = {
        DATABASE_URL: db.pool.options.connectionString!,
        SWARM_DOMAIN: domain,
        SWARM_DEV: '1',
        ADMIN_TOKEN,
        SWARM_RATE_LIMIT_PER_MIN: '4',
        SWARM_TRUST_PROXY: '1',
        SWARM_READ_CACHE_TTL_MS: '600000',
        // Every run its own Redis keys: the domain names them, and test runs share one Redis.
        ...(mode === 'Redis' ? { REDIS_URL: redisUrl! } : {}),
      };
      for (const port of gatewayPorts) {
        gateways.push({
          url: `http://127.0.0.1:${port}`,
          process: await startNodeProcess({ ...shared, PORT: String(port) }, []),
        });
      }
      for (const port of webPorts) {
        webs.push({
          url: `http://127.0.0.1:${port}`,
          process: await startWebProcess({
            ...shared,
            PORT: String(port),
            HOST: '127.0.0.1',
            ORIGIN: `http://127.0.0.1:${port}`,
            ADDRESS_HEADER: 'X-Forwarded-For',
            XFF_DEPTH: '1',
          }),
        });
      }
    }, 120_000);

    afterAll(async () => {
      await Promise.all([...gateways, ...webs].map((p) => p.process.stop()));
      await db?.close();
    });

    const post = (url: string, path: string, ip: string, body: unknown = {}, token?: string) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-forwarded-for': ip,
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      });

    it('gives a client one budget of writes across both gateways, not two', async () => {
      const ip = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        const answer = await post(gateways[i % 2]!.url, SWARM_PATHS.announce, ip, {});
        statuses.push(answer.status);
        if (answer.status === 429) {
          expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
          expect(await answer.json()).toMatchObject({ code: 'RATE_LIMITED' });
        }
      }
      // SWARM_RATE_LIMIT_PER_MIN=4: four through (refused for their body), then 429 on both.
      expect(statuses.filter((s) => s !== 429)).toHaveLength(4);
      expect(statuses.slice(4)).toEqual([429, 429, 429, 429, 429, 429]);
      // Another address has a budget of its own.
      expect((await post(gateways[1]!.url, SWARM_PATHS.announce, '203.0.113.9')).status).not.toBe(
        429,
      );
    });

    it('shows a write through one gateway to a read through the other at once', async () => {
      const [a, b] = gateways as [(typeof gateways)[number], (typeof gateways)[number]];
      const handle = `u${randomUUID().slice(0, 8)}`;
      const created = await post(
        a.url,
        '/api/swarm/admin/users',
        '192.0.2.1',
        { handle },
        ADMIN_TOKEN,
      );
      expect(created.status).toBe(201);
      const timeline = async () => {
        const answer = await fetch(`${b.url}${SWARM_PATHS.timeline}`);
        expect(answer.status).toBe(200);
        const body = (await answer.json()) as { posts: { content: string }[] };
        return body.posts.map((p) => p.content);
      };
      // B caches the timeline (for 10 minutes in this test)...
      const before = await timeline();
      expect(await timeline()).toEqual(before);
      const text = `seen everywhere ${handle}`;
      const posted = await post(
        a.url,
        '/api/swarm/admin/posts',
        '192.0.2.2',
        { handle, content: text },
        ADMIN_TOKEN,
      );
      expect(posted.status).toBe(201);
      // ...until A's write reaches it (NOTIFY / PUBLISH: delivered in milliseconds, not on a TTL).
      await expect.poll(timeline, { timeout: 5_000, interval: 20 }).toContain(text);
    });

    it('shows a post written in the web app to the cached reads of a gateway at once', async () => {
      const web = webs[0]!;
      const b = gateways[1]!;
      const handle = `w${randomUUID().slice(0, 8)}`;
      const password = 'a password for the web write';
      const created = await post(
        gateways[0]!.url,
        '/api/swarm/admin/users',
        '192.0.2.3',
        { handle, password },
        ADMIN_TOKEN,
      );
      expect(created.status).toBe(201);
      const trpc = (procedure: string, input: unknown, cookie = '') =>
        fetch(`${web.url}/trpc/${procedure}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            origin: web.url,
            'x-forwarded-for': '192.0.2.4',
            ...(cookie ? { cookie } : {}),
          },
          body: JSON.stringify(input),
        });
      const login = await trpc('auth.logIn', { handle, password });
      expect(login.status).toBe(200);
      // The tRPC answer carries the session token; the web app's cookie is named swarm_session.
      const { result } = (await login.json()) as { result: { data: { token: string } } };
      const cookie = `swarm_session=${result.data.token}`;
      const timeline = async () => {
        const answer = await fetch(`${b.url}${SWARM_PATHS.timeline}`);
        const body = (await answer.json()) as { posts: { content: string }[] };
        return body.posts.map((p) => p.content);
      };
      // Gateway B caches the timeline (10 minutes here)...
      const before = await timeline();
      expect(await timeline()).toEqual(before);
      const text = `written in the web app ${handle}`;
      expect((await trpc('posts.create', { content: text }, cookie)).status).toBe(200);
      // ...until the web process's mutation publishes the invalidation.
      await expect.poll(timeline, { timeout: 5_000, interval: 20 }).toContain(text);
    });

    it('gives a handle one budget of login attempts across both web processes', async () => {
      const attempt = async (i: number) => {
        const web = webs[i % 2]!;
        const form = new URLSearchParams({ handle: 'nobody-here', password: 'wrong password' });
        const answer = await fetch(`${web.url}/login`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            origin: web.url,
            accept: 'application/json',
            'x-sveltekit-action': 'true',
            // Each attempt from its own address: only the handle's budget counts.
            'x-forwarded-for': `192.0.2.${100 + i}`,
          },
          body: form,
        });
        const body = (await answer.json()) as { type: string; status?: number };
        return body.status ?? answer.status;
      };
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push(await attempt(i));
      // DEFAULT_LOGIN_LIMITS.perHandle: a burst of 10 attempts, then throttled, on both.
      expect(statuses.slice(0, 10).every((s) => s === 401 || s === 400)).toBe(true);
      expect(statuses.slice(10)).toEqual([429, 429]);
    }, 60_000);
  });
}
