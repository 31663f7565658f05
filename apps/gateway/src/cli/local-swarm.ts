import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The gateway package: the nearest folder up with a package.json (from src/cli/ or dist/). */
const GATEWAY_DIR = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
})();
const NODE_ENTRY = join(GATEWAY_DIR, 'dist', 'main.js');

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
  if (!existsSync(join(GATEWAY_DIR, '../web/build/handler.js')) || !existsSync(NODE_ENTRY)) {
    throw new Error('the node is not built: run `pnpm build` first.');
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
    void Promise.all(domains.map((domain) => registryView(domain, adminToken))).then((views) => {
      if (stopping) return;
      const progress = convergence(domains, views);
      const view = progress
        .map((p, i) =>
          p === null
            ? `node ${i + 1}: down`
            : `node ${i + 1}: ${p.nodes}/${opts.nodes - 1} nodes ${p.handles}/${p.otherHandles} handles`,
        )
        .join('  ');
      const seconds = Math.round((Date.now() - started) / 1000);
      if (view !== last) {
        console.log(`[${String(seconds).padStart(4)}s] knows ${view}`);
        last = view;
      }
      if (allUpAt === undefined && progress.every((p) => p !== null)) allUpAt = Date.now();
      const done = progress.every(
        (p) =>
          p !== null &&
          p.nodes === opts.nodes - 1 &&
          p.otherHandles > 0 && // demo users: every node has some once it ran a round
          p.handles === p.otherHandles,
      );
      if (!converged && allUpAt !== undefined && done) {
        converged = true;
        const upFor = Date.now() - allUpAt;
        const rounds = Math.max(1, Math.ceil(upFor / opts.gossipIntervalMs));
        console.log(
          `converged: every node knows every other node and handle ${Math.round(upFor / 1000)}s after all were up (≈${rounds} gossip rounds). ^C to stop.`,
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
  const child = spawn(process.execPath, [NODE_ENTRY, '--with-web'], {
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

interface RegistryView {
  /** Other nodes it lists as active. */
  nodes: string[];
  /** Its handle registry as `handle@nodeDomain`. */
  handles: string[];
}

/** What one node knows (public node list, admin handle list); null when it does not answer. */
async function registryView(domain: string, adminToken: string): Promise<RegistryView | null> {
  const get = async <T>(path: string, auth = false): Promise<T> => {
    const res = await fetch(`http://${domain}${path}`, {
      signal: AbortSignal.timeout(2000),
      ...(auth ? { headers: { authorization: `Bearer ${adminToken}` } } : {}),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    return (await res.json()) as T;
  };
  try {
    const [nodes, handles] = await Promise.all([
      get<{ nodes?: { domain: string }[] }>('/api/swarm/nodes?limit=500&stats=false'),
      get<{ handles?: { handle: string; nodeDomain: string }[] }>(
        '/api/swarm/admin/handles?limit=1000',
        true,
      ),
    ]);
    return {
      nodes: (nodes.nodes ?? []).map((n) => n.domain).filter((d) => d !== domain),
      handles: (handles.handles ?? []).map((h) => `${h.handle}@${h.nodeDomain}`),
    };
  } catch {
    return null;
  }
}

/**
 * Per node: how many of the other local nodes it lists, and how many of the other nodes' own
 * handles (each node's entries for itself) it holds.
 */
function convergence(
  domains: string[],
  views: (RegistryView | null)[],
): ({ nodes: number; handles: number; otherHandles: number } | null)[] {
  const own = views.map((v, i) => (v?.handles ?? []).filter((h) => h.endsWith(`@${domains[i]!}`)));
  return views.map((view, i) => {
    if (!view) return null;
    const known = new Set(view.handles);
    const others = own.filter((_, j) => j !== i).flat();
    return {
      nodes: view.nodes.filter((d) => domains.includes(d)).length,
      handles: others.filter((h) => known.has(h)).length,
      otherHandles: others.length,
    };
  });
}
