import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@swarm/db';
import { createTestDb } from '@swarm/db/testing';
import {
  freePort,
  startNodeProcess,
  withMigratedDataDir,
  startProductionPair,
  type NodeProcess,
  type ProductionPair,
} from '../src/node-process.ts';

// Live updates (issue #14, `GET /events`) through the front door of real processes: the
// embedded node (`pnpm start`'s entry) for authentication, bounds, HEAD and sign-out; the
// production pair (gateway and web app apart, one Postgres) for an event raised in the
// gateway's process reaching a stream the web app's process holds. Needs `pnpm build`.

const ADMIN_TOKEN = 'live-events-admin-token-0123456789';
const PASSWORD = 'correct horse battery staple';
const WAIT_MS = 30_000;

interface LiveState {
  notifications: { unread: number; latest: string | null };
  messages: { unread: number; version: string };
  deliveries: { version: string };
  home: { latest: string | null };
}

/** An open `/events` stream: its `state` events as they come, and how it ended. */
interface Stream {
  status: number;
  headers: Headers;
  /** Resolves with the first state event after the ones already taken that passes `test`. */
  next(test?: (state: LiveState) => boolean): Promise<LiveState>;
  /** Resolves once the stream ended: `cut` when it broke off (or was aborted) instead of ending. */
  ended: Promise<{ cut: boolean }>;
  close(): void;
}

async function openStream(base: string, cookie?: string): Promise<Stream> {
  const controller = new AbortController();
  const res = await fetch(`${base}/events`, {
    headers: { accept: 'text/event-stream', ...(cookie ? { cookie } : {}) },
    signal: controller.signal,
  });
  const states: LiveState[] = [];
  let wake: (() => void) | undefined;
  let buffer = '';
  const ended = (async () => {
    if (!res.body) return { cut: false };
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const lines = frame.split('\n');
          if (!lines.includes('event: state')) continue;
          const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
          if (data) states.push(JSON.parse(data) as LiveState);
          wake?.();
        }
      }
    } catch {
      return { cut: true }; // aborted by close(), or the connection broke off mid-body
    }
    return { cut: false };
  })();
  let taken = 0;
  return {
    status: res.status,
    headers: res.headers,
    ended,
    close: () => controller.abort(),
    async next(test = () => true) {
      const deadline = Date.now() + WAIT_MS;
      for (;;) {
        while (taken < states.length) {
          const state = states[taken++]!;
          if (test(state)) return state;
        }
        if (Date.now() > deadline)
          throw new Error(`no matching event; saw ${JSON.stringify(states)}`);
        await Promise.race([
          new Promise<void>((r) => (wake = r)),
          new Promise((r) => setTimeout(r, 500)),
          ended,
        ]);
      }
    },
  };
}

async function admin(gatewayBase: string, path: string, body: unknown) {
  const res = await fetch(`${gatewayBase}/api/swarm/admin/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

async function login(webBase: string, origin: string, handle: string): Promise<string> {
  const res = await fetch(`${webBase}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ handle, password: PASSWORD }).toString(),
  });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('swarm_session='));
  expect(res.status).toBe(303);
  return cookie!.split(';', 1)[0]!;
}

describe('live updates on the embedded node', () => {
  let node: NodeProcess;
  let base: string;
  let dataDir: string;
  let cookie: string;
  let db: Db | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'swarm-live-'));
    const port = await freePort();
    base = `http://localhost:${port}`;
    // PGlite in the data directory, or a fresh Postgres database when TEST_DATABASE_URL is set.
    db = process.env.TEST_DATABASE_URL ? await createTestDb() : undefined;
    const databaseUrl = db?.kind === 'postgres' ? db.pool.options.connectionString : undefined;
    node = await startNodeProcess(
      await withMigratedDataDir({
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        PORT: String(port),
        SWARM_DOMAIN: `localhost:${port}`,
        DATA_DIR: dataDir,
        ADMIN_TOKEN,
        SWARM_LIVE_STREAMS_PER_USER: '2',
      }),
    );
    await admin(base, 'users', { handle: 'alice', password: PASSWORD });
    cookie = await login(base, base, 'alice');
  }, 400_000);

  afterAll(async () => {
    await node?.stop();
    await db?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses a stream without a session (401)', async () => {
    const stream = await openStream(base);
    expect(stream.status).toBe(401);
  });

  it('streams unbuffered snapshots: the first at once, the next after a change', async () => {
    const stream = await openStream(base, cookie);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(stream.headers.get('cache-control')).toContain('no-transform');
      expect(stream.headers.get('x-accel-buffering')).toBe('no');
      const first = await stream.next();
      expect(first).toMatchObject({ notifications: { unread: 0 }, home: { latest: null } });
      const { post } = (await admin(base, 'posts', { handle: 'alice', content: 'Live one' })) as {
        post: { createdAt: string };
      };
      const next = await stream.next((s) => s.home.latest !== null);
      expect(next.home.latest).toBe(post.createdAt);
    } finally {
      stream.close();
    }
  });

  it('answers HEAD with the headers and no stream', async () => {
    const res = await fetch(`${base}/events`, { method: 'HEAD', headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  });

  it('bounds the streams of one person (429 over SWARM_LIVE_STREAMS_PER_USER)', async () => {
    const held = [await openStream(base, cookie), await openStream(base, cookie)];
    try {
      for (const s of held) await s.next();
      const third = await openStream(base, cookie);
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).not.toBeNull();
      // A closed stream frees its slot.
      held.shift()!.close();
      await expect
        .poll(async () => {
          const s = await openStream(base, cookie);
          s.close();
          return s.status;
        })
        .toBe(200);
    } finally {
      for (const s of held) s.close();
    }
  });

  it('ends the stream when its session signs out', async () => {
    // The streams the test above closed free their slots once the server sees them go.
    let stream = await openStream(base, cookie);
    await expect
      .poll(async () => {
        if (stream.status !== 200) {
          stream.close();
          stream = await openStream(base, cookie);
        }
        return stream.status;
      })
      .toBe(200);
    await stream.next();
    const out = await fetch(`${base}/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        origin: base,
        cookie,
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: '',
    });
    expect(out.status).toBe(303);
    await stream.ended;
    const again = await openStream(base, cookie);
    expect(again.status).toBe(401);
  });

  // Last: it stops the node.
  it('ends every stream cleanly on SIGTERM, so the drain cuts nothing', async () => {
    await admin(base, 'users', { handle: 'bob', password: PASSWORD });
    const bob = await login(base, base, 'bob');
    const streams = [await openStream(base, bob), await openStream(base, bob)];
    await Promise.all(streams.map((s) => s.next()));
    expect(await node.stop()).toBe(0);
    for (const stream of streams) expect(await stream.ended).toEqual({ cut: false });
    expect(node.output()).toMatch(/requests answered, none cut/);
  });
});

const url = process.env.TEST_DATABASE_URL;

if (!url) {
  describe('live updates across processes', () => {
    it.skip('needs TEST_DATABASE_URL (two processes share one Postgres)', () => {});
  });
} else {
  describe('live updates across processes (Postgres)', () => {
    let db: Db;
    let pair: ProductionPair;
    let dataDir: string;

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'swarm-live-pair-'));
      db = await createTestDb();
      const databaseUrl = db.kind === 'postgres' ? db.pool.options.connectionString : undefined;
      if (!databaseUrl) throw new Error('TEST_DATABASE_URL did not give Postgres');
      pair = await startProductionPair({ databaseUrl, dataDir, env: { ADMIN_TOKEN } });
    }, 400_000);

    afterAll(async () => {
      await pair?.stop();
      await db?.close();
      await rm(dataDir, { recursive: true, force: true });
    });

    it("a post made in the gateway's process reaches a stream held by the web app's", async () => {
      await admin(pair.gatewayUrl, 'users', { handle: 'alice', password: PASSWORD });
      const cookie = await login(pair.webUrl, pair.webUrl, 'alice');
      const stream = await openStream(pair.webUrl, cookie);
      try {
        expect(stream.status, pair.output()).toBe(200);
        expect((await stream.next()).home.latest).toBeNull();
        const { post } = (await admin(pair.gatewayUrl, 'posts', {
          handle: 'alice',
          content: 'Written through the gateway',
        })) as { post: { createdAt: string } };
        const next = await stream.next((s) => s.home.latest !== null);
        expect(next.home.latest).toBe(post.createdAt);
      } finally {
        stream.close();
      }
    });
  });
}
