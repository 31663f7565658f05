import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

// Real nodes as real processes, started the way an operator and the Docker image do: the
// gateway's compiled entry point, `node dist/main.js` (built by `pnpm build`, which `pnpm test`
// runs first when the sources changed). Used by the gateway's start-up tests and the web app's
// browser tests; both import this file by path (neither app can depend on testnet: it depends on
// the gateway).
const gatewayDir = dirname(dirname(createRequire(import.meta.url).resolve('@swarm/gateway')));
/** The node's entry point, as `pnpm start` and the Docker image run it. */
export const NODE_ENTRY = join(gatewayDir, 'dist', 'main.js');

function entryArgs(args: string[]): string[] {
  if (!existsSync(NODE_ENTRY)) {
    throw new Error(`${NODE_ENTRY} is missing: run \`pnpm build\` first (pnpm test does).`);
  }
  return [NODE_ENTRY, ...args];
}

/** A free TCP port on loopback, from the OS. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export interface NodeProcess {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<number | null>;
}

/** How long a node may take to boot (migrations on a fresh embedded database included). */
const START_TIMEOUT_MS = 60_000;
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
  const child = spawn(process.execPath, entryArgs(args), {
    cwd: gatewayDir,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
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
        if (out.includes(' is up on ')) resolve();
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      void exited.then(([code, signal]) =>
        reject(new Error(`node exited with ${String(code ?? signal)}:\n${out}`)),
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
 * peers are allowed. Call `start()` to run it; `stop()` and `start()` again for an outage.
 */
export function nodeOnPort({ dataDir, port, env = {} }: NodeOnPortOptions): RestartableNode {
  const domain = `localhost:${port}`;
  let current: NodeProcess | undefined;
  let previousOutput = '';
  const fullEnv = {
    PORT: String(port),
    SWARM_DOMAIN: domain,
    SWARM_DEV: '1',
    DATA_DIR: dataDir,
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
      current = await startNodeProcess(fullEnv, ['--with-web']);
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
