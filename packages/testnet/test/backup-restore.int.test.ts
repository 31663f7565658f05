import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, createPostgresDb, localActorKey } from '@swarm/db';
import { SWARM_PATHS } from '@swarm/contract';
import {
  freePort,
  startNodeProcess,
  withMigratedDataDir,
  type NodeProcess,
} from '../src/node-process.ts';

// `swarm backup` while the node runs and serves writes, `swarm restore` into a fresh node
// (issue 13): the restored node has the same users, posts, follows and node key. Embedded
// PGlite (the running node dumps its own database through the admin API) without
// TEST_DATABASE_URL; Postgres (pg_dump / pg_restore) with it. The embedded case does not depend
// on the database under test, so the Postgres pass, which sets it, leaves that case to the
// PGlite pass.

const gatewayDir = dirname(dirname(createRequire(import.meta.url).resolve('@swarm/gateway')));
const ADMIN_TOKEN = 'backup-test-admin-token-0123456789';

/** `pnpm swarm …`, as an operator runs it (without pnpm: the compiled CLI it runs). */
async function swarm(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [join('dist', 'cli.js'), ...args], {
    cwd: gatewayDir,
    env: { PATH: process.env.PATH ?? '', ADMIN_TOKEN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, out };
}

interface Where {
  /** The node's database variables (DATA_DIR or DATABASE_URL). */
  env: Record<string, string>;
}

interface Mode {
  name: string;
  enabled: boolean;
  /** A place for a node that holds nothing yet. */
  fresh(): Promise<Where>;
  /** Follows are made behind the node's back (no API makes local follows): PGlite needs it stopped. */
  needsStopToSeed: boolean;
  cleanup(): Promise<void>;
}

const tmpDirs: string[] = [];
const pgDatabases: string[] = [];
const serverUrl = process.env.TEST_DATABASE_URL;

const modes: Mode[] = [
  {
    name: 'embedded PGlite',
    enabled: !serverUrl,
    needsStopToSeed: true,
    async fresh() {
      const dir = await mkdtemp(join(tmpdir(), 'swarm-backup-'));
      tmpDirs.push(dir);
      return { env: { DATA_DIR: dir } };
    },
    async cleanup() {
      for (const dir of tmpDirs) await rm(dir, { recursive: true, force: true });
    },
  },
  {
    name: 'Postgres',
    enabled: Boolean(serverUrl),
    needsStopToSeed: false,
    async fresh() {
      const name = `swarm_backup_${randomBytes(6).toString('hex')}`;
      const server = await createPostgresDb(serverUrl!, 1);
      await server.pool.query(`CREATE DATABASE ${name}`);
      await server.close();
      pgDatabases.push(name);
      const url = new URL(serverUrl!);
      url.pathname = `/${name}`;
      return { env: { DATABASE_URL: url.toString() } };
    },
    async cleanup() {
      const server = await createPostgresDb(serverUrl!, 1);
      for (const name of pgDatabases) {
        await server.pool.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }
      await server.close();
    },
  },
];

for (const mode of modes) {
  describe.skipIf(!mode.enabled)(`backup and restore, ${mode.name}`, () => {
    let original: Where;
    let restored: Where;
    let port: number;
    let node: NodeProcess | undefined;
    const backupDir = { path: '' };

    const start = async (where: Where) => {
      node = await startNodeProcess(
        await withMigratedDataDir({
          ...where.env,
          PORT: String(port),
          SWARM_DOMAIN: `localhost:${port}`,
          ADMIN_TOKEN,
        }),
        [],
      );
    };
    const stop = async () => {
      await node?.stop();
      node = undefined;
    };
    const url = (path: string) => `http://127.0.0.1:${port}${path}`;
    const admin = (path: string, body: unknown) =>
      fetch(url(path), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
        body: JSON.stringify(body),
      });
    const getJson = async (path: string) => {
      const answer = await fetch(url(path));
      expect(answer.status, path).toBe(200);
      return (await answer.json()) as Record<string, unknown>;
    };
    /** What must survive: people, posts, follows, the node's key. */
    const snapshot = async () => {
      const info = await getJson(SWARM_PATHS.info);
      const alice = await getJson(SWARM_PATHS.user('alice'));
      const bob = await getJson(SWARM_PATHS.user('bob'));
      const timeline = (await getJson(SWARM_PATHS.timeline)) as { posts: { id: string }[] };
      const pick = (p: Record<string, unknown>) => {
        const profile = (p.profile ?? p.user ?? p) as Record<string, unknown>;
        return {
          handle: profile.handle,
          followersCount: profile.followersCount,
          followingCount: profile.followingCount,
          postsCount: profile.postsCount,
        };
      };
      return {
        publicKey: info.publicKey,
        userCount: info.userCount,
        postCount: info.postCount,
        alice: pick(alice),
        bob: pick(bob),
        posts: timeline.posts.map((p) => p.id).sort(),
      };
    };

    beforeAll(async () => {
      port = await freePort();
      original = await mode.fresh();
      restored = await mode.fresh();
      backupDir.path = await mkdtemp(join(tmpdir(), 'swarm-backup-file-'));
      tmpDirs.push(backupDir.path);
    });

    afterAll(async () => {
      await stop();
      await mode.cleanup();
    });

    it('restores a backup taken while the node ran into a fresh node, same people, posts, follows and key', async () => {
      await start(original);
      for (const handle of ['alice', 'bob']) {
        expect((await admin('/api/swarm/admin/users', { handle })).status).toBe(201);
      }
      expect(
        (await admin('/api/swarm/admin/posts', { handle: 'alice', content: 'before the backup' }))
          .status,
      ).toBe(201);

      // Alice and Bob follow each other (no API makes local follows: written as the web app does).
      if (mode.needsStopToSeed) await stop();
      const db = await createDb({
        databaseUrl: original.env.DATABASE_URL,
        dataDir: original.env.DATA_DIR ?? '.',
      });
      try {
        const users = await db.prisma.user.findMany({ select: { id: true, handle: true } });
        const id = (h: string) => users.find((u) => u.handle === h)!.id;
        for (const [from, to] of [
          ['alice', 'bob'],
          ['bob', 'alice'],
        ] as const) {
          await db.prisma.follow.create({
            data: {
              followerKey: localActorKey(id(from)),
              followerUserId: id(from),
              followeeKey: localActorKey(id(to)),
              followeeUserId: id(to),
            },
          });
          await db.prisma.user.update({
            where: { id: id(from) },
            data: { followingCount: { increment: 1 } },
          });
          await db.prisma.user.update({
            where: { id: id(to) },
            data: { followersCount: { increment: 1 } },
          });
        }
      } finally {
        await db.close();
      }
      if (mode.needsStopToSeed) await start(original);

      // A write the running node makes just before the backup is in it.
      expect(
        (await admin('/api/swarm/admin/posts', { handle: 'bob', content: 'just before' })).status,
      ).toBe(201);
      const before = await snapshot();
      expect(before.publicKey).toMatch(/BEGIN PUBLIC KEY/);
      expect(before.userCount).toBe(2);
      expect(before.posts).toHaveLength(2);
      expect(before.alice).toMatchObject({ followersCount: 1, followingCount: 1 });

      const file = join(backupDir.path, 'node.backup');
      const backup = await swarm(['--node', url(''), 'backup', file], original.env);
      expect(backup.out).toContain('backup written to');
      expect(backup.code).toBe(0);
      await stop();

      // Not over a database that holds something...
      const refused = await swarm(['restore', file], original.env);
      expect(refused.code).toBe(1);
      expect(refused.out).toMatch(/already holds a database|is not empty/);
      // ...but into a fresh one.
      const restore = await swarm(['restore', file], restored.env);
      expect(restore.out).toContain('restored');
      expect(restore.out).toContain('2 users, 2 posts, 2 follows');
      expect(restore.code).toBe(0);

      await start(restored);
      expect(await snapshot()).toEqual(before);
      await stop();

      // --force replaces a database that holds something (the node stopped).
      const forced = await swarm(['restore', '--force', file], restored.env);
      expect(forced.out).toContain('2 users, 2 posts, 2 follows');
      expect(forced.code).toBe(0);
    }, 180_000);
  });
}
