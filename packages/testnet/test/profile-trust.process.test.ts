import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  SWARM_PATHS,
  formatTimestamp,
  signOriginBody,
  signUserAction,
  type UserAction,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import { createTestDb } from '@swarm/db/testing';
import { createHttpServer } from '@swarm/gateway';
import {
  freePort,
  startNodeProcess,
  withMigratedDataDir,
  type NodeProcess,
} from '../src/node-process.ts';
import {
  createManualClock,
  createTestNode,
  insertKeyedUser,
  type KeyedUser,
  type TestNode,
} from './harness.ts';

// Issue 22 item 1 against a node started as the README starts it (`node dist/main.js
// --with-web`; needs `pnpm build`). The attacker is a node of our profile on a loopback port,
// whose operator writes requests by hand and signs them with its node key: first an honest,
// user-signed like, then likes in the origin profile's format that drop the user signature.

const ADMIN_TOKEN = 'profile-trust-process-admin-token-0123456789';

let db: Db | undefined;
let victim: { process: NodeProcess; base: string; domain: string; dataDir: string };
let attacker: { t: TestNode; domain: string; server: Server };
let bob: KeyedUser;
let postIds: string[];

async function admin(path: string, body: unknown) {
  const res = await fetch(`${victim.base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json() as Promise<{ post: { id: string } }>;
}

function likeBody(postId: string, handle: string) {
  return {
    postId,
    like: {
      actorHandle: handle,
      actorDisplayName: handle,
      actorNodeDomain: attacker.domain,
      interactionId: randomUUID(),
      timestamp: formatTimestamp(new Date()),
    },
  };
}

/** What the attacker's operator sends: the origin format, body signed with its node key. */
async function originLike(postId: string, handle: string) {
  const body = await signOriginBody(attacker.t.node.keys.privateKey, likeBody(postId, handle));
  const res = await fetch(`${victim.base}${SWARM_PATHS.interaction('like')}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { code?: string } };
}

async function likesCount(postId: string) {
  const res = await fetch(`${victim.base}${SWARM_PATHS.post(postId)}`);
  return ((await res.json()) as { likesCount: number }).likesCount;
}

beforeAll(async () => {
  db = process.env.TEST_DATABASE_URL ? await createTestDb() : undefined;
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'swarm-profile-trust-'));
  const databaseUrl = db?.kind === 'postgres' ? db.pool.options.connectionString : undefined;
  victim = {
    process: await startNodeProcess(
      await withMigratedDataDir({
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        PORT: String(port),
        SWARM_DOMAIN: `localhost:${port}`,
        SWARM_DEV: '1',
        DATA_DIR: dataDir,
        ADMIN_TOKEN,
      }),
    ),
    base: `http://localhost:${port}`,
    domain: `localhost:${port}`,
    dataDir,
  };
  await admin('/api/swarm/admin/users', { handle: 'vic', password: 'correct horse battery' });
  postIds = [];
  for (const content of ['one', 'two']) {
    postIds.push((await admin('/api/swarm/admin/posts', { handle: 'vic', content })).post.id);
  }

  const attackerPort = await freePort();
  const domain = `localhost:${attackerPort}`;
  // Real time: the running node checks the attacker's timestamps against its own clock.
  const t = await createTestNode(
    { SWARM_DOMAIN: domain, SWARM_DEV: '1' },
    { clock: createManualClock(new Date()) },
  );
  const server = createHttpServer({ fetch: t.app.fetch });
  server.listen(attackerPort, '127.0.0.1');
  await once(server, 'listening');
  attacker = { t, domain, server };
  bob = await insertKeyedUser(t.node, 'bob');
}, 300_000);

afterAll(async () => {
  attacker?.server.closeAllConnections();
  attacker?.server.close();
  await attacker?.t.close();
  await victim?.process.stop();
  if (victim) await rm(victim.dataDir, { recursive: true, force: true });
  await db?.close();
});

describe('a node of our profile speaking the origin format to a running node', () => {
  it('signed like first (200), then likes without user signatures: 401 PROFILE_MISMATCH, none counted', async () => {
    const [first, second] = postIds as [string, string];
    // It joins as peers do: a header-signed announcement (listed, verified, our profile).
    expect((await attacker.t.node.registry.announceTo(victim.domain, 'admin')).ok).toBe(true);
    const body = likeBody(first, 'bob');
    const action: UserAction = 'like';
    const signature = await signUserAction({
      privateKey: bob.privateKey,
      action,
      targetDomain: victim.domain,
      body,
    });
    const honest = await attacker.t.node.peers.postJson(
      victim.domain,
      SWARM_PATHS.interaction('like'),
      { ...body, signature },
      z.unknown(),
    );
    expect(honest.ok, JSON.stringify(honest)).toBe(true);
    expect(await likesCount(first)).toBe(1);

    expect(await originLike(second, 'bob')).toMatchObject({
      status: 401,
      body: { code: 'PROFILE_MISMATCH' },
    });
    for (let i = 0; i < 20; i++) {
      expect(await originLike(second, `ghost_${i}`)).toMatchObject({
        status: 401,
        body: { code: 'PROFILE_MISMATCH' },
      });
    }
    expect(await likesCount(second)).toBe(0);

    // The admin's view of the attacker: still our profile.
    const nodes = await fetch(`${victim.base}${SWARM_PATHS.nodes}?stats=false`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const list = (await nodes.json()) as { nodes: { domain: string; protocolProfile?: string }[] };
    expect(list.nodes).toContainEqual(
      expect.objectContaining({ domain: attacker.domain, protocolProfile: 'swarm' }),
    );
  }, 120_000);
});
