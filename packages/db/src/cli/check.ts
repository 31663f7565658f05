import { checkMigrations } from '../migrations/schema-diff.ts';
import { parseSourceArgs } from './cli-args.ts';
import { runCli } from './run-cli.ts';

// `pnpm db:check` (CI): fails when prisma/schema.prisma and prisma/migrations disagree, printing
// the SQL a new migration would need. `--schema <file>` / `--migrations <dir>` check other files.
await runCli(async () => {
  const started = Date.now();
  const result = await checkMigrations(parseSourceArgs(process.argv.slice(2)).sources);
  if (result.ok) {
    console.log(`The schema and the migrations are in sync (${Date.now() - started} ms).`);
    return 0;
  }
  console.error(
    'The schema has changes that no migration makes. SQL missing from the migrations:\n\n' +
      `${result.missingSql.trimEnd()}\n\n` +
      'Create the migration with `pnpm db:migrate:new <name>` and commit it with the schema change.',
  );
  return 1;
});
