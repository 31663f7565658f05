import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, migrateDb, parseDatabaseUrl } from '../src/index.ts';
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

describe('createDb', () => {
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

  it('reports an unreachable Postgres clearly, without the password', async () => {
    await expect(
      createDb({ databaseUrl: 'postgres://someone:hunter2@127.0.0.1:1/nowhere', dataDir }),
    ).rejects.toThrow(/cannot connect to postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/nowhere/);
  });
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
