// `pnpm build`: builds the web app (SvelteKit, apps/web/build) and the gateway's entry points
// (esbuild, apps/gateway/dist), and records the fingerprint of each one's inputs next to it.
//
//   node scripts/build.mjs                      build both
//   node scripts/build.mjs --if-stale           build only what changed since its last build
//   node scripts/build.mjs --if-stale gateway   the same, for the named targets only
//
// `pnpm start`, `pnpm test` and `pnpm swarm` use --if-stale: on an already built checkout the
// check costs a hash of the sources (~0.1 s) instead of a ~15 s web build.
// Plain JavaScript, run by `node`.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fingerprint, ROOT, TARGETS } from './build-inputs.mjs';

const args = process.argv.slice(2);
const ifStale = args.includes('--if-stale');
const named = args.filter((a) => !a.startsWith('--'));
for (const name of named) {
  if (!(name in TARGETS)) {
    console.error(`unknown build target "${name}" (known: ${Object.keys(TARGETS).join(', ')})`);
    process.exit(2);
  }
}
const targets = named.length > 0 ? named : Object.keys(TARGETS);

function isFresh(target, inputs) {
  const { output, stamp } = TARGETS[target];
  if (!existsSync(join(ROOT, output))) return false;
  try {
    return readFileSync(join(ROOT, stamp), 'utf8').trim() === inputs;
  } catch {
    return false;
  }
}

const builders = {
  web(inputs) {
    // The fingerprint is also the SvelteKit version name (apps/web/vite.config.ts).
    const result = spawnSync('pnpm', ['--filter', '@swarm/web', 'build'], {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, SWARM_WEB_BUILD_ID: inputs },
    });
    if (result.status !== 0) {
      throw new Error(`the web build failed (${result.error?.message ?? `exit ${result.status}`})`);
    }
  },
  async gateway() {
    const { buildGateway } = await import(pathToFileURL(join(ROOT, 'apps/gateway/build.mjs')).href);
    await buildGateway();
  },
};

try {
  for (const target of targets) {
    const inputs = fingerprint(target);
    if (ifStale && isFresh(target, inputs)) continue;
    const started = Date.now();
    console.error(`building ${target}${ifStale ? ' (its sources changed)' : ''}…`);
    rmSync(join(ROOT, TARGETS[target].stamp), { force: true });
    await builders[target](inputs);
    writeFileSync(join(ROOT, TARGETS[target].stamp), `${inputs}\n`);
    console.log(`built ${target} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
