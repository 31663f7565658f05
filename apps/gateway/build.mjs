// Compiles the gateway's entry points to plain JavaScript in dist/ (esbuild), so production runs
// `node dist/main.js` with neither pnpm nor tsx (docs/deployment.md "The runtime"):
//   dist/main.js     the node: gateway alone, or with `--with-web` the embedded mode
//   dist/cli.js      `swarm <command>` (pnpm swarm)
//   dist/migrate.js  applies prisma/migrations and exits (pnpm db:migrate, compose's migrate job)
//
// The workspace packages (TypeScript source) and small pure-JS libraries are bundled. The
// packages listed in this package's "dependencies" stay external and are loaded from
// node_modules at run time: they load files next to themselves (PGlite's WASM and data files,
// Prisma's query compiler), native code (argon2) or worker files (pino), which bundling breaks.
// The bundles sit two folders under the repository root, like packages/db/src, so the paths
// @swarm/db derives from import.meta.url (prisma/migrations) resolve the same.
// Plain JavaScript, run by `node` (scripts/build.mjs), so building needs no tsx.
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const gatewayDir = dirname(fileURLToPath(import.meta.url));
export const DIST_DIR = join(gatewayDir, 'dist');

/** Third-party runtime dependencies: external, resolved from node_modules. */
function externals() {
  const pkg = JSON.parse(readFileSync(join(gatewayDir, 'package.json'), 'utf8'));
  return Object.entries(pkg.dependencies ?? {})
    .filter(([, spec]) => !String(spec).startsWith('workspace:'))
    .map(([name]) => name);
}

export async function buildGateway() {
  await rm(DIST_DIR, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: gatewayDir,
    entryPoints: {
      main: 'src/main.ts',
      cli: 'src/cli/main.ts',
      migrate: '../../packages/db/src/cli/migrate.ts',
    },
    outdir: DIST_DIR,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Shared code goes to chunks named by a hash of their content (the same sources give the
    // same files), next to the entries: the same depth under the root for import.meta.url.
    chunkNames: '[name]-[hash]',
    external: externals(),
    // CommonJS libraries inside an ES module bundle still call require() for Node's modules.
    banner: {
      js: "import { createRequire as __swarmCreateRequire } from 'node:module'; const require = __swarmCreateRequire(import.meta.url);",
    },
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
  });
  return result.metafile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  await buildGateway();
  console.log(`gateway built into ${DIST_DIR} in ${Date.now() - started} ms`);
}
