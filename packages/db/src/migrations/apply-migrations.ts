import { randomUUID } from 'node:crypto';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import type pg from 'pg';
import { createDb, type Db, type DbConfig } from '../create-db.ts';
import type { PgliteSession } from '../pglite.ts';
import { MIGRATIONS_DIR } from '../paths.ts';
import { checksumMatches, readMigrationsFolder, type MigrationFile } from './migration-files.ts';

// Applies the migrations of prisma/migrations at start-up and for `pnpm db:migrate`.
//
// Plain SQL rather than the schema engine (docs/database.md): each migration runs in its own
// transaction (a failure leaves nothing half-applied), under Prisma's own advisory lock (so two
// replicas starting together, or a concurrent `prisma migrate deploy`, take turns), and is
// recorded in `_prisma_migrations` exactly as Prisma records it, so the Prisma CLI sees the same
// history. A no-op run is a couple of small queries.

/** Prisma's lock id (`SELECT pg_advisory_lock(72707369)` in its schema engine). */
export const PRISMA_MIGRATE_LOCK_ID = 72707369;

/** Prisma's DDL for its history table, verbatim in effect (column names, types, defaults). */
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrateOptions {
  /** Progress lines ("applied 20261123100533_init (41 ms)"), warnings included. */
  log?: (line: string) => void;
  /** Default: the repo's prisma/migrations. */
  migrationsDir?: string;
}

export interface MigrateResult {
  /** Names of the migrations this call applied, in order (empty when up to date). */
  applied: string[];
}

export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

/** Brings the database up to date with the migrations folder. Safe to call on every start. */
export async function migrateDb(db: Db, options: MigrateOptions = {}): Promise<MigrateResult> {
  const folder = await readFolder(options);
  const log = options.log ?? (() => {});
  const conn =
    db.kind === 'pglite' ? pgliteConnection(db.pglite) : await postgresConnection(db.pool, log);
  try {
    return await migrate(conn, folder.migrations, log);
  } finally {
    await conn.release();
  }
}

/**
 * Opens the configured database and brings it up to date (`createDb` then `migrateDb`). A new
 * embedded database is migrated in the child process that creates it, before this process
 * opens it: the memory PGlite grows while applying the migrations is the child's and goes back
 * to the system when it exits (docs/decisions.md). A start interrupted there leaves no database,
 * and the next start builds it again.
 */
export async function createMigratedDb(
  config: DbConfig,
  options: MigrateOptions = {},
): Promise<{ db: Db } & MigrateResult> {
  const log = options.log ?? (() => {});
  let appliedFirst: string[] = [];
  const db = await createDb(config, {
    prepareNew: async (session) => {
      const folder = await readFolder(options);
      appliedFirst = (await migrate(sessionConnection(session), folder.migrations, log)).applied;
    },
  });
  try {
    // Up to date after a new database; an existing one gets what it lacks, here.
    const { applied } = await migrateDb(db, options);
    return { db, applied: [...appliedFirst, ...applied] };
  } catch (error) {
    await db.close();
    throw error;
  }
}

async function readFolder(options: MigrateOptions) {
  const folder = await readMigrationsFolder(options.migrationsDir ?? MIGRATIONS_DIR);
  if (folder.migrations.length === 0) {
    throw new MigrationError(`no migrations found in ${folder.dir}`);
  }
  return folder;
}

async function migrate(
  conn: MigrationConnection,
  migrations: MigrationFile[],
  log: (line: string) => void,
): Promise<MigrateResult> {
  // Checked first: even a no-op CREATE TABLE IF NOT EXISTS costs ~40 ms on PGlite.
  const [table] = await conn.query<{ name: string | null }>(
    `SELECT to_regclass('"_prisma_migrations"')::text AS name`,
  );
  if (!table?.name) await conn.exec(CREATE_MIGRATIONS_TABLE);
  const rows = await conn.query<HistoryRow>(
    'SELECT "migration_name", "checksum", "finished_at", "rolled_back_at" FROM "_prisma_migrations" ORDER BY "started_at"',
  );
  const pending = planMigrations(migrations, rows, log);
  const applied: string[] = [];
  for (const migration of pending) {
    const started = Date.now();
    await applyOne(conn, migration);
    applied.push(migration.name);
    log(`applied migration ${migration.name} (${Date.now() - started} ms)`);
  }
  return { applied };
}

interface HistoryRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | string | null;
  rolled_back_at: Date | string | null;
}

/** What to apply, refusing to go on over a failed migration (Prisma's P3009 rule). */
function planMigrations(
  files: MigrationFile[],
  rows: HistoryRow[],
  log: (line: string) => void,
): MigrationFile[] {
  const live = rows.filter((r) => r.rolled_back_at === null);
  const failed = live.filter((r) => r.finished_at === null);
  if (failed.length > 0) {
    const names = failed.map((r) => r.migration_name).join(', ');
    throw new MigrationError(
      `the database has failed migrations (${names}). Repair the database by hand, then mark them ` +
        `rolled back (UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = '…') ` +
        'or applied (prisma migrate resolve), and start again.',
    );
  }
  const done = new Map(live.map((r) => [r.migration_name, r]));
  const known = new Set(files.map((f) => f.name));
  for (const file of files) {
    const row = done.get(file.name);
    if (row && !checksumMatches(row.checksum, file)) {
      log(`warning: migration ${file.name} was edited after it was applied to this database`);
    }
  }
  const unknown = [...done.keys()].filter((name) => !known.has(name));
  if (unknown.length > 0) {
    log(
      `warning: the database has migrations this code doesn't know (${unknown.join(', ')}); is a newer version running against it?`,
    );
  }
  return files.filter((f) => !done.has(f.name));
}

/**
 * One migration in one transaction, with its history row. A script that manages transactions
 * itself (Prisma writes BEGIN/COMMIT around some enum changes) runs as is, and like Prisma we
 * then record a failure in the history so nobody builds on a half-applied migration.
 */
async function applyOne(conn: MigrationConnection, migration: MigrationFile): Promise<void> {
  const id = randomUUID();
  const startedAt = new Date();
  const record = (tx: SqlRunner) =>
    tx.query(
      `INSERT INTO "_prisma_migrations" ("id", "checksum", "finished_at", "migration_name", "logs", "rolled_back_at", "started_at", "applied_steps_count")
       VALUES ($1, $2, clock_timestamp(), $3, NULL, NULL, $4, 1)`,
      [id, migration.checksum, migration.name, startedAt],
    );
  if (!OWN_TRANSACTION.test(migration.sql)) {
    try {
      await conn.transaction(async (tx) => {
        await tx.exec(migration.sql);
        await record(tx);
      });
      return;
    } catch (error) {
      throw new MigrationError(
        `migration ${migration.name} failed and was rolled back: ${errorText(error)}`,
        { cause: error },
      );
    }
  }
  await conn.query(
    `INSERT INTO "_prisma_migrations" ("id", "checksum", "migration_name", "started_at", "applied_steps_count") VALUES ($1, $2, $3, $4, 0)`,
    [id, migration.checksum, migration.name, startedAt],
  );
  try {
    await conn.exec(migration.sql);
  } catch (error) {
    await conn.query('UPDATE "_prisma_migrations" SET "logs" = $2 WHERE "id" = $1', [
      id,
      errorText(error),
    ]);
    throw new MigrationError(
      `migration ${migration.name} failed part-way (it manages its own transactions); the database needs a manual repair: ${errorText(error)}`,
      { cause: error },
    );
  }
  await conn.query(
    'UPDATE "_prisma_migrations" SET "finished_at" = clock_timestamp(), "applied_steps_count" = 1 WHERE "id" = $1',
    [id],
  );
}

const OWN_TRANSACTION = /^\s*(BEGIN|COMMIT|START\s+TRANSACTION)\s*;/im;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

interface SqlRunner {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Several statements at once (no parameters). */
  exec(sql: string): Promise<void>;
}

interface MigrationConnection extends SqlRunner {
  transaction(fn: (tx: SqlRunner) => Promise<void>): Promise<void>;
  release(): Promise<void>;
}

function pgliteRunner(q: PGlite | Transaction): SqlRunner {
  return {
    query: async <T>(sql: string, params?: unknown[]) => (await q.query<T>(sql, params)).rows,
    exec: async (sql) => {
      await q.exec(sql);
    },
  };
}

// One process owns a PGlite data directory, so there is nobody to lock against.
function pgliteConnection(pglite: PGlite): MigrationConnection {
  return {
    ...pgliteRunner(pglite),
    transaction: async (fn) => {
      await pglite.transaction((tx) => fn(pgliteRunner(tx)));
    },
    release: async () => {},
  };
}

/** Transactions by BEGIN/COMMIT over a runner whose statements all go to one session. */
function sessionTransactions(runner: SqlRunner, release: () => Promise<void>): MigrationConnection {
  return {
    ...runner,
    transaction: async (fn) => {
      await runner.exec('BEGIN');
      try {
        await fn(runner);
        await runner.exec('COMMIT');
      } catch (error) {
        await runner.exec('ROLLBACK').catch(() => {});
        throw error;
      }
    },
    release,
  };
}

// A new database in the child that creates it: nobody else can reach it.
function sessionConnection(session: PgliteSession): MigrationConnection {
  return sessionTransactions(
    { query: (sql, params) => session.query(sql, params), exec: (sql) => session.exec(sql) },
    async () => {},
  );
}

async function postgresConnection(
  pool: pg.Pool,
  log: (line: string) => void,
): Promise<MigrationConnection> {
  const client = await pool.connect();
  const runner: SqlRunner = {
    query: async <T>(sql: string, params?: unknown[]) =>
      (await client.query(sql, params)).rows as T[],
    exec: async (sql) => {
      await client.query(sql); // no parameters: simple protocol, several statements allowed
    },
  };
  try {
    const got = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_lock($1) AS locked',
      [PRISMA_MIGRATE_LOCK_ID],
    );
    if (!got.rows[0]?.locked) {
      log('another process is migrating this database; waiting for it to finish');
      await client.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATE_LOCK_ID]);
    }
  } catch (error) {
    client.release();
    throw error;
  }
  return sessionTransactions(runner, async () => {
    try {
      await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATE_LOCK_ID]);
      client.release();
    } catch (error) {
      // A broken connection: drop it (the server frees its session lock).
      client.release(error instanceof Error ? error : true);
    }
  });
}
