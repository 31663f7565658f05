import { createDb } from '../create-db.ts';
import { migrateDb } from '../migrations/apply-migrations.ts';
import { runCli } from './run-cli.ts';

// `pnpm db:migrate`: applies pending migrations to the configured database, the same way the
// node does at start-up. DATABASE_URL unset → PGlite at $DATA_DIR/db (DATA_DIR default ./data);
// relative paths are taken from the directory the pnpm command was run in (INIT_CWD), so
// `pnpm db:migrate` at the repo root uses ./data of the repo root.
await runCli(async () => {
  const db = await createDb({
    databaseUrl: process.env.DATABASE_URL || undefined,
    dataDir: process.env.DATA_DIR?.trim() || './data',
    baseDir: process.env.INIT_CWD || process.cwd(),
  });
  try {
    console.log(`Migrating ${db.description}`);
    const started = Date.now();
    const { applied } = await migrateDb(db, { log: (line) => console.log(`  ${line}`) });
    console.log(
      applied.length === 0
        ? `Already up to date (${Date.now() - started} ms).`
        : `Applied ${applied.length} migration(s) in ${Date.now() - started} ms.`,
    );
    return 0;
  } finally {
    await db.close();
  }
});
