import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
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

/**
 * A statement runner over a database that a short-lived child process holds: what a new data
 * directory is prepared with (migrated) before the caller opens it.
 */
export interface PgliteSession {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Several statements at once (no parameters). */
  exec(sql: string): Promise<void>;
  /** The child's process id (tests kill it to model a crash). */
  readonly pid: number;
}

export interface OpenPgliteOptions {
  /**
   * Run on a new data directory, in the child that creates its cluster, before the directory
   * becomes a database: whatever memory the work grows goes back to the system with the child.
   */
  prepareNew?: (session: PgliteSession) => Promise<void>;
}

/** Opens (creating on first use) a PGlite database persisted in `dir`, or in memory for null. */
export async function openPglite(
  dir: string | null,
  options: OpenPgliteOptions = {},
): Promise<PGlite> {
  if (dir === null) return freshMemoryPglite();
  await ensureDatabaseDir(dir, options.prepareNew);
  const pglite = new PGlite({ dataDir: dir, postgresqlconf: EMBEDDED_POSTGRESQL_CONF });
  await pglite.waitReady;
  return pglite;
}

/** Where a new database is built inside its directory before it is moved into place. */
const BUILDING = '.initialising';

/**
 * Makes `dir` hold a database, creating (and preparing) it when it does not. The new cluster is
 * built in `dir/.initialising` and moved up entry by entry, `PG_VERSION` last, so a directory
 * with `PG_VERSION` always holds a whole, prepared database. A start interrupted anywhere
 * before that (killed, or the preparation failed) leaves `.initialising` behind; since a build
 * only ever begins in an empty directory, everything in it is then that start's work, and the
 * next start clears it and builds again.
 */
async function ensureDatabaseDir(
  dir: string,
  prepare: ((session: PgliteSession) => Promise<void>) | undefined,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const work = join(dir, BUILDING);
  if (existsSync(join(dir, 'PG_VERSION'))) {
    // Left when a start was interrupted after its last move: empty, and in nobody's way.
    await rm(work, { recursive: true, force: true });
    return;
  }
  const entries = await readdir(dir);
  if (entries.includes(BUILDING)) {
    for (const entry of entries) await rm(join(dir, entry), { recursive: true, force: true });
  } else if (entries.length > 0) {
    throw new Error(
      `${dir} is not empty but holds no database (no PG_VERSION); point DATA_DIR or DATABASE_URL at an empty or missing directory, or at an existing database`,
    );
  }
  await mkdir(work);
  await initialiseInChild(work, prepare);
  const made = (await readdir(work)).filter((entry) => entry !== 'PG_VERSION');
  for (const entry of made) await rename(join(work, entry), join(dir, entry));
  await rename(join(work, 'PG_VERSION'), join(dir, 'PG_VERSION'));
  await rm(work, { recursive: true, force: true });
}

/**
 * Creates the cluster of a new data directory in a short-lived child process: from the cached
 * empty cluster when this machine has one (after any test run), otherwise by PGlite's initdb;
 * then runs `prepare` (the migrations) against it over the IPC channel, so the caller opens a
 * finished database. Creating the cluster grows a WebAssembly heap to ~650 MB, and a heap never
 * shrinks; in a child that memory goes back to the system when it exits, so a node's first
 * start idles like any later one (docs/benchmarks.md "Start-up and idle memory"). Costs one
 * Node start (~0.3 s), once per node. The child exits when its parent goes away.
 */
async function initialiseInChild(
  dir: string,
  prepare: ((session: PgliteSession) => Promise<void>) | undefined,
): Promise<void> {
  const pglitePath = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const script = `
    const [pglitePath, dir, dumpFile] = process.argv.slice(1);
    const { PGlite } = require(pglitePath);
    process.on('disconnect', () => process.exit(1));
    const fail = (error) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(1);
    };
    let loadDataDir;
    try {
      loadDataDir = new Blob([require('node:zlib').gunzipSync(require('node:fs').readFileSync(dumpFile))]);
    } catch {}
    (async () => {
      const pglite = new PGlite({ dataDir: dir, ...(loadDataDir ? { loadDataDir } : {}) });
      await pglite.waitReady;
      process.on('message', ({ id, op, sql, params }) => {
        (async () => {
          if (op === 'close') {
            await pglite.close();
            process.exit(0);
          }
          const rows = op === 'query' ? (await pglite.query(sql, params)).rows : (await pglite.exec(sql), undefined);
          process.send({ id, rows });
        })().catch((error) => {
          if (op === 'close') fail(error);
          process.send({ id, error: { message: error instanceof Error ? error.message : String(error), code: error && error.code } });
        });
      });
      process.send({ ready: true });
    })().catch(fail);`;
  const dumpFile = cacheFile(`pglite-${PGLITE_VERSION}-empty`);
  const child = spawn(process.execPath, ['-e', script, pglitePath, dir, dumpFile], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    // Structured clone: parameters and rows keep their Dates.
    serialization: 'advanced',
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 1 << 16) stderr += chunk;
  });
  const failed = (reason: string) =>
    new Error(`could not create the database in ${dir}: ${stderr.trim() || reason}`);
  const exited = new Promise<void>((resolve, reject) => {
    child.once('error', (error) => reject(failed(error.message)));
    // After the exit and the end of stderr, so the child's last words are in the message.
    child.once('close', (code, signal) =>
      code === 0 ? resolve() : reject(failed(signal ? `killed by ${signal}` : `exit code ${code}`)),
    );
  });
  const pending = new Map<
    number,
    { resolve: (rows: unknown) => void; reject: (e: Error) => void }
  >();
  let nextId = 0;
  let ready!: () => void;
  const readyOrExited = Promise.race([
    new Promise<void>((resolve) => (ready = resolve)),
    exited.then(() => Promise.reject(failed('the child exited before it was ready'))),
  ]);
  child.on('message', (message: ChildMessage) => {
    if ('ready' in message) return ready();
    const request = pending.get(message.id);
    pending.delete(message.id);
    if (!request) return;
    if (message.error) {
      request.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
    } else request.resolve(message.rows);
  });
  exited.catch((error: Error) => {
    for (const request of pending.values()) request.reject(error);
    pending.clear();
  });
  const send = (op: 'query' | 'exec', sql: string, params?: unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        reject(failed('the child exited'));
        return;
      }
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ id, op, sql, params }, (error) => {
        if (!error) return;
        pending.delete(id);
        reject(failed(error.message));
      });
    });
  try {
    await readyOrExited;
    if (prepare) {
      await prepare({
        pid: child.pid!,
        query: async <T>(sql: string, params?: unknown[]) =>
          (await send('query', sql, params)) as T[],
        exec: async (sql: string) => {
          await send('exec', sql);
        },
      });
    }
    // Errors of the send show as the child's exit.
    child.send({ op: 'close' }, () => {});
    await exited;
  } catch (error) {
    child.kill('SIGKILL');
    await exited.catch(() => {});
    throw error;
  }
}

type ChildMessage =
  { ready: true } | { id: number; rows?: unknown[]; error?: { message: string; code?: string } };

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
