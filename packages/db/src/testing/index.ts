import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { createPostgresDb, wrapPglite, type Db } from '../create-db.ts';
import { redactUrl } from '../database-url.ts';
import { createMigratedDb, migrateDb } from '../migrations/apply-migrations.ts';
import { readMigrationsFolder, sha256Hex } from '../migrations/migration-files.ts';
import { CACHE_DIR, MIGRATIONS_DIR } from '../paths.ts';
import { cachedDump, leanMemoryPglite, PGLITE_VERSION, pgliteFromDump } from '../pglite.ts';

// Test databases: every call gives a fresh, fully migrated database of its own, so test files
// (and tests inside them) never share state. Default: in-memory PGlite. With TEST_DATABASE_URL
// (e.g. postgres://postgres@127.0.0.1:5432/postgres): a new database on that server, dropped on
// close. Both start from a migrated template, built once (cached on disk for PGlite, as a
// template database for Postgres) and rebuilt whenever a migration changes.

export interface TestDbOptions {
  /** Default: the repo's prisma/migrations. */
  migrationsDir?: string;
  /** Default: process.env.TEST_DATABASE_URL; empty → PGlite in memory. */
  databaseUrl?: string;
  /**
   * Postgres pool size. Default 5, half the production default: parallel test files share one
   * server's connections. Benchmarks pass DEFAULT_POOL_SIZE to measure what production runs.
   */
  poolSize?: number;
}

/** A fresh migrated database; `close()` disposes of it (drops it on Postgres). */
export async function createTestDb(options: TestDbOptions = {}): Promise<Db> {
  const migrationsDir = options.migrationsDir ?? MIGRATIONS_DIR;
  const fingerprint = await migrationsFingerprint(migrationsDir);
  const url = options.databaseUrl ?? process.env.TEST_DATABASE_URL;
  if (url) return createPostgresTestDb(url, migrationsDir, fingerprint, options.poolSize ?? 5);
  const dump = await pgliteTemplate(migrationsDir, fingerprint);
  return wrapPglite(
    await pgliteFromDump(dump, TEST_PGLITE_SETTINGS),
    'PGlite test database (in memory)',
  );
}

/**
 * Builds the templates the test databases and test nodes start from, when this machine has
 * none for the current migrations: run once before the test files (vitest's globalSetup), so
 * parallel files do not each build their own at the start of a run.
 */
export async function prepareTestTemplates(): Promise<void> {
  await migratedNodeTemplateOnce();
  if (!process.env.TEST_DATABASE_URL) {
    await pgliteTemplate(MIGRATIONS_DIR, await migrationsFingerprint(MIGRATIONS_DIR));
  }
}

function pgliteTemplate(migrationsDir: string, fingerprint: string): Promise<Blob> {
  return cachedDump(`pglite-lean-migrated-${fingerprint}`, () =>
    buildPgliteTemplate(migrationsDir),
  );
}

/**
 * Makes `<dataDir>/db` a migrated embedded database, as a node's first start would leave it,
 * for test nodes started as processes: copying a template directory takes a fraction of what
 * the start's own build does (a child process, the empty cluster, every migration), which on a
 * loaded machine was a few seconds of each node start. The template is built once per set of
 * migrations by that very start path (`createMigratedDb`) and kept in the machine's cache. The
 * first-start path itself stays tested where it is the subject (create-db, the gateway's start).
 */
export async function seedMigratedDataDir(dataDir: string): Promise<void> {
  const target = join(dataDir, 'db');
  if (existsSync(target)) throw new Error(`${target} exists already`);
  await cp(await migratedNodeTemplateOnce(), target, { recursive: true });
}

let nodeTemplate: Promise<string> | undefined;

function migratedNodeTemplateOnce(): Promise<string> {
  return (nodeTemplate ??= migratedNodeTemplate().catch((error: unknown) => {
    nodeTemplate = undefined;
    throw error;
  }));
}

async function migratedNodeTemplate(): Promise<string> {
  const template = join(
    CACHE_DIR,
    `pglite-node-migrated-${await migrationsFingerprint(MIGRATIONS_DIR)}`,
  );
  if (existsSync(join(template, 'PG_VERSION'))) return template;
  // Parallel workers may race: each builds its own and renames it into place.
  const building = `${template}.${process.pid}.${Date.now()}.tmp`;
  try {
    const { db } = await createMigratedDb({ dataDir: building });
    await db.close();
    await rename(join(building, 'db'), template).catch((error: unknown) => {
      if (!existsSync(join(template, 'PG_VERSION'))) throw error;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return template;
}

/**
 * PGlite's default 128 MB of shared buffers are touched at start: ~200 MB of memory per test
 * database, which limits in-process networks (the gossip benchmark runs 200 nodes). A test
 * database holds a few MB: 8 MB of buffers and the lean cluster bring it to ~45 MB.
 */
const TEST_PGLITE_SETTINGS = ['shared_buffers = 8MB'];

/** Changes whenever a migration is added or edited (or the PGlite version changes). */
async function migrationsFingerprint(dir: string): Promise<string> {
  const folder = await readMigrationsFolder(dir);
  const parts = folder.migrations.map((m) => `${m.name}:${m.checksum}`);
  return sha256Hex([`pglite ${PGLITE_VERSION}`, ...parts].join('\n')).slice(0, 16);
}

async function buildPgliteTemplate(migrationsDir: string): Promise<Blob> {
  const db = wrapPglite(await leanMemoryPglite(), 'PGlite template');
  try {
    await migrateDb(db, { migrationsDir });
    await db.pglite.exec('CHECKPOINT');
    return await db.pglite.dumpDataDir('none');
  } finally {
    await db.close();
  }
}

async function createPostgresTestDb(
  serverUrl: string,
  migrationsDir: string,
  fingerprint: string,
  poolSize: number,
): Promise<Db> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect().catch((error: Error) => {
    throw new Error(
      `TEST_DATABASE_URL: cannot connect to ${redactUrl(serverUrl)}: ${error.message}`,
      { cause: error },
    );
  });
  let name: string | undefined;
  try {
    const template = await ensureTemplate(admin, serverUrl, migrationsDir, fingerprint);
    name = `swarm_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    await createDatabaseFrom(admin, name, template);
    const db = await createPostgresDb(withDatabase(serverUrl, name), poolSize);
    const dbName = name;
    let closing: Promise<void> | undefined;
    return {
      ...db,
      description: `Postgres test database ${dbName}`,
      close: () =>
        (closing ??= (async () => {
          try {
            await db.close();
          } finally {
            await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => {});
            await admin.end().catch(() => {});
          }
        })()),
    };
  } catch (error) {
    if (name) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
    await admin.end().catch(() => {});
    throw error;
  }
}

/**
 * The migrated template database for this set of migrations, made once per server. Parallel
 * test workers may race to build it: each builds under a temporary name and renames it into
 * place; the losers drop theirs.
 */
async function ensureTemplate(
  admin: pg.Client,
  serverUrl: string,
  migrationsDir: string,
  fingerprint: string,
): Promise<string> {
  const template = `swarm_tpl_${fingerprint}`;
  if (await databaseExists(admin, template)) return template;
  const building = `swarm_tplbuild_${randomBytes(6).toString('hex')}`;
  await admin.query(`CREATE DATABASE "${building}"`);
  try {
    const db = await createPostgresDb(withDatabase(serverUrl, building), 1);
    try {
      await migrateDb(db, { migrationsDir });
    } finally {
      await db.close();
    }
    await admin.query(`ALTER DATABASE "${building}" RENAME TO "${template}"`);
  } catch (error) {
    await admin.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`).catch(() => {});
    if (await databaseExists(admin, template)) return template; // another worker won the race
    throw error;
  }
  return template;
}

async function createDatabaseFrom(admin: pg.Client, name: string, template: string): Promise<void> {
  // Postgres refuses a template that has a connection open, which a worker finishing the
  // template build may briefly still have: retry for a moment.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
      return;
    } catch (error) {
      const busy = /being accessed by other users/.test((error as Error).message);
      if (!busy || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function databaseExists(admin: pg.Client, name: string): Promise<boolean> {
  const result = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  return (result.rowCount ?? 0) > 0;
}

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}
