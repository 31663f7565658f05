import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMigration, EmptyMigrationError } from '../migrations/schema-diff.ts';
import { parseSourceArgs } from './cli-args.ts';
import { runCli } from './run-cli.ts';

// `pnpm db:migrate:new <name>`: writes prisma/migrations/<timestamp>_<name>/migration.sql with
// the SQL that brings the existing migrations to prisma/schema.prisma.
await runCli(async () => {
  const { sources, positional } = parseSourceArgs(process.argv.slice(2));
  const name = positional.join(' ').trim();
  if (!name) {
    console.error(
      'Usage: pnpm db:migrate:new <name>   (for example: pnpm db:migrate:new add_bookmarks)',
    );
    return 2;
  }
  try {
    const created = await createMigration(name, sources);
    const shown = relative(process.env.INIT_CWD ?? process.cwd(), created.file);
    // Only for the repo's own folder (not for `--migrations <other dir>`).
    if (!sources.migrationsDir) await writeSchemaHead(created.name);
    console.log(`Created ${shown}:\n\n${created.sql.trimEnd()}\n`);
    console.log(
      'Review it (add hand-written SQL such as CHECK constraints if needed), then apply it with `pnpm db:migrate`.',
    );
    return 0;
  } catch (error) {
    if (error instanceof EmptyMigrationError) {
      console.error(
        `${error.message}\nEdit prisma/schema.prisma first, then run this command again.`,
      );
      return 1;
    }
    throw error;
  }
});

/** Keeps src/migrations/schema-head.ts naming the newest migration (readiness checks it). */
async function writeSchemaHead(name: string) {
  const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'migrations', 'schema-head.ts');
  const text = await readFile(file, 'utf8');
  await writeFile(file, text.replace(/SCHEMA_HEAD = '[^']*'/, `SCHEMA_HEAD = '${name}'`));
}
