/**
 * docker-compose.yml run by hand the way compose runs it (there is no Docker engine here): the
 * migrate job's, the gateway's and the web app's commands as the file gives them, in the order
 * their `depends_on` conditions impose, with the environment it gives them (ADDRESS_HEADER,
 * XFF_DEPTH, SWARM_TRUST_PROXY, NODE_ENV=production, ORIGIN…), on one Postgres database standing
 * in for the `postgres` service; then each service's healthcheck command itself
 * (`node -e "fetch(…)"`), pointed at the process's port. What cannot run without Docker (images,
 * volumes, published ports, restart policies, Caddy) is read from the file by
 * `deploy/compose.test.ts`. Needs TEST_DATABASE_URL and `pnpm build`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { errorBodySchema, readinessSchema } from '@swarm/contract';
import { SCHEMA_HEAD } from '@swarm/db';
import {
  freePort,
  jsonLines,
  NODE_ENTRY,
  scratchDatabase,
  sql,
  startNodeProcess,
  type NodeProcess,
} from '@swarm/testnet';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const serverUrl = process.env.TEST_DATABASE_URL;
const ADMIN_TOKEN = 'compose-health-admin-token-0123456789';
const DOMAIN = 'social.example.org';

type Service = {
  command?: string[];
  environment?: Record<string, unknown>;
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, { condition?: string }>;
};

/** `${VAR}`, `${VAR:-default}` and `${VAR:?message}` as compose resolves them. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([-?])([^}]*))?\}/g,
    (_all, name: string, op?: string, arg?: string) => {
      const v = vars[name];
      if (v !== undefined && v !== '') return v;
      if (op === '-') return arg ?? '';
      if (op === '?') throw new Error(`${name}: ${arg}`);
      return '';
    },
  );
}

async function run(command: string, args: string[], env: Record<string, string>, cwd = ROOT) {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output: out };
}

if (!serverUrl) {
  describe('compose healthchecks on the production pair', () => {
    it.skip('needs TEST_DATABASE_URL (compose runs Postgres) and the built web app', () => {});
  });
} else {
  describe('compose healthchecks on the production pair', () => {
    let services: Record<string, Service>;
    let database: Awaited<ReturnType<typeof scratchDatabase>>;
    let dataDir: string;
    let gateway: NodeProcess | undefined;
    let web: NodeProcess | undefined;
    const ports = { gateway: 0, web: 0 };

    /** The environment compose gives `service`, with this test's database, port and folder. */
    function composeEnv(service: string, port: number): Record<string, string> {
      const vars = {
        SWARM_DOMAIN: DOMAIN,
        POSTGRES_PASSWORD: 'unused',
        ADMIN_TOKEN,
      };
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(services[service]!.environment ?? {})) {
        env[k] = interpolate(String(v), vars);
      }
      return {
        ...env,
        PORT: String(port),
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        // The test's own address only; compose binds 0.0.0.0 inside its network.
        HOST: '127.0.0.1',
      };
    }

    /** The service's healthcheck command, as compose runs it in the container, on `port`. */
    async function healthcheck(service: string, port: number) {
      const test = services[service]!.healthcheck?.test ?? [];
      expect(test.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
      const script = test[3]!;
      expect(script).toContain('127.0.0.1:3000/');
      return run(
        process.execPath,
        ['-e', script.replace('127.0.0.1:3000/', `127.0.0.1:${port}/`)],
        {
          PATH: process.env.PATH ?? '',
        },
      );
    }

    /** A service's compose command (`node <file> <args…>`), as its argument list for node. */
    function commandOf(service: string): string[] {
      const [command, ...args] = services[service]!.command ?? [];
      expect(command, `${service} runs node itself`).toBe('node');
      return args;
    }

    /** A one-shot service (the migrate job) run to its end: compose's `service_completed_successfully`. */
    const completed = new Map<string, Promise<void>>();
    function complete(service: string): Promise<void> {
      const done =
        completed.get(service) ??
        (async () => {
          await dependencies(service);
          const result = await run(process.execPath, commandOf(service), {
            PATH: process.env.PATH ?? '',
            DATABASE_URL: database.url,
          });
          expect(result.code, `${service}: ${result.output}`).toBe(0);
        })();
      completed.set(service, done);
      return done;
    }

    /** Waits for what `service` depends on, as compose would before starting it. */
    async function dependencies(service: string): Promise<void> {
      for (const [name, { condition }] of Object.entries(services[service]!.depends_on ?? {})) {
        if (condition === 'service_completed_successfully') await complete(name);
        // The machine's Postgres, with this test's database in it, is the healthy `postgres`.
        else if (!(name === 'postgres' && condition === 'service_healthy')) {
          throw new Error(`${service} waits for ${name} (${condition}): not run by this test`);
        }
      }
    }

    /** A long-running service: its compose command once its dependencies are met. */
    async function up(service: 'gateway' | 'web', port: number): Promise<NodeProcess> {
      await dependencies(service);
      const [entry, ...args] = commandOf(service);
      // The image's working directory is the repository's root, laid out as here.
      expect(join(ROOT, entry!), `${service} runs the node's launcher`).toBe(NODE_ENTRY);
      return startNodeProcess(composeEnv(service, port), args);
    }

    beforeAll(async () => {
      const compose = parse(await readFile(join(ROOT, 'docker-compose.yml'), 'utf8'), {
        merge: true,
      }) as { services: Record<string, Service> };
      services = compose.services;
      database = await scratchDatabase(serverUrl);
      dataDir = await mkdtemp(join(tmpdir(), 'swarm-compose-health-'));
      ports.gateway = await freePort();
      ports.web = await freePort();
      [gateway, web] = await Promise.all([up('gateway', ports.gateway), up('web', ports.web)]);
    });

    afterAll(async () => {
      await Promise.all([gateway?.stop(), web?.stop()]);
      await database?.drop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('passes both healthchecks', async () => {
      for (const service of ['gateway', 'web'] as const) {
        const result = await healthcheck(service, ports[service]);
        expect(result.code, `${service} healthcheck: ${result.output}`).toBe(0);
      }
    });

    it('ran the migrate job to success before gateway and web, as their depends_on ask', async () => {
      expect([...completed.keys()]).toEqual(['migrate']);
      await expect(completed.get('migrate')).resolves.toBeUndefined();
    });

    it('runs the gateway and the web app as separate processes, each serving only its half', async () => {
      const gatewayInfo = await fetch(`http://127.0.0.1:${ports.gateway}/api/swarm/info`);
      expect(gatewayInfo.status).toBe(200);
      expect(((await gatewayInfo.json()) as { domain: string }).domain).toBe(DOMAIN);
      const page = await fetch(`http://127.0.0.1:${ports.web}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      await page.arrayBuffer();
      // Caddy routes each path to one of them; neither answers the other's.
      expect((await fetch(`http://127.0.0.1:${ports.gateway}/login`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${ports.web}/api/swarm/info`)).status).toBe(404);
    });

    it('takes forms from the public https origin only (ORIGIN), with development mode off', async () => {
      const login = (origin: string) =>
        fetch(`http://127.0.0.1:${ports.web}/login`, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            origin,
            accept: 'text/html',
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({ handle: 'nobody', password: 'not the password' }).toString(),
        });
      // A wrong password: the form answers (401), it is not refused as another site's (403).
      expect((await login(`https://${DOMAIN}`)).status).toBe(401);
      expect((await login(`http://127.0.0.1:${ports.web}`)).status).toBe(403);
      // Development mode would let the node contact a loopback address; here it is refused.
      const discover = await fetch(`http://127.0.0.1:${ports.gateway}/api/swarm/nodes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'discover', domain: `localhost:${ports.web}` }),
      });
      expect(await discover.json()).toMatchObject({
        ok: false,
        results: [
          { ok: false, error: expect.stringContaining('only contacted in development mode') },
        ],
      });
    });

    it('answers a web request without X-Forwarded-For (ADDRESS_HEADER set) instead of a 500', async () => {
      for (const path of [
        '/',
        '/livez',
        '/readyz',
        '/api/users/nobody',
        '/login',
        '/media/proxy',
      ]) {
        const res = await fetch(`http://127.0.0.1:${ports.web}${path}`, { redirect: 'manual' });
        expect(res.status, path).toBeLessThan(500);
      }
      // Through the proxy the header is there, and the client address is the forwarded one.
      const res = await fetch(`http://127.0.0.1:${ports.web}/livez`, {
        headers: { 'x-forwarded-for': '203.0.113.7' },
      });
      expect(res.status).toBe(200);
      const lines = jsonLines(web!.output()).filter((l) => l.msg === 'request');
      expect(lines.some((l) => l.route === '/' && l.client === '127.0.0.1')).toBe(true);
    });

    it('reports not ready on both, with the reason, while the newest migration is missing', async () => {
      const mark = (rolledBack: boolean) =>
        sql(
          database.url,
          `UPDATE "_prisma_migrations" SET rolled_back_at = ${rolledBack ? 'now()' : 'NULL'} WHERE migration_name = $1`,
          [SCHEMA_HEAD],
        );
      try {
        await mark(true);
        for (const [service, path] of [
          ['gateway', '/api/swarm/readyz'],
          ['web', '/readyz'],
        ] as const) {
          const res = await fetch(`http://127.0.0.1:${ports[service]}${path}`);
          expect(res.status, service).toBe(503);
          const body = readinessSchema.parse(await res.json());
          expect(body).toMatchObject({
            status: 'not ready',
            checks: { database: 'ok', migrations: 'failing', lifecycle: 'ok' },
          });
          expect(body.reasons.join(' ')).toContain(SCHEMA_HEAD);
          expect((await healthcheck(service, ports[service])).code, service).toBe(1);
          // Liveness does not depend on the database.
          const live = path.replace('readyz', 'livez');
          expect((await fetch(`http://127.0.0.1:${ports[service]}${live}`)).status).toBe(200);
        }
      } finally {
        await mark(false);
      }
      for (const service of ['gateway', 'web'] as const) {
        expect((await healthcheck(service, ports[service])).code, service).toBe(0);
      }
    });

    it('serves Prometheus metrics to admin tokens only, with every metric the Grafana dashboard queries', async () => {
      const names = new Set<string>();
      for (const [service, path] of [
        ['gateway', '/api/swarm/metrics'],
        ['web', '/metrics'],
      ] as const) {
        const at = `http://127.0.0.1:${ports[service]}${path}`;
        await fetch(at.replace('metrics', 'readyz'));
        const refusals: Record<string, string>[] = [
          {},
          { authorization: 'Bearer not-the-admin-token-at-all-000' },
        ];
        for (const headers of refusals) {
          const refused = await fetch(at, { headers });
          expect(refused.status, service).toBe(401);
          expect(refused.headers.get('www-authenticate')).toContain('Bearer');
          expect(errorBodySchema.parse(await refused.json()).code).toBe('UNAUTHORIZED');
        }
        const res = await fetch(at, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        expect(res.status, service).toBe(200);
        expect(res.headers.get('content-type')).toContain('text/plain');
        const text = await res.text();
        // The readiness request just made is counted, by its route template.
        expect(text).toMatch(
          new RegExp(
            `swarm_http_requests_total\\{service="${service}",method="GET",route="${path.replace('metrics', 'readyz')}",status="200"\\} [1-9]`,
          ),
        );
        for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
          const [, name, type] = m as unknown as [string, string, string];
          names.add(name);
          if (type === 'histogram')
            for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
          if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
        }
      }
      const dashboard = JSON.parse(
        await readFile(join(ROOT, 'deploy/grafana/swarm-node.json'), 'utf8'),
      ) as { panels: { targets?: { expr: string }[] }[] };
      const queried = new Set(
        dashboard.panels
          .flatMap((p) => p.targets ?? [])
          .flatMap((t) =>
            [...t.expr.matchAll(/\b(?:swarm|process|nodejs)_[a-z0-9_]+\b/g)].map((m) => m[0]),
          ),
      );
      expect(queried.size).toBeGreaterThan(10);
      for (const name of queried) expect(names, `dashboard queries ${name}`).toContain(name);
    });
  });
}
