import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import {
  createDb,
  createPostgresDb,
  parseDatabaseUrl,
  redactUrl,
  restorePgliteDataDir,
  type Db,
} from '@swarm/db';
import type { AdminClient } from './admin-client.ts';

// `swarm backup <file>` and `swarm restore <file>` (docs/deployment.md "Backups").
// Postgres: pg_dump's custom format, taken straight from the database (a consistent snapshot
// while the node runs), restored with pg_restore into an empty database. Embedded PGlite: the
// running node dumps its own data directory (only it may open it) through the admin API; the
// restore writes a new data directory while the node is stopped.

/** What went wrong, in words an operator can act on (exit 1, no stack). */
export class BackupError extends Error {
  override name = 'BackupError';
}

export interface DatabaseEnv {
  databaseUrl: string | undefined;
  dataDir: string;
  /** What relative paths are relative to (where the operator typed the command). */
  baseDir: string;
}

const PG_DUMP_MAGIC = 'PGDMP';

export async function backup(opts: {
  file: string;
  env: DatabaseEnv;
  client: () => AdminClient;
  log: (line: string) => void;
}): Promise<void> {
  const target = parseDatabaseUrl(opts.env.databaseUrl, opts.env.dataDir, opts.env.baseDir);
  const tmp = `${opts.file}.partial`;
  try {
    if (target.kind === 'postgres') {
      await checkPgDumpVersion(target.url);
      await run('pg_dump', ['--format=custom', '--no-owner', `--file=${tmp}`, target.url]);
    } else {
      const body = await opts.client().adminDownload('/api/swarm/admin/backup');
      await pipeline(Readable.fromWeb(body as WebReadableStream), createWriteStream(tmp));
    }
    await rename(tmp, opts.file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  const { size } = await stat(opts.file);
  opts.log(
    `backup written to ${opts.file} (${formatBytes(size)}, ${
      target.kind === 'postgres' ? 'pg_dump custom format' : 'PGlite data directory, gzipped tar'
    })`,
  );
}

export async function restore(opts: {
  file: string;
  env: DatabaseEnv;
  force: boolean;
  log: (line: string) => void;
}): Promise<void> {
  const target = parseDatabaseUrl(opts.env.databaseUrl, opts.env.dataDir, opts.env.baseDir);
  if (!existsSync(opts.file)) throw new BackupError(`${opts.file} does not exist.`);
  const kind = await backupKind(opts.file);

  if (target.kind === 'postgres') {
    if (kind !== 'pg_dump') {
      throw new BackupError(
        `${opts.file} is not a pg_dump backup (it looks like ${kind === 'pglite' ? 'an embedded PGlite backup' : 'something else'}); DATABASE_URL points at Postgres. Restore a PGlite backup with DATABASE_URL unset (or pglite:<dir>).`,
      );
    }
    const tables = await withPostgres(target.url, async (db) => {
      const { rows } = await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`,
      );
      return rows[0]!.n;
    });
    if (tables > 0 && !opts.force) {
      throw new BackupError(
        `the database at ${redactUrl(target.url)} is not empty (${tables} tables). Restore into a new, empty database, or pass --force to replace what it holds (stop every node process using it first).`,
      );
    }
    await checkPgDumpVersion(target.url, 'pg_restore');
    await run('pg_restore', [
      '--no-owner',
      '--no-privileges',
      '--exit-on-error',
      '--single-transaction',
      ...(tables > 0 ? ['--clean', '--if-exists'] : []),
      `--dbname=${target.url}`,
      opts.file,
    ]);
  } else {
    if (kind !== 'pglite') {
      throw new BackupError(
        `${opts.file} is not an embedded PGlite backup (it looks like ${kind === 'pg_dump' ? 'a pg_dump backup: set DATABASE_URL to the Postgres database to restore it into' : 'something else'}).`,
      );
    }
    const dir = target.dir;
    if (dir === null) throw new BackupError('cannot restore into an in-memory database.');
    if (existsSync(dir) && (await readdir(dir)).length > 0) {
      if (!opts.force) {
        throw new BackupError(
          `${dir} already holds a database. Restore into a fresh DATA_DIR, or stop the node and pass --force (the current directory is kept aside, renamed).`,
        );
      }
      const aside = `${dir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      await rename(dir, aside);
      opts.log(`moved the current database aside to ${aside}`);
    }
    const bytes = await readFile(opts.file);
    await restorePgliteDataDir(dir, new Blob([bytes], { type: 'application/gzip' }));
  }

  const summary = await describe(opts.env);
  opts.log(
    `restored ${opts.file} into ${summary.where}: ${summary.users} users, ${summary.posts} posts, ${summary.follows} follows, node key ${summary.nodeKey}`,
  );
}

/** What a restored database holds, for the operator to compare with the node backed up. */
async function describe(env: DatabaseEnv) {
  const db = await createDb({
    databaseUrl: env.databaseUrl,
    dataDir: env.dataDir,
    baseDir: env.baseDir,
  });
  try {
    const { prisma } = db;
    const [users, posts, follows, key] = await Promise.all([
      prisma.user.count(),
      prisma.post.count(),
      prisma.follow.count(),
      prisma.nodeKey.findUnique({ where: { id: 'node' }, select: { publicKeyPem: true } }),
    ]);
    return {
      where: db.description,
      users,
      posts,
      follows,
      nodeKey: key
        ? `sha256:${createHash('sha256').update(key.publicKeyPem).digest('hex').slice(0, 16)}`
        : 'MISSING',
    };
  } finally {
    await db.close();
  }
}

async function backupKind(file: string): Promise<'pg_dump' | 'pglite' | 'unknown'> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(5);
    await handle.read(head, 0, 5, 0);
    if (head.toString('latin1') === PG_DUMP_MAGIC) return 'pg_dump';
    if (head[0] === 0x1f && head[1] === 0x8b) return 'pglite';
    return 'unknown';
  } finally {
    await handle.close();
  }
}

async function withPostgres<T>(
  url: string,
  fn: (db: Extract<Db, { kind: 'postgres' }>) => Promise<T>,
) {
  let db;
  try {
    db = await createPostgresDb(url, 1);
  } catch (error) {
    throw new BackupError((error as Error).message);
  }
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** pg_dump/pg_restore refuse servers newer than themselves; say so before they do. */
async function checkPgDumpVersion(url: string, tool = 'pg_dump'): Promise<void> {
  const out = await run(tool, ['--version']).catch(() => {
    throw new BackupError(
      `${tool} is not installed: install the Postgres client tools of your server's version (Debian: postgresql-client).`,
    );
  });
  const client = Number(/(\d+)(?:\.\d+)?/.exec(out)?.[1]);
  const server = await withPostgres(url, async (db) => {
    const { rows } = await db.pool.query<{ v: string }>('SHOW server_version_num');
    return Math.floor(Number(rows[0]!.v) / 10_000);
  });
  if (client < server) {
    throw new BackupError(
      `${tool} ${client} cannot handle a Postgres ${server} server: install the client tools of version ${server} or newer.`,
    );
  }
}

/** Runs a tool; resolves to its standard output, rejects with its standard error. */
function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else
        reject(
          new BackupError(`${command} failed (exit ${String(code)}): ${redactUrl(err.trim())}`),
        );
    });
  });
}

function formatBytes(n: number): string {
  return n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
