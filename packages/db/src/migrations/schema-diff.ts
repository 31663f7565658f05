import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { MIGRATIONS_DIR, SCHEMA_PATH } from '../paths.ts';
import {
  MIGRATION_LOCK_CONTENT,
  MIGRATION_LOCK_FILE,
  readMigrationsFolder,
} from './migration-files.ts';
import { NO_FILTERS, toMigrationList, withScratchSchemaEngine } from './schema-engine.ts';

export interface SchemaSources {
  /** Default: the repo's prisma/schema.prisma. */
  schemaPath?: string;
  /** Default: the repo's prisma/migrations. */
  migrationsDir?: string;
}

export interface SchemaDiff {
  /** True when the migrations already produce exactly the schema. */
  empty: boolean;
  /** The SQL that would bring a database migrated with the folder to the schema. */
  sql: string;
}

/** Diff from "all migrations applied" to the schema, as `prisma migrate diff --script` prints it. */
export async function diffMigrationsToSchema(sources: SchemaSources = {}): Promise<SchemaDiff> {
  const schemaPath = sources.schemaPath ?? SCHEMA_PATH;
  const folder = await readMigrationsFolder(sources.migrationsDir ?? MIGRATIONS_DIR);
  const schema = await readFile(schemaPath, 'utf8');
  return withScratchSchemaEngine(async (engine) => {
    const result = await engine.diff({
      from:
        folder.migrations.length === 0
          ? { tag: 'empty' }
          : { tag: 'migrations', ...toMigrationList(folder) },
      to: { tag: 'schemaDatamodel', files: [{ path: basename(schemaPath), content: schema }] },
      script: true,
      // Makes the engine report a non-empty diff as exit code 2 (like `--exit-code`).
      exitCode: true,
      filters: NO_FILTERS,
    });
    return { empty: result.exitCode !== 2, sql: result.stdout ?? '' };
  });
}

export type CheckResult = { ok: true } | { ok: false; missingSql: string };

/** Drift check for CI: the schema and the migrations folder must describe the same database. */
export async function checkMigrations(sources: SchemaSources = {}): Promise<CheckResult> {
  const diff = await diffMigrationsToSchema(sources);
  return diff.empty ? { ok: true } : { ok: false, missingSql: diff.sql };
}

export class EmptyMigrationError extends Error {
  constructor() {
    super(
      'The schema and the migrations already match: there is nothing to put in a new migration.',
    );
    this.name = 'EmptyMigrationError';
  }
}

export interface CreatedMigration {
  /** Folder name, e.g. `20261123093000_add_bookmarks`. */
  name: string;
  /** Absolute path of the new migration.sql. */
  file: string;
  sql: string;
}

/**
 * Writes `<migrationsDir>/<YYYYMMDDHHMMSS>_<name>/migration.sql` holding the diff from the
 * existing migrations to the schema (and migration_lock.toml if missing), like
 * `prisma migrate dev --create-only`. Throws EmptyMigrationError when there is nothing to add.
 */
export async function createMigration(
  rawName: string,
  sources: SchemaSources & { now?: Date } = {},
): Promise<CreatedMigration> {
  const slug = migrationSlug(rawName);
  const migrationsDir = sources.migrationsDir ?? MIGRATIONS_DIR;
  const diff = await diffMigrationsToSchema({ ...sources, migrationsDir });
  if (diff.empty) throw new EmptyMigrationError();

  const folder = await readMigrationsFolder(migrationsDir);
  const last = folder.migrations.at(-1)?.name.slice(0, 14);
  const name = `${nextTimestamp(sources.now ?? new Date(), last)}_${slug}`;
  const dir = join(migrationsDir, name);
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'migration.sql');
  await writeFile(file, diff.sql);
  if (folder.lockfile === null) {
    await writeFile(join(migrationsDir, MIGRATION_LOCK_FILE), MIGRATION_LOCK_CONTENT);
  }
  return { name, file, sql: diff.sql };
}

/** `Add bookmarks!` → `add_bookmarks` (Prisma's folder names are `<timestamp>_<snake name>`). */
export function migrationSlug(rawName: string): string {
  const slug = rawName
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 100);
  if (!slug)
    throw new Error(
      `"${rawName}" is not usable as a migration name: use letters and digits, e.g. add_bookmarks`,
    );
  return slug;
}

/** UTC `YYYYMMDDHHMMSS`, moved past the newest existing migration so the order stays right. */
export function nextTimestamp(now: Date, lastTimestamp: string | undefined): string {
  let stamp = utcStamp(now);
  if (lastTimestamp && /^\d{14}$/.test(lastTimestamp) && stamp <= lastTimestamp) {
    const t = lastTimestamp;
    const next = new Date(
      Date.UTC(
        +t.slice(0, 4),
        +t.slice(4, 6) - 1,
        +t.slice(6, 8),
        +t.slice(8, 10),
        +t.slice(10, 12),
        +t.slice(12, 14),
      ) + 1000,
    );
    stamp = utcStamp(next);
  }
  return stamp;
}

function utcStamp(d: Date): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}
