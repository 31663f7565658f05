import type { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import pg from 'pg';
import { parseDatabaseUrl, redactUrl } from './database-url.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { openPglite, type OpenPgliteOptions } from './pglite.ts';

export interface DbConfig {
  /** Unset → embedded PGlite under `dataDir`; `pglite:memory`, `pglite:<path>` or `postgres://…`. */
  databaseUrl?: string | undefined;
  /** Embedded PGlite lives at `<dataDir>/db`. */
  dataDir: string;
  /** Relative `dataDir` / `pglite:` paths resolve against this (default: the working directory). */
  baseDir?: string;
  /** Postgres connection pool size (default DEFAULT_POOL_SIZE). */
  poolSize?: number;
}

interface DbBase {
  prisma: PrismaClient;
  /** Where the data is, for logs (no password). */
  description: string;
  /** Disconnects Prisma and closes the driver; the Db is unusable afterwards. */
  close(): Promise<void>;
}

export interface PgliteDb extends DbBase {
  kind: 'pglite';
  /** The embedded database (one connection, shared with Prisma). */
  pglite: PGlite;
}

export interface PostgresDb extends DbBase {
  kind: 'postgres';
  /** The connection pool Prisma runs on, for raw SQL that needs its own connection. */
  pool: pg.Pool;
}

/** An open database: the Prisma client plus the driver under it. */
export type Db = PgliteDb | PostgresDb;

/**
 * Opens the configured database. It is not migrated yet: call `migrateDb(db)` next, or open it
 * with `createMigratedDb` instead. `options` apply to a new embedded database only.
 */
export async function createDb(config: DbConfig, options: OpenPgliteOptions = {}): Promise<Db> {
  const target = parseDatabaseUrl(config.databaseUrl, config.dataDir, config.baseDir);
  if (target.kind === 'postgres') return createPostgresDb(target.url, config.poolSize);
  const pglite = await openPglite(target.dir, options);
  return wrapPglite(pglite, target.dir === null ? 'PGlite (in memory)' : `PGlite at ${target.dir}`);
}

/** A Db over an already open PGlite; closing the Db closes it. */
export function wrapPglite(pglite: PGlite, description: string): PgliteDb {
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
  return {
    kind: 'pglite',
    prisma,
    pglite,
    description,
    close: once(async () => {
      await prisma.$disconnect();
      await pglite.close();
    }),
  };
}

/** Postgres connections per process unless configured (interactive transactions hold one each). */
export const DEFAULT_POOL_SIZE = 10;

export async function createPostgresDb(
  url: string,
  poolSize = DEFAULT_POOL_SIZE,
): Promise<PostgresDb> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client that loses its server would otherwise crash the process.
  pool.on('error', () => {});
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => {});
    throw new Error(`cannot connect to ${redactUrl(url)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    kind: 'postgres',
    prisma,
    pool,
    description: `Postgres at ${redactUrl(url)}`,
    close: once(async () => {
      await prisma.$disconnect();
      await pool.end();
    }),
  };
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}
