// What each build is made from, and a fingerprint of it: a SHA-256 over the path and content of
// every input file. `scripts/build.mjs` stores it next to the output and rebuilds only when it
// changed; the web app also uses it as its SvelteKit version name, so the same sources give
// byte-identical builds (no timestamp in them).
// Plain JavaScript, run by `node` before anything is built.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(import.meta.url), '../..');

/** Folders never read (outputs, caches, dependencies, tests). */
const SKIP_DIRS = new Set([
  'node_modules',
  'build',
  'dist',
  '.svelte-kit',
  'test',
  'bench',
  'coverage',
  'test-results',
]);
const isTest = (name) => /\.test\.[cm]?[jt]s$/.test(name);

/** The libraries both apps bundle (everything under packages/ except the test network). */
const SHARED = [
  'package.json',
  'pnpm-lock.yaml',
  'pnpm-workspace.yaml',
  'tsconfig.base.json',
  'scripts/build-inputs.mjs',
  'scripts/build.mjs',
  'prisma/schema.prisma',
  ...readdirSync(join(ROOT, 'packages'))
    .filter((name) => name !== 'testnet')
    .map((name) => `packages/${name}`),
];

export const TARGETS = {
  web: {
    inputs: [...SHARED, 'apps/web'],
    /** The file whose absence means "not built". */
    output: 'apps/web/build/embedded.js',
    stamp: 'apps/web/build/.build-inputs',
  },
  gateway: {
    inputs: [...SHARED, 'apps/gateway'],
    output: 'apps/gateway/dist/main.js',
    stamp: 'apps/gateway/dist/.build-inputs',
  },
};

function* files(path) {
  let entries;
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch (error) {
    if (error.code === 'ENOTDIR') {
      yield path;
      return;
    }
    if (error.code === 'ENOENT') return;
    throw error;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) yield* files(join(path, entry.name));
    } else if (entry.isFile() && !isTest(entry.name)) {
      yield join(path, entry.name);
    }
  }
}

/** SHA-256 (hex) of the inputs of `target` ('web' or 'gateway'). */
export function fingerprint(target) {
  const hash = createHash('sha256');
  for (const input of TARGETS[target].inputs) {
    for (const file of files(join(ROOT, input))) {
      hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
    }
  }
  return hash.digest('hex');
}
