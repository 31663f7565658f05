/**
 * Health, metrics and logs of embedded nodes (`pnpm start`: one process answers the web app's
 * and the gateway's paths over the one node context its entry booted), as real processes: two
 * nodes on loopback, a request to one that makes it call the other, and what both print. Needs
 * `pnpm build`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema, livenessSchema, readinessSchema } from '@swarm/contract';
import {
  freePort,
  startNodeProcess,
  withMigratedDataDir,
  type NodeProcess,
  waitForLogLine,
} from '@swarm/testnet';

const ADMIN_TOKEN = 'observability-admin-token-0123456789';

describe('health, metrics and logs of embedded nodes', () => {
  let dirs: string[] = [];
  let alpha: NodeProcess;
  let beta: NodeProcess;
  const ports = { alpha: 0, beta: 0, metrics: 0 };
  const at = (node: 'alpha' | 'beta', path: string) => `http://127.0.0.1:${ports[node]}${path}`;

  beforeAll(async () => {
    dirs = await Promise.all([1, 2].map(() => mkdtemp(join(tmpdir(), 'swarm-obs-'))));
    ports.alpha = await freePort();
    ports.beta = await freePort();
    ports.metrics = await freePort();
    const env = (port: number, dataDir: string) => ({
      PORT: String(port),
      HOST: '127.0.0.1',
      SWARM_DOMAIN: `localhost:${port}`,
      SWARM_DEV: '1',
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
    });
    [alpha, beta] = await Promise.all([
      startNodeProcess(
        await withMigratedDataDir({
          ...env(ports.alpha, dirs[0]!),
          METRICS_PORT: String(ports.metrics),
        }),
      ),
      startNodeProcess(await withMigratedDataDir(env(ports.beta, dirs[1]!))),
    ]);
  });

  afterAll(async () => {
    await Promise.all([alpha?.stop(), beta?.stop()]);
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('answers both halves’ liveness and readiness from one process', async () => {
    for (const path of ['/livez', '/api/swarm/livez']) {
      const res = await fetch(at('alpha', path));
      expect(res.status, path).toBe(200);
      expect(livenessSchema.parse(await res.json())).toEqual({ status: 'ok' });
    }
    for (const path of ['/readyz', '/api/swarm/readyz']) {
      const res = await fetch(at('alpha', path));
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(readinessSchema.parse(await res.json())).toEqual({
        status: 'ready',
        checks: { database: 'ok', migrations: 'ok', lifecycle: 'ok' },
        reasons: [],
      });
    }
  });

  it('gives the request id to the peer it calls; both log the request under it', async () => {
    const requestId = `obs-${Date.now().toString(36)}`;
    const res = await fetch(at('alpha', '/api/swarm/nodes'), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        'content-type': 'application/json',
        'x-request-id': requestId,
      },
      // Discovering beta makes alpha fetch beta's /api/swarm/info.
      body: JSON.stringify({ action: 'discover', domain: `localhost:${ports.beta}` }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    await res.arrayBuffer();

    const alphaLine = await waitForLogLine(
      alpha,
      (l) => l.requestId === requestId && l.msg === 'request',
    );
    expect(alphaLine).toEqual(
      expect.objectContaining({
        msg: 'request',
        level: 30,
        method: 'POST',
        route: '/api/swarm/nodes',
        status: 200,
        client: '127.0.0.1',
        ms: expect.any(Number),
      }),
    );
    const betaLine = await waitForLogLine(
      beta,
      (l) => l.requestId === requestId && l.msg === 'request',
    );
    expect(betaLine).toMatchObject({ method: 'GET', route: '/api/swarm/info', status: 200 });
  });

  it('returns a valid X-Request-Id as given and replaces a malformed one, on both halves', async () => {
    for (const path of ['/api/swarm/info', '/']) {
      const kept = await fetch(at('alpha', path), { headers: { 'x-request-id': 'abc-123_x' } });
      expect(kept.headers.get('x-request-id'), path).toBe('abc-123_x');
      await kept.arrayBuffer();
      const replaced = await fetch(at('alpha', path), {
        headers: { 'x-request-id': 'no spaces <or> tags' },
      });
      expect(replaced.headers.get('x-request-id'), path).toMatch(/^[0-9a-f-]{36}$/);
      await replaced.arrayBuffer();
      const none = await fetch(at('alpha', path));
      expect(none.headers.get('x-request-id'), path).toMatch(/^[0-9a-f-]{36}$/);
      await none.arrayBuffer();
    }
    // The web half logs its requests too, with the page's route template.
    for (const route of ['/', '/api/swarm/info']) {
      await waitForLogLine(
        alpha,
        (l) => l.msg === 'request' && l.requestId === 'abc-123_x' && l.route === route,
      );
    }
  });

  it('serves metrics to the admin token on both paths, and without a token on the private port', async () => {
    for (const path of ['/metrics', '/api/swarm/metrics']) {
      const refused = await fetch(at('alpha', path));
      expect(refused.status, path).toBe(401);
      expect(errorBodySchema.parse(await refused.json()).code).toBe('UNAUTHORIZED');
      const res = await fetch(at('alpha', path), {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(res.status, path).toBe(200);
      const text = await res.text();
      // One registry for the process: both halves' requests in it, by service and template.
      expect(text).toMatch(
        /swarm_http_requests_total\{service="gateway",method="POST",route="\/api\/swarm\/nodes",status="200"\} 1\b/,
      );
      expect(text).toMatch(
        /swarm_http_request_duration_seconds_count\{service="web",method="GET",route="\/",status="200"\} [1-9]/,
      );
      expect(text).toMatch(/swarm_registry_nodes\{state="active"\} 1\b/);
      expect(text).toMatch(/swarm_outbox_rows\{state="pending"\} 0\b/);
      expect(text).toMatch(/^swarm_database_up 1$/m);
      expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
      expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    }
    const open = await fetch(`http://127.0.0.1:${ports.metrics}/metrics`);
    expect(open.status).toBe(200);
    expect(await open.text()).toContain('swarm_http_requests_total');
    expect((await fetch(`http://127.0.0.1:${ports.metrics}/`)).status).toBe(404);
  });

  it('hands the web app the node context the gateway acts on: what the admin API does, the web app sees at once', async () => {
    const admin = (method: string, path: string, body: unknown) =>
      fetch(at('alpha', `/api/swarm/admin/${path}`), {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // An account the gateway's auth services created signs in on the web app.
    const password = 'correct horse battery staple';
    expect((await admin('POST', 'users', { handle: 'carol', password })).status).toBe(201);
    const login = await fetch(at('alpha', '/login'), {
      method: 'POST',
      redirect: 'manual',
      headers: {
        origin: `http://localhost:${ports.alpha}`,
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ handle: 'carol', password }).toString(),
    });
    expect(login.status).toBe(303);
    expect(login.headers.getSetCookie().some((c) => c.startsWith('swarm_session='))).toBe(true);
    // A token the gateway stored opens the web app's metrics, and once the gateway revoked it,
    // no longer.
    const created = await admin('POST', 'tokens', { name: 'shared' });
    expect(created.status).toBe(201);
    const { id, token } = (await created.json()) as { id: string; token: string };
    const webMetrics = () =>
      fetch(at('alpha', '/metrics'), { headers: { authorization: `Bearer ${token}` } });
    expect((await webMetrics()).status).toBe(200);
    expect((await admin('DELETE', `tokens/${id}`, {})).status).toBe(200);
    expect((await webMetrics()).status).toBe(401);
  });

  it('prints JSON lines only (stdout is not a terminal), errors included', () => {
    for (const proc of [alpha, beta]) {
      for (const line of proc
        .output()
        .split('\n')
        .filter((l) => l.trim() !== '')) {
        expect(() => JSON.parse(line) as unknown, line).not.toThrow();
      }
    }
  });
});
