import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { CACHE_DIR } from './paths.ts';

// PGlite runs `initdb` in WebAssembly when it opens an empty data directory: 4–6 s here. Loading
// a dump of an already initialised cluster takes under a second, so everything that needs many
// short-lived databases (test databases, the shadow database of migrate:new/check) starts from a
// dump cached on disk, keyed by the PGlite version.

// The package doesn't export its package.json; it sits next to dist/.
export const PGLITE_VERSION = (
  JSON.parse(
    readFileSync(
      join(
        dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')),
        '..',
        'package.json',
      ),
      'utf8',
    ),
  ) as { version: string }
).version;

/**
 * Settings of the embedded database (docs/benchmarks.md "Memory"). Postgres's default 128 MB of
 * shared buffers lives in PGlite's WebAssembly heap, in the node's own process: it was ~120 MB
 * of an idle node's RSS. The data files are ordinary files, so the OS page cache still holds
 * what the buffers no longer do.
 */
export const EMBEDDED_POSTGRESQL_CONF = ['shared_buffers = 16MB', 'wal_buffers = 1MB'];

/** Opens (creating on first use) a PGlite database persisted in `dir`, or in memory for null. */
export async function openPglite(dir: string | null): Promise<PGlite> {
  if (dir === null) return freshMemoryPglite();
  await mkdir(dir, { recursive: true });
  if (!existsSync(join(dir, 'PG_VERSION'))) await initialiseInChild(dir);
  const pglite = new PGlite({ dataDir: dir, postgresqlconf: EMBEDDED_POSTGRESQL_CONF });
  await pglite.waitReady;
  return pglite;
}

/**
 * Creates the cluster of a new data directory in a short-lived child process: from the cached
 * empty cluster when this machine has one (after any test run), otherwise by PGlite's initdb.
 * Either grows a WebAssembly heap to ~650 MB, and a heap never shrinks; in a child that memory
 * goes back to the system when it exits, so a node's first start idles like any later one
 * (docs/benchmarks.md "Start-up and idle memory"). Costs one Node start (~0.3 s), once per node.
 */
async function initialiseInChild(dir: string): Promise<void> {
  const pglitePath = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const script = `
    const [pglitePath, dir, dumpFile] = process.argv.slice(1);
    const { PGlite } = require(pglitePath);
    let loadDataDir;
    try {
      loadDataDir = new Blob([require('node:zlib').gunzipSync(require('node:fs').readFileSync(dumpFile))]);
    } catch {}
    (async () => {
      const pglite = new PGlite({ dataDir: dir, ...(loadDataDir ? { loadDataDir } : {}) });
      await pglite.waitReady;
      await pglite.close();
    })().catch((error) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(1);
    });`;
  const dumpFile = cacheFile(`pglite-${PGLITE_VERSION}-empty`);
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', script, pglitePath, dir, dumpFile],
      { maxBuffer: 1 << 20 },
      (error, _stdout, stderr) =>
        error
          ? reject(new Error(`could not create the database in ${dir}: ${stderr || error.message}`))
          : resolve(),
    );
  });
}

/** A new, empty in-memory cluster (from the cached dump; the first call per machine runs initdb). */
export async function freshMemoryPglite(): Promise<PGlite> {
  return pgliteFromDump(await emptyCluster());
}

/**
 * A new, empty in-memory cluster made small for test databases, of which one process may hold
 * hundreds: 1 MB WAL segments (initdb's default is 16 MB) and no template databases (nothing
 * runs CREATE DATABASE there). Its dump is ~16 MB instead of ~42 MB, all of it held in memory
 * by every instance.
 */
export async function leanMemoryPglite(): Promise<PGlite> {
  return pgliteFromDump(
    await cachedDump(`pglite-${PGLITE_VERSION}-lean`, async () => {
      const pglite = new PGlite({ initDbStartParams: ['--wal-segsize=1'] });
      try {
        await pglite.waitReady;
        await pglite.exec('ALTER DATABASE template1 IS_TEMPLATE false');
        await pglite.exec('DROP DATABASE template1');
        await pglite.exec(
          `UPDATE pg_database SET datistemplate = false WHERE datname = 'template0'`,
        );
        await pglite.exec('DROP DATABASE template0');
        await pglite.exec('CHECKPOINT');
        return await pglite.dumpDataDir('none');
      } finally {
        await pglite.close();
      }
    }),
  );
}

function emptyCluster(): Promise<Blob> {
  return cachedDump(`pglite-${PGLITE_VERSION}-empty`, emptyClusterDump);
}

/**
 * A new in-memory cluster holding the data of `dump` (a tar made by `dumpDataDir`), with extra
 * `postgresql.conf` lines when given.
 */
export async function pgliteFromDump(dump: Blob, postgresqlconf?: string[]): Promise<PGlite> {
  const pglite = new PGlite({ loadDataDir: dump, ...(postgresqlconf ? { postgresqlconf } : {}) });
  await pglite.waitReady;
  return pglite;
}

/**
 * A cluster dump from the disk cache, built by `build` when missing. Stored gzipped (a cluster is
 * ~40 MB raw), kept unpacked in memory for the process. Concurrent builders (parallel test
 * workers) each write a temp file and rename it into place, so readers never see half a file.
 */
export async function cachedDump(key: string, build: () => Promise<Blob>): Promise<Blob> {
  const memo = memory.get(key);
  if (memo) return memo;
  const pending = loadOrBuild(key, build);
  memory.set(key, pending);
  try {
    return await pending;
  } catch (error) {
    memory.delete(key);
    throw error;
  }
}

const memory = new Map<string, Promise<Blob>>();

/** The cached dump if there is one (in memory or on disk), without building it. */
async function readCachedDump(key: string): Promise<Blob | undefined> {
  const memo = memory.get(key);
  if (memo) return memo.catch(() => undefined);
  try {
    return new Blob([gunzipSync(await readFile(cacheFile(key)))]);
  } catch {
    return undefined; // missing or damaged
  }
}

function cacheFile(key: string): string {
  return join(CACHE_DIR, `${key}.tar.gz`);
}

async function loadOrBuild(key: string, build: () => Promise<Blob>): Promise<Blob> {
  const cached = await readCachedDump(key);
  if (cached) return cached;
  const file = cacheFile(key);
  const dump = await build();
  try {
    await mkdir(CACHE_DIR, { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, gzipSync(Buffer.from(await dump.arrayBuffer()), { level: 1 }));
    await rename(tmp, file).catch(async (error: unknown) => {
      await rm(tmp, { force: true });
      throw error;
    });
  } catch {
    // A read-only checkout still works, only slower.
  }
  return dump;
}

async function emptyClusterDump(): Promise<Blob> {
  const pglite = new PGlite();
  try {
    await pglite.waitReady;
    return await pglite.dumpDataDir('none');
  } finally {
    await pglite.close();
  }
}

/**
 * Makes `dir` the data directory of `dump` (a tar, gzipped or not, made by `dumpDataDir`): a
 * restore of the embedded database. `dir` must not hold a database; nothing may have it open.
 */
export async function restorePgliteDataDir(dir: string, dump: Blob): Promise<void> {
  await mkdir(dir, { recursive: true });
  const pglite = new PGlite({ dataDir: dir, loadDataDir: dump });
  try {
    await pglite.waitReady;
    await pglite.exec('CHECKPOINT');
  } finally {
    await pglite.close();
  }
}
