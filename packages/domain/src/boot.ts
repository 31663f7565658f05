import { createDb, migrateDb, type Db } from '@swarm/db';
import { systemClock, type Clock } from './clock.ts';
import type { NodeConfig } from './config.ts';
import type { Logger } from './logger.ts';
import type { NodeContext } from './node-context.ts';
import { createNodeInfoService } from './node-info.service.ts';
import { loadOrCreateNodeKeys } from './node-keys.service.ts';
import { createPeerClient, type PeerTransport, type ResolveHost } from './peers/index.ts';
import { createSwarmServices } from './registry/index.ts';
import { createAdminTokenService, createNodeAuthService } from './security/index.ts';
import { createInboundInteractionService } from './interactions/index.ts';
import { createContentService, createDemoContentService } from './content/index.ts';

/** Seams for tests and the swarm harness: time, and the network to peers. */
export interface NodeOverrides {
  clock?: Clock;
  transport?: PeerTransport;
  resolveHost?: ResolveHost;
  /** Peer request timeout (default 5 s); the test harness shortens it to model hung peers. */
  peerTimeoutMs?: number;
}

/** Wires a node over an open, migrated database (tests pass their own database here). */
export async function createNodeContext(
  deps: { config: NodeConfig; db: Db; logger: Logger } & NodeOverrides,
): Promise<NodeContext> {
  const { config, db, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const keys = await loadOrCreateNodeKeys(db, logger);
  const peers = createPeerClient({
    config,
    keys,
    clock,
    logger,
    transport: deps.transport,
    resolveHost: deps.resolveHost,
    timeoutMs: deps.peerTimeoutMs,
  });
  return {
    config,
    db,
    logger,
    clock,
    keys,
    peers,
    nodeInfo: createNodeInfoService({ config, db, keys }),
    ...createSwarmServices({ config, db, clock, logger, peers, keys }),
    interactions: createInboundInteractionService({ db, peers, clock, logger, config }),
    nodeAuth: createNodeAuthService({ db, peers, clock, logger, config }),
    adminTokens: createAdminTokenService({ db, config, clock }),
    content: createContentService({ db, clock, config }),
    close: () => db.close(),
  };
}

/**
 * Opens the configured database, applies pending migrations (unless `migrate: false`, for
 * processes that are not in charge of the schema), then wires the node.
 */
export async function bootNode(
  config: NodeConfig,
  deps: {
    logger: Logger;
    migrate?: boolean;
    /** What a relative DATA_DIR or `pglite:` path is relative to (default: the working directory). */
    baseDir?: string;
  } & NodeOverrides,
): Promise<NodeContext> {
  const db = await createDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    baseDir: deps.baseDir,
  });
  try {
    if (deps.migrate !== false) await migrateDb(db, { log: (line) => deps.logger.info(line) });
    const node = await createNodeContext({ config, db, ...deps });
    if (config.demoContent) await createDemoContentService(node).seed();
    return node;
  } catch (error) {
    await db.close();
    throw error;
  }
}
