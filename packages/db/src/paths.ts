import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Where the package and the repo's prisma/ folder are, from this file's location (src/).
export const DB_PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = resolve(DB_PACKAGE_DIR, '../..');
export const SCHEMA_PATH = join(REPO_ROOT, 'prisma', 'schema.prisma');
export const MIGRATIONS_DIR = join(REPO_ROOT, 'prisma', 'migrations');
/**
 * Machine-local caches (PGlite cluster templates); safe to delete at any time. Under the root,
 * which the compiled gateway (apps/gateway/dist) finds as well as this source does.
 */
export const CACHE_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'swarm-db');
