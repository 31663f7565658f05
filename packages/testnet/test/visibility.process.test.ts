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
  type NodeProcess,
} from '../src/node-process.ts';

// Who may be seen (issue #22; docs/security.md "Who may be seen") through the front door of the
// node as `pnpm start` runs it: a suspended account and one the viewer muted, read by a visitor
// and by the viewer through every route that lists posts or people by a word or a tag (the
// search page, the tag page, their tRPC procedures, the peers' reads, the spec's
// `/api/users/*`). Before issue #22, search and tags still showed the suspended account's
// posts. Also the profile of a muted person: it says so and offers "Unmute". Needs `pnpm build`.

const ADMIN_TOKEN = 'visibility-admin-token-0123456789';
const PASSWORD = 'correct horse battery staple';

let node: NodeProcess;
let base: string;
let dataDir: string;
let db: Db | undefined;
let cookie: string;

async function admin(method: string, path: string, body: unknown, status: number) {
  const res = await fetch(`${base}/api/swarm/admin/${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(status);
}

/** A form action as the browser sends it (same origin), answered with a redirect. */
async function form(path: string, fields: Record<string, string>, withCookie = cookie) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      origin: base,
      accept: 'text/html',
      'content-type': 'application/x-www-form-urlencoded',
      ...(withCookie ? { cookie: withCookie } : {}),
    },
    body: new URLSearchParams(fields).toString(),
  });
  expect(res.status, await res.clone().text()).toBe(303);
  return res;
}

async function text(path: string, signedIn: boolean): Promise<{ status: number; body: string }> {
  const res = await fetch(`${base}${path}`, {
    headers: { accept: 'text/html', ...(signedIn ? { cookie } : {}) },
  });
  return { status: res.status, body: await res.text() };
}

const trpc = (procedure: string, input: unknown) =>
  `/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`;

/** The reads that list posts or people by a word or a tag: each must show okay's post only. */
const LISTING_READS = [
  '/search?q=unicorn',
  '/search?q=%23zebra',
  '/tags/zebra',
  trpc('search.query', { q: 'unicorn' }),
  trpc('search.query', { q: 'marker' }),
  trpc('search.tag', { tag: 'zebra' }),
  '/api/swarm/timeline',
  '/public',
];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swarm-visibility-'));
  const port = await freePort();
  base = `http://localhost:${port}`;
  db = process.env.TEST_DATABASE_URL ? await createTestDb() : undefined;
  const databaseUrl = db?.kind === 'postgres' ? db.pool.options.connectionString : undefined;
  node = await startNodeProcess(
    await withMigratedDataDir({
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      PORT: String(port),
      SWARM_DOMAIN: `localhost:${port}`,
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      // The reads here must see the writes at once.
      SWARM_READ_CACHE_TTL_MS: '0',
    }),
  );
  for (const handle of ['vera', 'okay', 'sus', 'mutie']) {
    await admin('POST', 'users', { handle, password: PASSWORD }, 201);
    await admin('POST', 'posts', { handle, content: `unicorn #zebra marker-${handle}` }, 201);
  }
  await admin('PUT', 'users/sus/suspension', { suspended: true, reason: 'spam' }, 200);
  const login = await form('/login', { handle: 'vera', password: PASSWORD }, '');
  cookie = login.headers
    .getSetCookie()
    .find((c) => c.startsWith('swarm_session='))!
    .split(';', 1)[0]!;
  await form('/settings/safety?/mute', { target: 'mutie', next: '/@mutie' });
}, 400_000);

afterAll(async () => {
  await node?.stop();
  await db?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('a suspended account is not found', () => {
  it.each(LISTING_READS)('%s (a visitor)', async (path) => {
    const { status, body } = await text(path, false);
    expect(status).toBe(200);
    expect(body).toContain('marker-okay');
    expect(body).not.toContain('marker-sus');
    expect(body).toContain('marker-mutie'); // muted by vera, not by a visitor
  });

  it.each(LISTING_READS)('%s (vera, who muted mutie)', async (path) => {
    const { status, body } = await text(path, true);
    expect(status).toBe(200);
    expect(body).toContain('marker-okay');
    expect(body).not.toContain('marker-sus');
    if (!path.startsWith('/api/swarm/')) expect(body).not.toContain('marker-mutie');
  });

  it.each(['/api/swarm/users/sus', '/api/users/sus', '/@sus', '/api/swarm/users/sus/followers'])(
    '%s answers 404',
    async (path) => {
      expect((await text(path, false)).status).toBe(404);
      expect((await text(path, true)).status).toBe(404);
    },
  );
});

describe('the profile of someone vera muted', () => {
  it('says so and offers Unmute there, then Mute again once unmuted', async () => {
    const muted = await text('/@mutie', true);
    expect(muted.status).toBe(200);
    expect(muted.body).toContain('You muted @mutie');
    expect(muted.body).toMatch(/<button[^>]*>Unmute<\/button>/);
    expect(muted.body).not.toContain('Mute @mutie');
    await form('/settings/safety?/unmute', { target: 'mutie', next: '/@mutie' });
    const unmuted = await text('/@mutie', true);
    expect(unmuted.body).not.toContain('You muted @mutie');
    expect(unmuted.body).toContain('Mute @mutie');
  });
});
