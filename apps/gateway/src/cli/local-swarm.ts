import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const GATEWAY_DIR = fileURLToPath(new URL('../..', import.meta.url));

export interface LocalSwarmOptions {
  nodes: number;
  basePort: number;
  dataRoot: string;
  gossipIntervalMs: number;
  /** The environment the nodes inherit (PATH and friends), given by the entry point. */
  baseEnv: Record<string, string | undefined>;
}

/**
 * `swarm local`: N embedded nodes on consecutive ports, each with its own database under
 * dataRoot, the first one seed of the others, demo content on each; prints how the mesh
 * converges, then runs until ^C.
 */
export async function runLocalSwarm(opts: LocalSwarmOptions): Promise<void> {
  if (!existsSync(join(GATEWAY_DIR, '../web/build/handler.js'))) {
    throw new Error('the web app is not built: run `pnpm build` first.');
  }
  const adminToken = `local_${randomBytes(24).toString('base64url')}`;
  const domains = Array.from({ length: opts.nodes }, (_, i) => `localhost:${opts.basePort + i}`);
  const children: ChildProcess[] = domains.map((domain, i) =>
    startNode(i, domain, opts.baseEnv, {
      PORT: String(opts.basePort + i),
      SWARM_DOMAIN: domain,
      SWARM_NODE_NAME: `Local node ${i + 1}`,
      DATA_DIR: resolve(opts.dataRoot, `node-${i + 1}`),
      SWARM_DEV: '1',
      SWARM_SEEDS: i === 0 ? '' : domains[0]!,
      SWARM_DEMO_CONTENT: '1',
      SWARM_GOSSIP_INTERVAL_MS: String(opts.gossipIntervalMs),
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
    }),
  );

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping the local swarm…');
    for (const child of children) child.kill('SIGTERM');
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  console.log(`starting ${opts.nodes} nodes: ${domains.map((d) => `http://${d}`).join(', ')}`);
  console.log(`admin token for this run: ${adminToken}\n`);

  const started = Date.now();
  let last = '';
  let converged = false;
  // Rounds count from the moment every node answers, not from process start (boot takes a while).
  let allUpAt: number | undefined;
  const timer = setInterval(() => {
    void knownCounts(domains).then((counts) => {
      if (stopping) return;
      const view = counts
        .map((c, i) => `node ${i + 1}: ${c === null ? 'down' : `${c}/${opts.nodes - 1}`}`)
        .join('  ');
      const seconds = Math.round((Date.now() - started) / 1000);
      if (view !== last) {
        console.log(`[${String(seconds).padStart(4)}s] knows ${view}`);
        last = view;
      }
      if (allUpAt === undefined && counts.every((c) => c !== null)) allUpAt = Date.now();
      if (!converged && allUpAt !== undefined && counts.every((c) => c === opts.nodes - 1)) {
        converged = true;
        const upFor = Date.now() - allUpAt;
        const rounds = Math.max(1, Math.ceil(upFor / opts.gossipIntervalMs));
        console.log(
          `converged: every node knows every other node ${Math.round(upFor / 1000)}s after all were up (≈${rounds} gossip rounds). ^C to stop.`,
        );
      }
    });
  }, 1000);

  await Promise.all(children.map((c) => new Promise((done) => c.once('exit', done))));
  clearInterval(timer);
}

function startNode(
  index: number,
  domain: string,
  baseEnv: Record<string, string | undefined>,
  env: Record<string, string>,
): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--with-web'], {
    cwd: GATEWAY_DIR,
    env: { ...baseEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = `[node ${index + 1} ${domain}] `;
  const relay = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.trim()) console.log(prefix + line);
  };
  child.stdout?.on('data', relay);
  child.stderr?.on('data', relay);
  child.once('exit', (code) => console.log(`${prefix}exited (${code ?? 'signal'})`));
  return child;
}

/** How many other active nodes each node lists; null when the node does not answer. */
async function knownCounts(domains: string[]): Promise<(number | null)[]> {
  return Promise.all(
    domains.map(async (domain) => {
      try {
        const res = await fetch(`http://${domain}/api/swarm/nodes?limit=500&stats=false`, {
          signal: AbortSignal.timeout(2000),
        });
        if (!res.ok) return null;
        const body = (await res.json()) as { nodes?: { domain: string }[] };
        return (body.nodes ?? []).filter((n) => n.domain !== domain && domains.includes(n.domain))
          .length;
      } catch {
        return null;
      }
    }),
  );
}
