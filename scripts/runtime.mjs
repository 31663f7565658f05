// `pnpm runtime <dir>`: a self-contained runtime of the node in <dir>, with production
// dependencies only (docs/deployment.md "The runtime"). The Docker image is this directory.
//
//   <dir>/apps/gateway/dist/       main.js (the node), cli.js, migrate.js
//   <dir>/apps/web/build/          the SvelteKit server (embedded or standalone)
//   <dir>/prisma/migrations/       applied at start-up and by dist/migrate.js
//   <dir>/node_modules/            the external runtime dependencies of both, from the lockfile
//
// It is pnpm's `deploy --prod` for the two apps together: the workspace code is already in the
// bundles, so only their third-party "dependencies" are installed, at the lockfile's versions,
// into one node_modules they share (one copy of PGlite and Prisma in the embedded process).
// The checkout is left alone: a rebuild there never touches a runtime made from it.
// Plain JavaScript, run by `node`.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { ROOT, TARGETS } from './build-inputs.mjs';

const target = process.argv[2];
if (!target) {
  console.error('usage: pnpm runtime <dir>   (builds what changed, then writes the runtime there)');
  process.exit(2);
}
const dir = resolve(process.env.INIT_CWD ?? process.cwd(), target);

function run(cmd, args, cwd) {
  const result = spawnSync(cmd, args, { cwd, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(
      `${cmd} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})`,
    );
    process.exit(1);
  }
}

run(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], ROOT);
for (const t of Object.values(TARGETS)) {
  if (!existsSync(join(ROOT, t.output))) throw new Error(`${t.output} is missing after the build`);
}

if (existsSync(dir) && readdirSync(dir).length > 0) {
  if (!existsSync(join(dir, 'apps/gateway/dist/main.js'))) {
    console.error(
      `${dir} is not empty and is not a runtime made by this command: refusing to overwrite it`,
    );
    process.exit(1);
  }
}
// Written next to its place and moved there at the end: never half a runtime at <dir>.
const final = dir;
const work = `${final}.partial`;
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

const rootPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const copy = (from, to = from) => cpSync(join(ROOT, from), join(work, to), { recursive: true });

// The workspace, reduced to the two apps; the lockfile pins every version.
// The root manifest as the lockfile knows it (its devDependencies are not installed), without
// the checkout's scripts.
const { scripts: _scripts, ...runtimeRoot } = rootPkg;
writeFileSync(join(work, 'package.json'), `${JSON.stringify(runtimeRoot, null, 2)}\n`);
copy('pnpm-lock.yaml');
copy('pnpm-workspace.yaml');
for (const app of ['gateway', 'web']) {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'apps', app, 'package.json'), 'utf8'));
  // Scripts are for the checkout (tsx, vite, svelte-kit sync): none runs in the runtime.
  delete pkg.scripts;
  mkdirSync(join(work, 'apps', app), { recursive: true });
  writeFileSync(join(work, 'apps', app, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
}

run(
  'pnpm',
  [
    'install',
    '--prod',
    '--frozen-lockfile',
    '--prefer-offline',
    '--config.confirmModulesPurge=false',
    '--filter',
    '@swarm/gateway',
    '--filter',
    '@swarm/web',
  ],
  work,
);

pruneBuildTools(work);

copy('apps/gateway/dist');
copy('apps/web/build');
copy('prisma/migrations');
// Only the bundles and their node_modules are needed from here on.
for (const file of ['pnpm-lock.yaml', 'pnpm-workspace.yaml']) rmSync(join(work, file));
rmSync(final, { recursive: true, force: true });
renameSync(work, final);
console.error(`runtime written to ${final}: node apps/gateway/dist/main.js --with-web`);

/**
 * pnpm links the optional peers `prisma` (the CLI, with its studio, React and TypeScript) and
 * `typescript` into @prisma/client because the workspace has them; nothing loads them at run
 * time. Drops every package reachable only through them (~200 MB).
 */
function pruneBuildTools(root) {
  const BUILD_ONLY = new Set(['prisma', 'typescript']);
  const store = join(root, 'node_modules', '.pnpm');
  /** Entries of a node_modules folder, scoped ones expanded: [name, path]. */
  const entries = (folder) =>
    readdirSync(folder, { withFileTypes: true }).flatMap((e) => {
      if (e.name.startsWith('.')) return [];
      if (e.name.startsWith('@') && e.isDirectory()) {
        return readdirSync(join(folder, e.name)).map((n) => [
          `${e.name}/${n}`,
          join(folder, e.name, n),
        ]);
      }
      return [[e.name, join(folder, e.name)]];
    });
  /** The .pnpm/<id> folder a package path lives in. */
  const storeId = (path) => relative(store, realpathSync(path)).split(sep)[0];
  const keep = new Set();
  const queue = ['gateway', 'web'].flatMap((app) =>
    entries(join(root, 'apps', app, 'node_modules')).filter(([name]) => !BUILD_ONLY.has(name)),
  );
  while (queue.length > 0) {
    const [, path] = queue.pop();
    const id = storeId(path);
    if (keep.has(id)) continue;
    keep.add(id);
    for (const dep of entries(join(store, id, 'node_modules'))) {
      if (!BUILD_ONLY.has(dep[0])) queue.push(dep);
    }
  }
  for (const id of readdirSync(store)) {
    if (id !== 'node_modules' && !id.startsWith('.') && !keep.has(id)) {
      rmSync(join(store, id), { recursive: true, force: true });
    }
  }
  // The links to what was dropped (pnpm's hoisted links in .pnpm/node_modules too).
  for (const id of keep) {
    for (const name of BUILD_ONLY) rmSync(join(store, id, 'node_modules', name), { force: true });
  }
  for (const [, link] of entries(join(store, 'node_modules'))) {
    if (!existsSync(link)) rmSync(link, { force: true });
  }
}
