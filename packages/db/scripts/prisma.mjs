// Runs the Prisma CLI (`node scripts/prisma.mjs generate|format`) without its engine download:
// `pnpm db:generate` and the root postinstall use it. The CLI fetches its native schema engine
// before any command unless PRISMA_SCHEMA_ENGINE_BINARY names an existing file; `generate` and
// `format` never run that binary (they use the WASM schema tools shipped in the `prisma`
// package), so any existing file will do (docs/database.md). Migrations don't go through the
// CLI at all (src/cli/*).
// Plain JavaScript so it runs at install time with nothing but Node.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
let prismaPackage;
try {
  prismaPackage = require.resolve('prisma/package.json');
} catch {
  // A production install (`pnpm install --prod`) has no Prisma CLI (a devDependency). Nothing
  // there needs it: the generated client is compiled into the bundles (pnpm build).
  console.error(
    `prisma ${process.argv[2] ?? ''}: the Prisma CLI is not installed (production install), skipped.`,
  );
  process.exit(0);
}
const prismaCli = join(dirname(prismaPackage), 'build', 'index.js');

const env = { ...process.env, CHECKPOINT_DISABLE: '1', PRISMA_HIDE_UPDATE_MESSAGE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY || !existsSync(env.PRISMA_SCHEMA_ENGINE_BINARY)) {
  env.PRISMA_SCHEMA_ENGINE_BINARY = fileURLToPath(import.meta.url);
}
const result = spawnSync(process.execPath, [prismaCli, ...process.argv.slice(2)], {
  cwd: packageDir,
  env,
  stdio: 'inherit',
});
if (result.error) console.error(`the Prisma CLI could not start: ${result.error.message}`);
process.exit(result.status ?? 1);
