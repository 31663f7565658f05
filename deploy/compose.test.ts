/**
 * What of the production deployment files cannot run without Docker or Caddy: docker-compose.yml's
 * images, volumes, ports, restart policies and variables, deploy/Caddyfile's routes, Dockerfile,
 * .dockerignore and deploy/.env.example, parsed and checked. What can run is run:
 * apps/gateway/test/compose-health.int.test.ts starts the services' commands with their
 * environment, in their `depends_on` order, and runs their healthchecks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HSTS, WEB_SECURITY_HEADERS } from '@swarm/contract';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

type Dict = Record<string, unknown>;

const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------------------------------------
// Compose interpolation, as docker compose does it: ${VAR}, ${VAR:-default}, ${VAR-default},
// ${VAR:?error}, ${VAR?error}, ${VAR:+alt}, ${VAR+alt}, $VAR, and $$ for a literal $.

const INTERPOLATION =
  /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])((?:[^{}]|\{[^{}]*\})*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/** Names of every variable interpolated in a string. */
function variablesIn(text: string): string[] {
  const names: string[] = [];
  for (const m of text.replaceAll('$$', '').matchAll(INTERPOLATION)) names.push((m[1] ?? m[4])!);
  return names;
}

/** Names of the variables a string requires (`${VAR:?message}` or `${VAR?message}`). */
function requiredIn(text: string): string[] {
  const names: string[] = [];
  for (const m of text.replaceAll('$$', '').matchAll(INTERPOLATION)) {
    if (m[2] === ':?' || m[2] === '?') names.push(m[1]!);
  }
  return names;
}

function interpolate(text: string, vars: Record<string, string>): string {
  const parts = text.split('$$');
  return parts
    .map((part) =>
      part.replace(
        INTERPOLATION,
        (_all, braced?: string, op?: string, arg?: string, bare?: string) => {
          const name = (braced ?? bare)!;
          const value = vars[name];
          const set = value !== undefined;
          const nonEmpty = set && value !== '';
          switch (op) {
            case undefined:
              return value ?? '';
            case ':-':
              return nonEmpty ? value : interpolate(arg ?? '', vars);
            case '-':
              return set ? value : interpolate(arg ?? '', vars);
            case ':?':
            case '?':
              if (op === ':?' ? !nonEmpty : !set) throw new Error(`${name}: ${arg ?? 'required'}`);
              return value!;
            case ':+':
              return nonEmpty ? interpolate(arg ?? '', vars) : '';
            case '+':
              return set ? interpolate(arg ?? '', vars) : '';
            default:
              throw new Error(`unsupported interpolation ${op}`);
          }
        },
      ),
    )
    .join('$');
}

/** Every string value in a parsed YAML document (keys excluded), depth first. */
function stringsIn(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (Array.isArray(node)) return node.flatMap(stringsIn);
  if (isDict(node)) return Object.values(node).flatMap(stringsIn);
  return [];
}

// ---------------------------------------------------------------------------------------------
// deploy/.env.example: KEY=value lines (values may be empty), comments and blank lines.

function parseEnvFile(text: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!m) throw new Error(`deploy/.env.example: not a KEY=value line: ${raw}`);
    let value = m[2]!.trim();
    if (/^(['"]).*\1$/.test(value)) value = value.slice(1, -1);
    vars.set(m[1]!, value);
  }
  return vars;
}

// ---------------------------------------------------------------------------------------------
// Compose service helpers.

interface Service extends Dict {
  image?: string;
  build?: string | Dict;
  command?: string | string[];
  environment?: Dict | string[];
  depends_on?: string[] | Record<string, Dict>;
  healthcheck?: Dict;
  ports?: (string | number | Dict)[];
  volumes?: (string | Dict)[];
  restart?: string;
  profiles?: string[];
}

function environmentOf(service: Service): Record<string, string> {
  const env = service.environment;
  const out: Record<string, string> = {};
  if (Array.isArray(env)) {
    for (const entry of env) {
      const i = entry.indexOf('=');
      if (i > 0) out[entry.slice(0, i)] = entry.slice(i + 1);
    }
  } else if (isDict(env)) {
    for (const [k, v] of Object.entries(env)) if (v !== null && v !== undefined) out[k] = String(v);
  }
  return out;
}

function healthcheckText(service: Service): string {
  const test = service.healthcheck?.test;
  return Array.isArray(test) ? test.join(' ') : String(test ?? '');
}

interface PublishedPort {
  published: number;
  target: number;
  protocol: string;
}

function portsOf(service: Service): PublishedPort[] {
  return (service.ports ?? []).map((p) => {
    if (isDict(p)) {
      return {
        published: Number(p.published),
        target: Number(p.target),
        protocol: String(p.protocol ?? 'tcp'),
      };
    }
    const [spec, protocol = 'tcp'] = String(p).split('/');
    const pieces = spec!.split(':');
    const target = Number(pieces.at(-1));
    const published = pieces.length > 1 ? Number(pieces.at(-2)) : target;
    return { published, target, protocol };
  });
}

/** Volume mounts as { source, target }; a named volume has a source without a slash or dot. */
function mountsOf(service: Service): { source: string; target: string }[] {
  return (service.volumes ?? []).map((v) => {
    if (isDict(v)) return { source: String(v.source ?? ''), target: String(v.target ?? '') };
    const [source = '', target = ''] = String(v).split(':');
    return { source, target };
  });
}

const isNamedVolume = (source: string) => /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(source);

// ---------------------------------------------------------------------------------------------
// A small Caddyfile reader: tokens (with quotes), comments, and nested { } blocks.

interface Directive {
  args: string[];
  block: Directive[] | undefined;
}

function tokenizeCaddyfile(text: string): string[][] {
  // Returns lines of tokens; `{` and `}` are tokens of their own.
  const lines: string[][] = [];
  for (const raw of text.split('\n')) {
    const tokens: string[] = [];
    let i = 0;
    while (i < raw.length) {
      const ch = raw[i]!;
      if (/\s/.test(ch)) {
        i++;
      } else if (ch === '#' && (i === 0 || /\s/.test(raw[i - 1]!))) {
        break;
      } else if (ch === '"') {
        let j = i + 1;
        let value = '';
        while (j < raw.length && raw[j] !== '"') {
          if (raw[j] === '\\' && j + 1 < raw.length) j++;
          value += raw[j];
          j++;
        }
        tokens.push(value);
        i = j + 1;
      } else {
        let j = i;
        while (j < raw.length && !/\s/.test(raw[j]!)) j++;
        tokens.push(raw.slice(i, j));
        i = j;
      }
    }
    if (tokens.length > 0) lines.push(tokens);
  }
  return lines;
}

function parseCaddyfile(text: string): Directive[] {
  const root: Directive[] = [];
  const stack: Directive[][] = [root];
  for (const tokens of tokenizeCaddyfile(text)) {
    const current = stack.at(-1)!;
    if (tokens.length === 1 && tokens[0] === '}') {
      if (stack.length === 1) throw new Error('Caddyfile: unbalanced }');
      stack.pop();
      continue;
    }
    if (tokens.at(-1) === '{') {
      const directive: Directive = { args: tokens.slice(0, -1), block: [] };
      current.push(directive);
      stack.push(directive.block!);
    } else {
      current.push({ args: tokens, block: undefined });
    }
  }
  if (stack.length !== 1) throw new Error('Caddyfile: unclosed {');
  return root;
}

interface Upstream {
  host: string;
  port: number;
}

function parseUpstream(address: string): Upstream {
  const url = new URL(/^[a-z]+:\/\//.test(address) ? address : `http://${address}`);
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { host: url.hostname, port };
}

/** Upstreams of a reverse_proxy directive: inline, `to`, or `dynamic a` (inline or block). */
function upstreamsOf(proxy: Directive): Upstream[] {
  const upstreams = proxy.args.slice(1).map(parseUpstream);
  for (const sub of proxy.block ?? []) {
    const [name, ...args] = sub.args;
    if (name === 'to') upstreams.push(...args.map(parseUpstream));
    if (name === 'dynamic' && args[0] === 'a') {
      if (args.length >= 3) {
        upstreams.push({ host: args[1]!, port: Number(args[2]) });
      } else {
        const option = (key: string) => sub.block?.find((d) => d.args[0] === key)?.args[1];
        upstreams.push({ host: option('name') ?? '', port: Number(option('port')) });
      }
    }
  }
  return upstreams;
}

// ---------------------------------------------------------------------------------------------
// Dockerfile stages.

interface Stage {
  name: string | undefined;
  from: string;
  instructions: { op: string; args: string }[];
}

function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const logical = text
    .replace(/\\\r?\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of logical) {
    const m = /^(\w+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const op = m[1]!.toUpperCase();
    const args = m[2]!.trim();
    if (op === 'FROM') {
      const from = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!from) throw new Error(`Dockerfile: cannot read ${line}`);
      stages.push({ name: from[2]?.toLowerCase(), from: from[1]!, instructions: [] });
    } else if (stages.length === 0) {
      if (op === 'ARG') {
        const [name, value = ''] = args.split('=');
        globalArgs[name!] = value;
      }
    } else {
      stages.at(-1)!.instructions.push({ op, args });
    }
  }
  return { args: globalArgs, stages };
}

// ---------------------------------------------------------------------------------------------

const composeText = read('docker-compose.yml');
const compose = parse(composeText, { merge: true }) as Dict;
const services = (compose.services ?? {}) as Record<string, Service>;
const topLevelVolumes = Object.keys((compose.volumes ?? {}) as Dict);
const envExample = parseEnvFile(read('deploy/.env.example'));
const caddyfileText = read('deploy/Caddyfile');
const caddyfile = parseCaddyfile(caddyfileText);
const dockerfile = parseDockerfile(read('Dockerfile'));

/** The example settings with the required blanks filled in, as an operator would. */
const SAMPLE_DOMAIN = 'social.example.org';
const sampleVars: Record<string, string> = {
  ...Object.fromEntries(envExample),
  SWARM_DOMAIN: SAMPLE_DOMAIN,
  POSTGRES_PASSWORD: 'c0ffee0123456789abcdef',
  ADMIN_TOKEN: 'an-admin-token-of-at-least-24-chars',
};

const resolvedEnv = (name: string) =>
  Object.fromEntries(
    Object.entries(environmentOf(services[name]!)).map(([k, v]) => [k, interpolate(v, sampleVars)]),
  );

const APP_SERVICES = ['gateway', 'web'] as const;
const LONG_RUNNING = ['postgres', 'gateway', 'web', 'caddy'] as const;

describe('docker-compose.yml', () => {
  it('defines postgres, migrate, gateway, web and caddy', () => {
    for (const name of ['postgres', 'migrate', 'gateway', 'web', 'caddy']) {
      expect(services, `service ${name}`).toHaveProperty(name);
    }
  });

  it('offers Redis as an opt-in profile that the node reaches through REDIS_URL', () => {
    // Optional: `up` without `--profile redis` must not start it (Postgres shares limits then).
    expect(services.redis!.profiles).toEqual(['redis']);
    expect(services.redis!.healthcheck?.test).toContain('ping');
    for (const name of ['gateway', 'web']) {
      expect(environmentOf(services[name]!), name).toHaveProperty('REDIS_URL');
    }
  });

  it('runs Postgres 16 on a named volume with a pg_isready healthcheck', () => {
    const pg = services.postgres!;
    expect(pg.image).toMatch(/^postgres:16(\b|$)/);
    const data = mountsOf(pg).find((m) => m.target === '/var/lib/postgresql/data');
    expect(data, 'a volume on /var/lib/postgresql/data').toBeDefined();
    expect(isNamedVolume(data!.source), `${data!.source} is a named volume`).toBe(true);
    expect(topLevelVolumes).toContain(data!.source);
    expect(healthcheckText(pg)).toContain('pg_isready');
  });

  it('gives every healthcheck a test and an interval, and none is disabled', () => {
    for (const [name, service] of Object.entries(services)) {
      if (!service.healthcheck) continue;
      expect(service.healthcheck.disable, `${name} healthcheck disabled`).not.toBe(true);
      expect(healthcheckText(service), `${name} healthcheck test`).not.toBe('');
      expect(service.healthcheck.interval, `${name} healthcheck interval`).toMatch(
        /^\d+(ms|s|m|h)/,
      );
    }
    for (const name of ['postgres', 'gateway', 'web']) {
      expect(services[name]!.healthcheck, `${name} has a healthcheck`).toBeDefined();
    }
  });

  // Their commands, environment, start order and healthchecks are run by
  // apps/gateway/test/compose-health.int.test.ts; what needs Docker is read here.
  it('builds migrate, gateway and web from one image', () => {
    const images = ['migrate', 'gateway', 'web'].map((n) => services[n]!.image);
    expect(new Set(images).size, 'one image for migrate, gateway and web').toBe(1);
    for (const name of ['migrate', 'gateway', 'web']) {
      const build = services[name]!.build;
      const context = typeof build === 'string' ? build : String(build?.context ?? '');
      expect(context, `${name} builds from the repository root`).toMatch(/^\.\/?$/);
      if (isDict(build) && build.dockerfile !== undefined)
        expect(build.dockerfile).toBe('Dockerfile');
      if (isDict(build) && build.target !== undefined) expect(build.target).toBe('runtime');
    }
  });

  it('points gateway, web and migrate at the postgres service', () => {
    const pgEnv = Object.fromEntries(
      Object.entries(environmentOf(services.postgres!)).map(([k, v]) => [
        k,
        interpolate(v, sampleVars),
      ]),
    );
    for (const name of ['migrate', ...APP_SERVICES]) {
      const url = resolvedEnv(name).DATABASE_URL;
      expect(url, `${name} DATABASE_URL`).toBeDefined();
      const parsed = new URL(url!);
      expect(parsed.protocol).toMatch(/^postgres(ql)?:$/);
      expect(parsed.hostname, `${name} DATABASE_URL host`).toBe('postgres');
      expect(parsed.port === '' || parsed.port === '5432').toBe(true);
      expect(decodeURIComponent(parsed.username)).toBe(pgEnv.POSTGRES_USER ?? 'postgres');
      expect(decodeURIComponent(parsed.password)).toBe(pgEnv.POSTGRES_PASSWORD);
      expect(parsed.pathname.slice(1)).toBe(pgEnv.POSTGRES_DB ?? pgEnv.POSTGRES_USER ?? 'postgres');
    }
  });

  it('requires the secrets and the domain instead of defaulting them', () => {
    const required = new Set(stringsIn(compose).flatMap(requiredIn));
    for (const name of ['SWARM_DOMAIN', 'POSTGRES_PASSWORD', 'ADMIN_TOKEN']) {
      expect(required, `${name} is interpolated as \${${name}:?…}`).toContain(name);
      // The example must not ship a usable secret or domain.
      expect(envExample.get(name), `${name} in deploy/.env.example`).toBe('');
    }
    expect(() => interpolate(environmentOf(services.gateway!).SWARM_DOMAIN!, {})).toThrow();
  });

  it('documents every interpolated variable in deploy/.env.example', () => {
    const used = new Set(stringsIn(compose).flatMap(variablesIn));
    expect(used.size).toBeGreaterThan(0);
    const undocumented = [...used].filter((name) => !envExample.has(name));
    expect(undocumented, 'variables missing from deploy/.env.example').toEqual([]);
  });

  it('restarts the long-running services, but not the one-shot migration', () => {
    for (const name of LONG_RUNNING) {
      expect(['always', 'unless-stopped', 'on-failure'], `${name} restart`).toContain(
        services[name]!.restart,
      );
    }
    expect(['always', 'unless-stopped']).not.toContain(services.migrate!.restart);
  });

  it('publishes only Caddy, on 80 and 443', () => {
    const published = portsOf(services.caddy!)
      .filter((p) => p.protocol === 'tcp')
      .map((p) => `${p.published}:${p.target}`);
    expect(published).toContain('443:443');
    expect(published).toContain('80:80');
    for (const name of ['postgres', 'migrate', 'gateway', 'web', 'redis']) {
      expect(services[name]!.ports ?? [], `${name} publishes no port`).toEqual([]);
    }
  });

  it('mounts deploy/Caddyfile and keeps Caddy data and config on named volumes', () => {
    const mounts = mountsOf(services.caddy!);
    const caddyfileMount = mounts.find((m) => m.target === '/etc/caddy/Caddyfile');
    expect(caddyfileMount?.source).toMatch(/^\.\/deploy\/Caddyfile$/);
    for (const target of ['/data', '/config']) {
      const mount = mounts.find((m) => m.target === target);
      expect(mount, `caddy volume on ${target}`).toBeDefined();
      expect(isNamedVolume(mount!.source)).toBe(true);
      expect(topLevelVolumes).toContain(mount!.source);
    }
  });
});

describe('deploy/Caddyfile', () => {
  const sites = caddyfile.filter((d) => d.block !== undefined && d.args.length > 0);
  const site = sites.find((d) => d.args.includes('{$SWARM_DOMAIN}'));
  const handles = (site?.block ?? []).filter((d) => d.args[0] === 'handle');
  const handleFor = (matcher: string | undefined) =>
    handles.find((d) => (matcher === undefined ? d.args.length === 1 : d.args[1] === matcher));
  const proxied = (handle: Directive | undefined) =>
    (handle?.block ?? []).filter((d) => d.args[0] === 'reverse_proxy').flatMap(upstreamsOf);
  const portOf = (service: string) => Number(resolvedEnv(service).PORT ?? '3000');

  it('serves the site {$SWARM_DOMAIN}, a variable Caddy receives from compose', () => {
    expect(site, 'a site block for {$SWARM_DOMAIN}').toBeDefined();
    const caddyEnv = environmentOf(services.caddy!);
    for (const m of caddyfileText.matchAll(/\{\$([A-Za-z_][A-Za-z0-9_]*)(?::[^}]*)?\}/g)) {
      expect(caddyEnv, `caddy environment has ${m[1]}`).toHaveProperty(m[1]!);
    }
    expect(interpolate(caddyEnv.SWARM_DOMAIN!, sampleVars)).toBe(SAMPLE_DOMAIN);
  });

  it.each(['/api/swarm/*', '/.well-known/node-swarm', '/api/node'])(
    'routes %s to the gateway',
    (path) => {
      const upstreams = proxied(handleFor(path));
      expect(upstreams.length, `reverse_proxy in handle ${path}`).toBeGreaterThan(0);
      for (const upstream of upstreams) {
        expect(upstream).toEqual({ host: 'gateway', port: portOf('gateway') });
      }
    },
  );

  it('routes everything else to the web app', () => {
    const upstreams = proxied(handleFor(undefined));
    expect(upstreams.length, 'reverse_proxy in a catch-all handle').toBeGreaterThan(0);
    for (const upstream of upstreams) {
      expect(upstream).toEqual({ host: 'web', port: portOf('web') });
    }
  });

  /** The service a request path reaches: Caddy's path matchers (exact, or `prefix*`), else the catch-all. */
  const serviceFor = (path: string) => {
    const matches = (matcher: string) =>
      matcher.endsWith('*') ? path.startsWith(matcher.slice(0, -1)) : path === matcher;
    const handle =
      handles.find((d) => d.args.length > 1 && matches(d.args[1]!)) ?? handleFor(undefined);
    return [...new Set(proxied(handle).map((u) => u.host))];
  };

  it.each([
    ['/livez', 'web'],
    ['/readyz', 'web'],
    ['/metrics', 'web'],
    ['/api/swarm/livez', 'gateway'],
    ['/api/swarm/readyz', 'gateway'],
    ['/api/swarm/metrics', 'gateway'],
  ])('routes the health path %s to its own service (%s)', (path, service) => {
    expect(serviceFor(path)).toEqual([service]);
  });

  it('passes live updates (/events) to the web app unbuffered and uncompressed', () => {
    expect(serviceFor('/events')).toEqual(['web']);
    const proxy = (handleFor('/events')?.block ?? []).find((d) => d.args[0] === 'reverse_proxy');
    const flush = proxy?.block?.find((d) => d.args[0] === 'flush_interval');
    expect(flush?.args[1], 'flush_interval -1 in the /events proxy').toBe('-1');
    // The site's encoder skips it: a compressing encoder holds small events back.
    const encode = (site?.block ?? []).find((d) => d.args[0] === 'encode');
    const matcher = encode?.args[1];
    expect(matcher?.startsWith('@'), 'encode takes a named matcher').toBe(true);
    const definition = (site?.block ?? []).find((d) => d.args[0] === matcher);
    expect(definition?.args.slice(1)).toEqual(['not', 'path', '/events']);
  });

  it('sends HSTS on every answer and the web app headers where the app sets none', () => {
    const header = (site?.block ?? []).find((d) => d.args[0] === 'header' && d.block);
    expect(header, 'a header block in the site').toBeDefined();
    const fields = new Map((header?.block ?? []).map((d) => [d.args[0]!, d.args[1]]));
    // Always set (the proxy speaks TLS), the same value the gateway sends.
    expect(fields.get('Strict-Transport-Security')).toBe(HSTS);
    // `?`: defaults that keep what the web app or the gateway set themselves.
    for (const [name, value] of Object.entries(WEB_SECURITY_HEADERS)) {
      const field = [...fields.keys()].find((k) => k.toLowerCase() === `?${name}`);
      expect(field, `?${name} in the header block`).toBeDefined();
      expect(fields.get(field!)).toBe(value);
    }
  });

  it('proxies only to services that compose defines', () => {
    const all = (site?.block ?? []).flatMap(function walk(d: Directive): Upstream[] {
      return d.args[0] === 'reverse_proxy' ? upstreamsOf(d) : (d.block ?? []).flatMap(walk);
    });
    expect(all.length).toBeGreaterThan(0);
    for (const upstream of all) expect(services).toHaveProperty(upstream.host);
    // No prefix stripping: the gateway expects the full /api/swarm/... path.
    expect(caddyfileText).not.toMatch(/^\s*handle_path\b/m);
  });
});

describe('Dockerfile', () => {
  const byName = new Map(dockerfile.stages.map((s) => [s.name, s]));
  const resolveImage = (image: string) =>
    image.replace(
      /\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g,
      (_m, name: string) => dockerfile.args[name] ?? '',
    );
  /** The stage chain from a stage up to its external base image. */
  const chain = (stage: Stage): Stage[] => {
    const parent = byName.get(stage.from.toLowerCase());
    return parent && parent !== stage ? [stage, ...chain(parent)] : [stage];
  };

  it('has a build stage and a runtime stage, the runtime last (the default target)', () => {
    expect(byName.has('build')).toBe(true);
    expect(byName.has('runtime')).toBe(true);
    expect(dockerfile.stages.at(-1)?.name).toBe('runtime');
  });

  it('builds with pnpm from npm (not corepack) and a frozen lockfile', () => {
    const build = chain(byName.get('build')!);
    const runs = build.flatMap((s) =>
      s.instructions.filter((i) => i.op === 'RUN').map((i) => i.args),
    );
    expect(runs.join('\n')).toMatch(/npm (i|install) -g/);
    expect(runs.join('\n')).not.toMatch(/corepack/);
    expect(runs.some((r) => /pnpm install\b.*--frozen-lockfile/.test(r))).toBe(true);
    expect(runs.some((r) => /pnpm (run )?build\b/.test(r))).toBe(true);
  });

  it('runs on node:20-bookworm-slim as a non-root user, with the build copied in', () => {
    const runtime = chain(byName.get('runtime')!);
    expect(resolveImage(runtime.at(-1)!.from)).toBe('node:20-bookworm-slim');
    // The last USER along the chain (a stage inherits its parent's) wins.
    const users = runtime
      .slice()
      .reverse()
      .flatMap((s) =>
        s.instructions.filter((i) => i.op === 'USER').map((i) => i.args.split(':')[0]),
      );
    const user = users.at(-1);
    expect(user, 'the runtime stage sets USER').toBeDefined();
    expect(['root', '0']).not.toContain(user);
    const copies = byName.get('runtime')!.instructions.filter((i) => i.op === 'COPY');
    expect(copies.some((c) => /--from=build\b/.test(c.args))).toBe(true);
  });

  it('copies only the slim runtime into the image and starts node itself', () => {
    const build = byName.get('build')!;
    const runs = build.instructions.filter((i) => i.op === 'RUN').map((i) => i.args);
    expect(runs.some((r) => /\bpnpm runtime \/runtime\b/.test(r))).toBe(true);
    const runtime = byName.get('runtime')!;
    const copies = runtime.instructions.filter((i) => i.op === 'COPY').map((i) => i.args);
    expect(copies).toEqual(['--from=build /runtime /app']);
    // Its base is the Node image, not the build stage: no pnpm, no dev dependencies.
    expect(byName.has(runtime.from.toLowerCase())).toBe(false);
    const cmd = runtime.instructions.find((i) => i.op === 'CMD')?.args ?? '';
    expect(JSON.parse(cmd)).toEqual([
      'node',
      '--max-semi-space-size=2',
      '--v8-pool-size=1',
      'apps/gateway/dist/main.js',
      '--with-web',
    ]);
  });

  it('.dockerignore keeps local state out but the lockfile and migrations in', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    expect(ignored.some((l) => /(^|\/)node_modules\/?$/.test(l))).toBe(true);
    expect(ignored.some((l) => /(^|\/)\.env\/?$/.test(l))).toBe(true);
    for (const kept of ['pnpm-lock.yaml', 'prisma', 'prisma/migrations', 'package.json']) {
      expect(ignored, `${kept} must reach the build`).not.toContain(kept);
    }
  });
});
