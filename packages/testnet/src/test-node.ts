import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, type Db } from '@swarm/db';
import { createTestDb, type TestDbOptions } from '@swarm/db/testing';
import {
  createDiskStorage,
  createLogger,
  createNodeContext,
  parseConfig,
  transportFromFetch,
  type NodeContext,
  type NodeOverrides,
} from '@swarm/domain';
import { createManualClock, type ManualClock } from './manual-clock.ts';

/**
 * What the harness needs of the gateway app (Hono's `fetch` and `request`). The harness does not
 * import the apps it tests: each test folder passes `createGatewayApp` in (see `bindApps`), so
 * the gateway's, api's and web app's tests use this package without a dependency cycle.
 */
export interface GatewayApp {
  fetch(request: Request): Response | Promise<Response>;
  request(path: string, init?: RequestInit): Response | Promise<Response>;
}

/** The gateway's `createGatewayApp` (or anything with its shape). */
export type GatewayAppFactory<App extends GatewayApp = GatewayApp> = (node: NodeContext) => App;

export interface TestNode<App extends GatewayApp = GatewayApp> {
  node: NodeContext;
  clock: ManualClock;
  app: App;
  /** A request through the gateway's front door, in-process. */
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export type TestNodeOverrides = Omit<NodeOverrides, 'clock'> & {
  clock?: ManualClock;
  /** Database options, e.g. a benchmark's Postgres pool size. */
  db?: Pick<TestDbOptions, 'poolSize'>;
  /**
   * Another replica of this node: the same database (on Postgres through a pool of its own, as
   * another process has; PGlite has one owner, so there the very same one) and the same clock.
   * Close it before the node it replicates.
   */
  replicaOf?: TestNode;
};

/** The database of `db`'s node as another replica of it opens it; closing it leaves `db` open. */
async function replicaDb(db: Db): Promise<Db> {
  if (db.kind === 'pglite') return { ...db, close: async () => {} };
  const databaseUrl = db.pool.options.connectionString;
  if (!databaseUrl) throw new Error('no connection string on the test database pool');
  return createDb({ databaseUrl, dataDir: '.', poolSize: 5 });
}

/**
 * One node with its own fresh database (see @swarm/db/testing) and its own clock. `env` takes
 * the same variables an operator sets; they go through the real config parser. `overrides`
 * replaces the network to peers (see `transportFromFetch`) or the clock; `app` builds the
 * node's gateway app.
 */
export async function createTestNode<App extends GatewayApp>(
  env: Record<string, string>,
  overrides: TestNodeOverrides & { app: GatewayAppFactory<App> },
): Promise<TestNode<App>> {
  const parsed = parseConfig({ SWARM_DOMAIN: 'alpha.test', LOG_LEVEL: 'silent', ...env });
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  const config = parsed.value;
  const { db: dbOptions, app: createApp, replicaOf, ...nodeOverrides } = overrides;
  const db = replicaOf ? await replicaDb(replicaOf.node.db) : await createTestDb(dbOptions);
  const clock = overrides.clock ?? replicaOf?.clock ?? createManualClock();
  const node = await createNodeContext({
    // Uploaded files of a test node: a folder of its own (made on the first upload).
    mediaStorage: createDiskStorage(join(tmpdir(), `swarm-test-media-${randomUUID()}`)),
    ...nodeOverrides,
    config,
    db,
    clock,
    logger: createLogger(config.logLevel),
  });
  const app = createApp(node);
  return {
    node,
    clock,
    app,
    request: async (path, init) => app.request(path, init),
    close: () => node.close(),
  };
}

/**
 * Overrides for a node whose every peer is down (connection refused), with peer domains
 * resolving to a public address so the refusal, not the address guard, is what fails.
 */
export function peersRefuseConnections(): Omit<NodeOverrides, 'clock'> {
  return {
    transport: transportFromFetch(() => {
      throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    }),
    resolveHost: async () => ['93.184.216.34'],
  };
}

/** What answers a domain in `linkedInProcess`: a node's gateway app, or a stand-in. */
export interface FrontDoor {
  fetch(request: Request): Response | Promise<Response>;
}

/**
 * In-process links between test nodes on `clock`: a request goes to the front door `fronts`
 * holds for its host (set them once the nodes exist); any other host fails as `unknown` says,
 * connection refused (a dead node) or not found (no such name). `overrides` go to
 * `createTestNode` for each node.
 */
export function linkedInProcess(clock: ManualClock, unknown: 'refused' | 'not found' = 'refused') {
  const fronts = new Map<string, FrontDoor>();
  const transport = transportFromFetch(async (request) => {
    const front = fronts.get(new URL(request.url).host);
    if (front) return front.fetch(request);
    throw unknown === 'refused'
      ? Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
      : Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
  });
  return { fronts, overrides: { transport, resolveHost: async () => ['93.184.216.34'], clock } };
}
