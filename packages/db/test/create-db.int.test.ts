import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDb,
  createMigratedDb,
  MIGRATIONS_DIR,
  migrateDb,
  parseDatabaseUrl,
  SCHEMA_HEAD,
} from '../src/index.ts';
import { readMigrationsFolder } from '../src/migrations/migration-files.ts';
import { createTestDb } from '../src/testing/index.ts';

describe('parseDatabaseUrl', () => {
  it('defaults to PGlite under <dataDir>/db', () => {
    expect(parseDatabaseUrl(undefined, './data', '/srv/node')).toEqual({
      kind: 'pglite',
      dir: '/srv/node/data/db',
    });
    expect(parseDatabaseUrl('', '/var/lib/swarm', '/x')).toEqual({
      kind: 'pglite',
      dir: '/var/lib/swarm/db',
    });
  });

  it('reads pglite: and postgres URLs', () => {
    expect(parseDatabaseUrl('pglite:memory', './data')).toEqual({ kind: 'pglite', dir: null });
    expect(parseDatabaseUrl('pglite://memory', './data')).toEqual({ kind: 'pglite', dir: null });
    expect(parseDatabaseUrl('pglite:./db', './data', '/srv')).toEqual({
      kind: 'pglite',
      dir: '/srv/db',
    });
    expect(parseDatabaseUrl('pglite:///abs/db', './data')).toEqual({
      kind: 'pglite',
      dir: '/abs/db',
    });
    expect(parseDatabaseUrl('postgres://u:p@h/db', './data')).toEqual({
      kind: 'postgres',
      url: 'postgres://u:p@h/db',
    });
    expect(parseDatabaseUrl('postgresql://h/db', './data').kind).toBe('postgres');
  });

  it('rejects other schemes without echoing the password', () => {
    expect(() => parseDatabaseUrl('mysql://root:secret@h/db', './data')).toThrow(/root:\*\*\*@h/);
  });
});

// These open embedded databases of their own, whatever the database under test: CI's
// PGlite pass runs them, and its Postgres pass (TEST_DATABASE_URL set) would only repeat them.
const whateverTheDatabase = describe.skipIf(Boolean(process.env.TEST_DATABASE_URL));

whateverTheDatabase('createDb', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'swarm-db-data-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('persists an embedded database across restarts', async () => {
    const first = await createDb({ dataDir });
    expect(first.kind).toBe('pglite');
    await migrateDb(first);
    await first.prisma.user.create({ data: { handle: 'alice', passwordHash: 'x' } });
    await first.close();

    const second = await createDb({ dataDir });
    try {
      expect((await migrateDb(second)).applied).toEqual([]);
      expect(await second.prisma.user.findUnique({ where: { handle: 'alice' } })).not.toBeNull();
    } finally {
      await second.close();
    }
  }, 60_000);

  it('refuses a directory that holds files but no database, naming it', async () => {
    const dir = join(dataDir, 'not-a-db');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'notes.txt'), 'mine');
    await expect(createDb({ databaseUrl: `pglite:${dir}`, dataDir })).rejects.toThrow(
      /not-a-db is not empty but holds no database/,
    );
    expect(await readdir(dir)).toEqual(['notes.txt']);
  });

  it('reports an unreachable Postgres clearly, without the password', async () => {
    await expect(
      createDb({ databaseUrl: 'postgres://someone:hunter2@127.0.0.1:1/nowhere', dataDir }),
    ).rejects.toThrow(/cannot connect to postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/nowhere/);
  });
});

// A new embedded database is created and migrated in a child process, then moved into place;
// these are the ways a first start can stop half-way, and what the next start makes of them.
whateverTheDatabase('createMigratedDb on a new embedded database', () => {
  let root: string;
  let all: string[];
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'swarm-db-first-'));
    all = (await readMigrationsFolder(MIGRATIONS_DIR)).migrations.map((m) => m.name);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** A new data directory of its own. */
  function fresh(name: string) {
    const dataDir = join(root, name);
    return { dataDir, dbDir: join(dataDir, 'db') };
  }

  it('applies every migration before the database appears, then reopens it as is', async () => {
    const { dataDir, dbDir } = fresh('plain');
    const lines: string[] = [];
    const first = await createMigratedDb({ dataDir }, { log: (line) => lines.push(line) });
    try {
      expect(first.applied).toEqual(all);
      expect(all.at(-1)).toBe(SCHEMA_HEAD);
      expect(lines.filter((l) => l.startsWith('applied migration'))).toHaveLength(all.length);
      expect(existsSync(join(dbDir, 'PG_VERSION'))).toBe(true);
      expect(existsSync(join(dbDir, '.initialising'))).toBe(false);
      await first.db.prisma.user.create({ data: { handle: 'alice', passwordHash: 'x' } });
    } finally {
      await first.db.close();
    }
    const second = await createMigratedDb({ dataDir });
    try {
      expect(second.applied).toEqual([]);
      expect(await second.db.prisma.user.count()).toBe(1);
    } finally {
      await second.db.close();
    }
  }, 120_000);

  it('leaves no database when a migration fails, and the next start builds it whole', async () => {
    const { dataDir, dbDir } = fresh('failing');
    const broken = join(root, 'broken-migrations');
    await mkdir(join(broken, '20000101000000_broken'), { recursive: true });
    await writeFile(
      join(broken, '20000101000000_broken', 'migration.sql'),
      'CREATE TABLE "half" (id int);\nSELECT * FROM no_such_table;\n',
    );
    await expect(createMigratedDb({ dataDir }, { migrationsDir: broken })).rejects.toThrow(
      /20000101000000_broken failed.*no_such_table/,
    );
    expect(existsSync(join(dbDir, 'PG_VERSION'))).toBe(false);

    const next = await createMigratedDb({ dataDir });
    try {
      expect(next.applied).toEqual(all);
      const [row] = await next.db.prisma.$queryRawUnsafe<{ half: string | null }[]>(
        `SELECT to_regclass('"half"')::text AS half`,
      );
      expect(row?.half).toBeNull();
      expect(await readdir(dbDir)).not.toContain('.initialising');
    } finally {
      await next.db.close();
    }
  }, 120_000);

  it('recovers from the child being killed part-way through', async () => {
    const { dataDir, dbDir } = fresh('killed');
    await expect(
      createDb(
        { dataDir },
        {
          prepareNew: async (session) => {
            await session.exec('CREATE TABLE "half" (id int)');
            process.kill(session.pid, 'SIGKILL');
            await session.exec('INSERT INTO "half" VALUES (1)');
          },
        },
      ),
    ).rejects.toThrow(/could not create the database in .*killed by SIGKILL/);
    expect(existsSync(join(dbDir, 'PG_VERSION'))).toBe(false);
    expect(existsSync(join(dbDir, '.initialising'))).toBe(true);

    const next = await createMigratedDb({ dataDir });
    try {
      expect(next.applied).toEqual(all);
      expect(await next.db.prisma.user.count()).toBe(0);
    } finally {
      await next.db.close();
    }
  }, 120_000);

  it('builds again after a start that died while moving the database into place', async () => {
    const { dataDir, dbDir } = fresh('moving');
    // As a start leaves it when killed after moving some entries up, before PG_VERSION (the
    // contents do not matter: none of it is a database yet).
    await mkdir(join(dbDir, '.initialising', 'pg_wal'), { recursive: true });
    await writeFile(join(dbDir, '.initialising', 'PG_VERSION'), '17\n');
    await mkdir(join(dbDir, 'base', '1'), { recursive: true });
    await writeFile(join(dbDir, 'base', '1', 'half-written'), 'x');
    await writeFile(join(dbDir, 'postgresql.conf'), '# moved up already\n');

    const next = await createMigratedDb({ dataDir });
    try {
      expect(next.applied).toEqual(all);
      expect(await next.db.prisma.user.count()).toBe(0);
      const entries = await readdir(dbDir);
      expect(entries).not.toContain('.initialising');
      expect(existsSync(join(dbDir, 'base', '1', 'half-written'))).toBe(false);
    } finally {
      await next.db.close();
    }
  }, 120_000);
});

describe('createTestDb', () => {
  it('gives every caller its own fresh database', async () => {
    const started = performance.now();
    const a = await createTestDb();
    const firstMs = performance.now() - started;
    const t = performance.now();
    const b = await createTestDb();
    const secondMs = performance.now() - t;
    console.info(
      `[timing] createTestDb on ${a.kind}: first ${firstMs.toFixed(0)} ms, next ${secondMs.toFixed(0)} ms`,
    );
    try {
      await a.prisma.user.create({ data: { handle: 'only_in_a', passwordHash: 'x' } });
      expect(await b.prisma.user.count()).toBe(0);
      expect((await migrateDb(b)).applied).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
