import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkMigrations,
  createMigration,
  EmptyMigrationError,
  MIGRATIONS_DIR,
  SCHEMA_PATH,
} from '../src/index.ts';
import { migrationSlug, nextTimestamp } from '../src/migrations/schema-diff.ts';

// `pnpm db:check` in CI: the schema and the migrations must agree. These tests call the same
// function the CLI calls, on the real repo and on a copy of it with a model added. The engine
// diffs on scratch PGlite clusters whatever the database under test, so CI's Postgres pass
// (TEST_DATABASE_URL set) skips what its PGlite pass has run.

describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('drift check', () => {
  let dir: string;
  let schemaPath: string;
  let migrationsDir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'swarm-db-check-'));
    schemaPath = join(dir, 'schema.prisma');
    migrationsDir = join(dir, 'migrations');
    await cp(MIGRATIONS_DIR, migrationsDir, { recursive: true });
    const schema = await readFile(SCHEMA_PATH, 'utf8');
    await writeFile(
      schemaPath,
      `${schema}\nmodel Draft {\n  id     String @id @default(uuid()) @db.Uuid\n  postId String @map("post_id") @db.Uuid\n\n  @@map("drafts")\n}\n`,
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('passes on the repository as committed', async () => {
    expect(await checkMigrations()).toEqual({ ok: true });
  });

  it('fails when a model is added without a migration, showing the missing SQL', async () => {
    const result = await checkMigrations({ schemaPath, migrationsDir });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.missingSql).toContain('CREATE TABLE "drafts"');
    expect(result.missingSql).not.toContain('CREATE TABLE "users"');
  });

  it('passes again once migrate:new has written the migration, and then refuses an empty one', async () => {
    const created = await createMigration('Add drafts', {
      schemaPath,
      migrationsDir,
      now: new Date('2999-01-02T03:04:05Z'),
    });
    expect(created.name).toBe('29990102030405_add_drafts');
    expect(await readFile(created.file, 'utf8')).toContain('CREATE TABLE "drafts"');
    expect((await readdir(migrationsDir)).sort()).toContain('migration_lock.toml');
    expect(await checkMigrations({ schemaPath, migrationsDir })).toEqual({ ok: true });
    await expect(createMigration('again', { schemaPath, migrationsDir })).rejects.toBeInstanceOf(
      EmptyMigrationError,
    );
  });
});

describe('migration names', () => {
  it('makes Prisma-style folder names that sort after the existing ones', () => {
    expect(migrationSlug('  Add bookmarks!  ')).toBe('add_bookmarks');
    expect(() => migrationSlug('!!!')).toThrow(/not usable/);
    const now = new Date('2026-11-23T10:00:00Z');
    expect(nextTimestamp(now, undefined)).toBe('20261123100000');
    expect(nextTimestamp(now, '20261122000000')).toBe('20261123100000');
    // A clock behind the newest migration (or two in one second) still sorts after it.
    expect(nextTimestamp(now, '20261123100000')).toBe('20261123100001');
    expect(nextTimestamp(now, '20270101235959')).toBe('20270102000000');
  });
});
