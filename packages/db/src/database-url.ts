import { isAbsolute, join, resolve } from 'node:path';

export type DatabaseTarget =
  | {
      kind: 'pglite';
      /** absolute directory, or null for an in-memory database */ dir: string | null;
    }
  | { kind: 'postgres'; url: string };

/**
 * Where the database lives:
 * - no URL → embedded PGlite persisted at `<dataDir>/db`;
 * - `pglite:memory` (or `pglite:memory://`) → embedded PGlite in memory (lost on close);
 * - `pglite:<path>` → embedded PGlite persisted at that directory;
 * - `postgres://…` / `postgresql://…` → a Postgres server.
 * Relative paths resolve against `baseDir` (default: the process's working directory).
 */
export function parseDatabaseUrl(
  databaseUrl: string | undefined,
  dataDir: string,
  baseDir: string = process.cwd(),
): DatabaseTarget {
  const url = databaseUrl?.trim();
  if (!url) return { kind: 'pglite', dir: resolve(baseDir, dataDir, 'db') };
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return { kind: 'postgres', url };
  }
  if (url.startsWith('pglite:')) {
    let rest = url.slice('pglite:'.length);
    if (rest.startsWith('//')) rest = rest.slice(2); // pglite://./data, pglite:///abs/path
    if (rest === 'memory' || rest === 'memory:' || rest === 'memory://') {
      return { kind: 'pglite', dir: null };
    }
    if (rest === '') throw new Error('DATABASE_URL "pglite:" needs a path, e.g. pglite:./data/db');
    return { kind: 'pglite', dir: isAbsolute(rest) ? rest : join(resolve(baseDir), rest) };
  }
  throw new Error(
    `DATABASE_URL must start with postgres://, postgresql:// or pglite: (got "${redactUrl(url)}")`,
  );
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}
