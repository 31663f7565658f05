import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedMigratedDataDir } from '@swarm/db/testing';

// Real nodes as real processes, started the way an operator and the Docker image do: the
// gateway's compiled entry point, `node dist/main.js` (built by `pnpm build`, which `pnpm test`
// runs first when the sources changed), and the web app alone through the same entry point
// (production). Used by the gateway's start-up tests and the web app's browser tests. The builds
// are found in the workspace's folders: files to run, not modules this package imports.
const gatewayDir = fileURLToPath(new URL('../../../apps/gateway', import.meta.url));
/** The node's entry point, as `pnpm start` and the Docker image run it. */
export const NODE_ENTRY = join(gatewayDir, 'dist', 'main.js');

function entryArgs(args: string[]): string[] {
  if (!existsSync(NODE_ENTRY)) {
    throw new Error(`${NODE_ENTRY} is missing: run \`pnpm build\` first (pnpm test does).`);
  }
  return [NODE_ENTRY, ...args];
}

/**
 * A free TCP port on loopback for a child process to bind. Drawn below the kernel's ephemeral
 * range (32768 and up on Linux): a port the OS hands out for `listen(0)` is also handed to
 * outgoing connections, and with many running at once one took a node's port between this check
 * and the child's bind (`Port … is already in use`).
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error('no free port between 20000 and 32000 on 127.0.0.1');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export interface NodeProcess {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<number | null>;
}

/** How long a node may take to boot (migrations on a fresh embedded database included). */
// Generous: the machine running the tests may be shared and heavily loaded.
const START_TIMEOUT_MS = 240_000;
/** How long a node may take to close its database after SIGTERM before it is killed. */
const STOP_GRACE_MS = 15_000;

/**
 * Starts a node the way an operator does (`node dist/main.js`) and resolves once it logs that it
 * is up, or rejects with its output if it exits first.
 */
export async function startNodeProcess(
  env: Record<string, string>,
  args: string[] = ['--with-web'],
): Promise<NodeProcess> {
  // Readiness is its info-level "is up" line: a quieter level would look like a node that never
  // starts (killed after START_TIMEOUT_MS), so it is refused at once.
  if (env.LOG_LEVEL && !['info', 'debug', 'trace'].includes(env.LOG_LEVEL)) {
    throw new Error(`startNodeProcess needs LOG_LEVEL info or lower, not ${env.LOG_LEVEL}`);
  }
  return spawnUntilReady(entryArgs(args), gatewayDir, { LOG_LEVEL: 'info', ...env }, ' is up on ');
}

/**
 * The operator CLI as `pnpm swarm` runs it (the compiled `dist/cli.js`, needs `pnpm build`)
 * against the node at `nodeUrl`, with `token` as SWARM_ADMIN_TOKEN and `stdin` piped in: its
 * exit code and output.
 */
export function runSwarmCli(
  nodeUrl: string,
  args: string[],
  options: { token: string; stdin?: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [join(gatewayDir, 'dist', 'cli.js'), '--node', nodeUrl, ...args],
      {
        env: { ...process.env, SWARM_ADMIN_TOKEN: options.token, ADMIN_TOKEN: '' },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(options.stdin ?? '');
  });
}

/**
 * The web app alone, as production runs it (docker-compose.yml's `web`: `node
 * apps/gateway/dist/main.js --web-only`, needs `pnpm build`), with the node's variables plus
 * adapter-node's (`ORIGIN`, `ADDRESS_HEADER`, ...). Resolves once it logs that it is up.
 */
export async function startWebProcess(env: Record<string, string>): Promise<NodeProcess> {
  return startNodeProcess(env, ['--web-only']);
}

/** Spawns `node <args>` in `cwd` and resolves once its output contains `ready`. */
async function spawnUntilReady(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  ready: string,
): Promise<NodeProcess> {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = once(child, 'exit');
  // The "is up" line is logged at info level; a node that never says it is killed, not leaked.
  const timer = setTimeout(() => child.kill('SIGKILL'), START_TIMEOUT_MS);
  try {
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes(ready)) resolve();
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      void exited.then(([code, signal]) =>
        reject(new Error(`process exited with ${String(code ?? signal)}:\n${out}`)),
      );
    });
  } finally {
    clearTimeout(timer);
  }
  return {
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      // A node that hangs while closing must not hang the test run.
      const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      const [code] = (await exited) as [number | null];
      clearTimeout(killer);
      return code;
    },
  };
}

export interface ProductionPair {
  /** `localhost:<web port>`: the node's identity (the web app's origin stands for the proxy). */
  domain: string;
  /** Where the gateway alone answers (`/api/swarm/*`, `/.well-known/node-swarm`). */
  gatewayUrl: string;
  /** Where the web app alone answers (everything else). */
  webUrl: string;
  gateway: NodeProcess;
  web: NodeProcess;
  /** Both processes' output, for failure messages. */
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * The production pair of docker-compose.yml on one Postgres database: the gateway alone (it
 * migrates at start, standing in for the one-shot `migrate` job), then the web app alone, each
 * on its own port with the compose file's variables (`NODE_ENV=production`, `ORIGIN`). Without
 * the TLS proxy, a client calls each process directly; the node's domain is the web app's.
 */
export async function startProductionPair(options: {
  databaseUrl: string;
  dataDir: string;
  env?: Record<string, string>;
}): Promise<ProductionPair> {
  const [gatewayPort, webPort] = [await freePort(), await freePort()];
  const domain = `localhost:${webPort}`;
  const shared = {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    SWARM_DOMAIN: domain,
    DATABASE_URL: options.databaseUrl,
    DATA_DIR: options.dataDir,
    ...options.env,
  };
  const gateway = await startNodeProcess({ ...shared, PORT: String(gatewayPort) }, []);
  let web: NodeProcess;
  try {
    web = await startWebProcess({ ...shared, PORT: String(webPort), ORIGIN: `http://${domain}` });
  } catch (error) {
    await gateway.stop();
    throw error;
  }
  return {
    domain,
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    webUrl: `http://${domain}`,
    gateway,
    web,
    output: () => `--- gateway ---\n${gateway.output()}\n--- web ---\n${web.output()}`,
    stop: async () => {
      await Promise.all([gateway.stop(), web.stop()]);
    },
  };
}

/**
 * `env` as it is, after making sure that a node started with it on its embedded database
 * (no DATABASE_URL) finds a migrated one in DATA_DIR instead of building it: for tests whose
 * subject is not a node's first start (`seedMigratedDataDir`).
 */
export async function withMigratedDataDir(
  env: Record<string, string>,
): Promise<Record<string, string>> {
  if (env.DATABASE_URL || !env.DATA_DIR) return env;
  const dir = resolve(gatewayDir, env.DATA_DIR);
  if (!existsSync(join(dir, 'db'))) await seedMigratedDataDir(dir);
  return env;
}

/** Runs the entry point to completion (for configurations that must be refused). */
export async function runNodeProcessToExit(env: Record<string, string>) {
  const child = spawn(process.execPath, entryArgs([]), {
    cwd: gatewayDir,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output: out };
}

export interface NodeOnPortOptions {
  /** Its own data directory: the embedded database lives there and survives restarts. */
  dataDir: string;
  port: number;
  /** Other variables, as an operator would set them (SWARM_SEEDS, SWARM_NODE_NAME…). */
  env?: Record<string, string>;
}

/** A node that keeps its port and data directory across stops and starts. */
export interface RestartableNode {
  /** `localhost:<port>`: its identity in the swarm. */
  domain: string;
  /** `http://localhost:<port>`: the origin browsers must use (forms are checked against it). */
  url: string;
  port: number;
  isUp: () => boolean;
  /** Everything every run of the process printed, for failure messages. */
  output: () => string;
  start: () => Promise<void>;
  stop: () => Promise<number | null>;
}

/**
 * An embedded node (web app + gateway, PGlite in `dataDir`) in development mode, so loopback
 * peers are allowed. Call `start()` to run it; `stop()` and `start()` again for an outage. Its
 * first start finds a migrated database already in place (`seedMigratedDataDir`).
 */
export function nodeOnPort({ dataDir, port, env = {} }: NodeOnPortOptions): RestartableNode {
  const domain = `localhost:${port}`;
  let current: NodeProcess | undefined;
  let previousOutput = '';
  const fullEnv: Record<string, string> = {
    PORT: String(port),
    SWARM_DOMAIN: domain,
    SWARM_DEV: '1',
    DATA_DIR: dataDir,
    // Tests poll apps' endpoints every few milliseconds while they wait for another node; the
    // limit itself is tested where it is set low (client-api.int).
    SWARM_APP_RATE_LIMIT: '1000000',
    ...env,
  };
  return {
    domain,
    url: `http://${domain}`,
    port,
    isUp: () => current !== undefined,
    output: () => previousOutput + (current?.output() ?? ''),
    start: async () => {
      if (current) throw new Error(`${domain} is already running`);
      current = await startNodeProcess(await withMigratedDataDir(fullEnv), ['--with-web']);
    },
    stop: async () => {
      if (!current) return null;
      const code = await current.stop();
      previousOutput += current.output();
      current = undefined;
      return code;
    },
  };
}
