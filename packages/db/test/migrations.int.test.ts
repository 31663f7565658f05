import { mkdtemp, mkdir, rm, writeFile, cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresDb,
  MIGRATIONS_DIR,
  migrateDb,
  MigrationError,
  wrapPglite,
  type Db,
} from '../src/index.ts';
import { readMigrationsFolder } from '../src/migrations/migration-files.ts';
import { NO_FILTERS, toMigrationList, withSchemaEngine } from '../src/migrations/schema-engine.ts';
import { freshMemoryPglite } from '../src/pglite.ts';
import { createTestDb } from '../src/testing/index.ts';

// Migrations apply, re-apply as a no-op, and leave a history the real Prisma engine agrees with.
// Runs on PGlite, or on Postgres when TEST_DATABASE_URL is set (plus the Postgres-only cases).

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

/** An empty, unmigrated database of the kind under test. */
async function emptyDb(): Promise<Db & { drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) {
    const db = wrapPglite(await freshMemoryPglite(), 'empty PGlite');
    return Object.assign(db, { drop: () => db.close() });
  }
  const name = `swarm_test_empty_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  const db = await createPostgresDb(url.toString(), 4);
  return Object.assign(db, {
    drop: async () => {
      await db.close();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  });
}

function engineFactory(db: Db) {
  return db.kind === 'pglite' ? new PrismaPGlite(db.pglite) : new PrismaPg(db.pool);
}

const EXPECTED_TABLES = [
  '_prisma_migrations',
  'account_tombstones',
  'admin_api_tokens',
  'app_delegations',
  'audit_log',
  'bookmarks',
  'client_apps',
  'follows',
  'handle_registry',
  'inbound_interactions',
  'invites',
  'likes',
  'list_members',
  'lists',
  'media_items',
  'messages',
  'node_blocks',
  'node_key',
  'node_mutes',
  'node_settings',
  'notifications',
  'oauth_codes',
  'oauth_tokens',
  'origin_pending_effects',
  'outbox_deliveries',
  'peer_crawls',
  'post_idempotency_keys',
  'posts',
  'push_outbox',
  'push_subscriptions',
  'rate_limit_bucket',
  'read_markers',
  'remote_actors',
  'remote_author_polls',
  'remote_profiles',
  'report_posts',
  'reports',
  'reposts',
  'request_nonces',
  'sessions',
  'swarm_nodes',
  'swarm_seeds',
  'swarm_sync_logs',
  'uploads',
  'user_blocks',
  'user_mutes',
  'users',
];

async function tableNames(db: Db): Promise<string[]> {
  const rows = await db.prisma.$queryRaw<{ table_name: string }[]>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`;
  return rows.map((r) => r.table_name);
}

describe(`migrations on ${TEST_DATABASE_URL ? 'Postgres' : 'PGlite'}`, () => {
  let db: Db & { drop(): Promise<void> };
  const log: string[] = [];

  beforeAll(async () => {
    db = await emptyDb();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('applies every migration to an empty database and records it like Prisma', async () => {
    const folder = await readMigrationsFolder(MIGRATIONS_DIR);
    const result = await migrateDb(db, { log: (line) => log.push(line) });
    expect(result.applied).toEqual(folder.migrations.map((m) => m.name));
    expect(log.every((line) => line.startsWith('applied migration '))).toBe(true);
    expect(await tableNames(db)).toEqual(EXPECTED_TABLES);

    const history = await db.prisma.$queryRaw<
      {
        migration_name: string;
        checksum: string;
        finished_at: Date | null;
        applied_steps_count: number;
      }[]
    >`SELECT migration_name, checksum, finished_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name`;
    expect(history).toEqual(
      folder.migrations.map((m) => ({
        migration_name: m.name,
        checksum: m.checksum,
        finished_at: expect.any(Date),
        applied_steps_count: 1,
      })),
    );
  });

  it('does nothing when run again', async () => {
    const started = performance.now();
    const result = await migrateDb(db);
    const ms = performance.now() - started;
    expect(result.applied).toEqual([]);
    console.info(`[timing] no-op migrateDb on ${db.kind}: ${ms.toFixed(1)} ms`);
  });

  it("leaves a history Prisma's own engine reads as up to date (what `prisma migrate status` checks)", async () => {
    const folder = await readMigrationsFolder(MIGRATIONS_DIR);
    const diagnosis = await withSchemaEngine(engineFactory(db), (engine) =>
      engine.diagnoseMigrationHistory({
        migrationsList: toMigrationList(folder),
        optInToShadowDatabase: false,
        filters: NO_FILTERS,
      }),
    );
    expect(diagnosis).toMatchObject({
      history: null,
      failedMigrationNames: [],
      editedMigrationNames: [],
      hasMigrationsTable: true,
    });
  });
});

describe('interplay with Prisma’s engine', () => {
  it('takes over a database migrated by the Prisma engine without re-applying anything', async () => {
    const db = await emptyDb();
    try {
      const folder = await readMigrationsFolder(MIGRATIONS_DIR);
      const applied = await withSchemaEngine(engineFactory(db), (engine) =>
        engine.applyMigrations({ migrationsList: toMigrationList(folder), filters: NO_FILTERS }),
      );
      expect(applied.appliedMigrationNames).toEqual(folder.migrations.map((m) => m.name));
      const warnings: string[] = [];
      expect((await migrateDb(db, { log: (l) => warnings.push(l) })).applied).toEqual([]);
      expect(warnings).toEqual([]); // same checksums

      // Our CREATE TABLE IF NOT EXISTS must describe the same table as Prisma's.
      const columns = await db.prisma.$queryRaw<unknown[]>`
        SELECT column_name, data_type, character_maximum_length, is_nullable, column_default
        FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`;
      const ours = await emptyDb();
      try {
        await migrateDb(ours);
        const ourColumns = await ours.prisma.$queryRaw<unknown[]>`
          SELECT column_name, data_type, character_maximum_length, is_nullable, column_default
          FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`;
        expect(ourColumns).toEqual(columns);
      } finally {
        await ours.drop();
      }
    } finally {
      await db.drop();
    }
  });
});

describe('failures', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'swarm-db-migrations-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('rolls a failing migration back completely and names it', async () => {
    const migrationsDir = join(dir, 'broken');
    await cp(MIGRATIONS_DIR, migrationsDir, { recursive: true });
    await mkdir(join(migrationsDir, '29990101000000_broken'));
    await writeFile(
      join(migrationsDir, '29990101000000_broken', 'migration.sql'),
      'CREATE TABLE "half_done" ("id" INTEGER PRIMARY KEY);\nALTER TABLE "no_such_table" ADD COLUMN "x" INTEGER;\n',
    );
    const db = await createTestDb();
    try {
      const failure = migrateDb(db, { migrationsDir });
      await expect(failure).rejects.toBeInstanceOf(MigrationError);
      await expect(failure).rejects.toThrow(/29990101000000_broken failed and was rolled back/);
      expect(await tableNames(db)).not.toContain('half_done');
      const rows = await db.prisma.$queryRaw<unknown[]>`
        SELECT 1 FROM _prisma_migrations WHERE migration_name = '29990101000000_broken'`;
      expect(rows).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('refuses to run over a migration Prisma recorded as failed', async () => {
    const db = await createTestDb();
    try {
      await db.prisma.$executeRaw`
        INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count)
        VALUES ('00000000-0000-0000-0000-000000000001', 'x', '29990101000000_failed', now(), 0)`;
      await expect(migrateDb(db)).rejects.toThrow(/failed migrations \(29990101000000_failed\)/);
    } finally {
      await db.close();
    }
  });

  it('warns about edited migrations and migrations it does not know, and goes on', async () => {
    const db = await createTestDb();
    try {
      await db.prisma.$executeRaw`UPDATE _prisma_migrations SET checksum = 'edited'`;
      await db.prisma.$executeRaw`
        INSERT INTO _prisma_migrations (id, checksum, migration_name, finished_at, started_at, applied_steps_count)
        VALUES ('00000000-0000-0000-0000-000000000002', 'x', '29990101000000_from_the_future', now(), now(), 1)`;
      const lines: string[] = [];
      expect((await migrateDb(db, { log: (l) => lines.push(l) })).applied).toEqual([]);
      expect(lines.join('\n')).toMatch(/was edited after it was applied/);
      expect(lines.join('\n')).toMatch(/29990101000000_from_the_future/);
    } finally {
      await db.close();
    }
  });
});

describe.skipIf(!TEST_DATABASE_URL)('concurrent start-up on one Postgres', () => {
  it('applies each migration once when two processes migrate at the same time', async () => {
    const first = await emptyDb();
    const url = new URL(TEST_DATABASE_URL ?? '');
    const [current] = await first.prisma.$queryRaw<
      { db: string }[]
    >`SELECT current_database() AS db`;
    url.pathname = `/${current?.db}`;
    const second = await createPostgresDb(url.toString(), 2);
    try {
      const folder = await readMigrationsFolder(MIGRATIONS_DIR);
      const results = await Promise.all([migrateDb(first), migrateDb(second)]);
      const applied = results.flatMap((r) => r.applied).sort();
      expect(applied).toEqual(folder.migrations.map((m) => m.name).sort());
      const rows = await first.prisma.$queryRaw<
        { n: bigint }[]
      >`SELECT count(*) AS n FROM _prisma_migrations`;
      expect(Number(rows[0]?.n)).toBe(folder.migrations.length);
    } finally {
      await second.close();
      await first.drop();
    }
  });
});
