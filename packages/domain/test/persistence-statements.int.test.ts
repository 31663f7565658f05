import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma, type Db } from '@swarm/db';
import { createTestDb } from '@swarm/db/testing';
import { rawStatements } from '../src/persistence/index.ts';

// Every raw SQL statement of the node, planned against the migrated schema (PGlite, or Postgres
// with TEST_DATABASE_URL): a renamed table or column, a dropped enum value or a mistyped
// parameter fails here. EXPLAIN parses, resolves every name and plans the statement, data-
// modifying CTEs included, without running it. The catalog fills itself as statements are
// defined (`sqlStatement`, `batchedSql`); the scan below keeps raw SQL from being written
// anywhere else, so a new statement cannot escape the test.

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const persistence = join(root, 'packages/domain/src/persistence');

/** Inline raw SQL: a tagged `$queryRaw`/`$executeRaw`, `Prisma.sql` or `Prisma.raw`. */
const INLINE_SQL = /\$(?:queryRaw|executeRaw)\w*\s*(?:<[^`()]*?>)?\s*`|Prisma\.(?:sql|raw)\b/;

/**
 * Files allowed to hold inline raw SQL, each with its reason. The list only shrinks: the test
 * fails when a listed file no longer has inline SQL.
 */
const INLINE_ALLOWED = [
  // Not domain's to hold: auth sits below the domain (auth → db, docs/architecture.md), and its one
  // statement (the first-admin advisory lock) names no table or column a migration could rename.
  'packages/auth/src/sign-up.ts',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'generated' ? [] : sourceFiles(path);
    return /\.(ts|svelte)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [path] : [];
  });
}

let db: Db;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db.close();
});

describe('raw SQL statements', () => {
  const statements = rawStatements();

  it('are catalogued: every statement file was loaded with persistence/index.ts', async () => {
    expect(statements.length).toBeGreaterThan(0);
    // A file the index did not load would define its statements now, and the catalog would grow.
    for (const file of readdirSync(persistence).filter((f) => f.endsWith('.sql.ts'))) {
      await import(pathToFileURL(join(persistence, file)).href);
    }
    expect(rawStatements()).toHaveLength(statements.length);
  });

  it.each(statements.map((s) => [s.name, s] as const))(
    '%s plans against the migrated schema',
    async (_name, statement) => {
      const plan = await db.prisma.$queryRaw<unknown[]>(Prisma.sql`EXPLAIN ${statement.example()}`);
      expect(plan.length).toBeGreaterThan(0);
    },
  );

  it('a statement naming a column that does not exist fails the same check', async () => {
    await expect(
      db.prisma.$queryRaw(Prisma.sql`EXPLAIN SELECT no_such_column FROM messages`),
    ).rejects.toThrow(/no_such_column/);
  });

  it('are written only in packages/domain/src/persistence', () => {
    const inline = ['packages', 'apps']
      .flatMap((top) =>
        readdirSync(join(root, top)).flatMap((pkg) => {
          try {
            return sourceFiles(join(root, top, pkg, 'src'));
          } catch {
            return [];
          }
        }),
      )
      .filter((file) => !file.startsWith(persistence))
      .filter((file) => INLINE_SQL.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file))
      .sort();
    expect(inline).toEqual(INLINE_ALLOWED);
  });
});
