import { Redis } from 'ioredis';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import {
  createLocalInvalidations,
  createPostgresInvalidations,
  createRedisInvalidations,
  type Invalidations,
} from './invalidations.ts';
import { createMemoryLimits, type Limits } from './limits.ts';
import { createPostgresLimits } from './postgres-limits.ts';
import { createRedisLimits } from './redis-limits.ts';

export * from './invalidations.ts';
export * from './limits.ts';
export { createPostgresLimits } from './postgres-limits.ts';
export { createRedisLimits } from './redis-limits.ts';

/** What the processes of one node share besides the database rows (docs/deployment.md "Replicas"). */
export interface SharedState {
  limits: Limits;
  invalidations: Invalidations;
  close(): Promise<void>;
}

/**
 * Picked once in the node context: Redis when `REDIS_URL` is set; else the Postgres database
 * the replicas already share; else (embedded PGlite: one process) this process's memory.
 */
export function createSharedState(deps: {
  config: NodeConfig;
  db: Db;
  clock: Clock;
  logger: Logger;
}): SharedState {
  const { config, db, clock, logger } = deps;
  if (config.redisUrl) {
    const redis = new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 });
    redis.on('error', (err: Error) => logger.warn({ err }, 'Redis connection error'));
    // Several nodes may share one Redis: keys and channels are the node's own.
    const prefix = `swarm:${config.domain}:`;
    const invalidations = createRedisInvalidations({ redis, prefix, logger });
    return {
      limits: createRedisLimits({ redis, clock, prefix }),
      invalidations,
      close: async () => {
        await invalidations.close();
        redis.disconnect();
      },
    };
  }
  if (db.kind === 'postgres') {
    const invalidations = createPostgresInvalidations({ pool: db.pool, logger });
    return {
      limits: createPostgresLimits({ pool: db.pool, clock, logger }),
      invalidations,
      close: () => invalidations.close(),
    };
  }
  return {
    limits: createMemoryLimits({ clock }),
    invalidations: createLocalInvalidations(),
    close: async () => {},
  };
}
