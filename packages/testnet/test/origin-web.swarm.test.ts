import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  startNodeProcess,
  withMigratedDataDir,
  type NodeProcess,
} from '../src/node-process.ts';
import { startOriginPeer, type OriginPeer } from '../src/origin-peer.ts';

// Our node started as the README starts it (one process, gateway and web app, embedded
// database; needs `pnpm build`) beside a fake origin-profile peer, over real sockets: the
// user-facing reads of each other's people and posts (`/api/users/…`, `/@handle@domain`, the
// swarm feed and post pages), which go through the web app. The `/api/users/…` cases need
// issue 12 bug 1 fixed (embedded mode answered 500 on every `/api/users/*` endpoint).

const ADMIN_TOKEN = 'origin-web-admin-token-0123456789';

let dataDir: string;
let node: NodeProcess;
let origin: OriginPeer;
let url: string;
let self: string;

async function admin(path: string, body: object) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function getJson(path: string) {
  const res = await fetch(`${url}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function page(path: string) {
  const res = await fetch(`${url}${path}`);
  expect(res.status, path).toBe(200);
  return res.text();
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swarm-origin-web-'));
  origin = await startOriginPeer({
    users: [
      { handle: 'carol', displayName: 'Carol Origin', bio: 'on the origin' },
      { handle: 'dave', displayName: 'Dave Origin' },
    ],
  });
  const port = await freePort();
  self = `localhost:${port}`;
  url = `http://127.0.0.1:${port}`;
  node = await startNodeProcess(
    await withMigratedDataDir({
      PORT: String(port),
      DATA_DIR: dataDir,
      SWARM_DEV: '1',
      ADMIN_TOKEN,
      SWARM_GOSSIP_INTERVAL_MS: '3600000',
    }),
  );
  // The operator adds the origin node (a probe of its /api/swarm/info).
  const discovered = await admin('/api/swarm/nodes', { action: 'discover', domain: origin.domain });
  expect(discovered.body.results).toEqual([
    expect.objectContaining({ domain: origin.domain, ok: true }),
  ]);
});

afterAll(async () => {
  await node?.stop();
  await origin?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('our web app reads an origin peer', () => {
  it('answers /api/users/<h>@<origin> and its posts', async () => {
    origin.addPost('carol', 'carol posts on the origin');
    const user = await getJson(`/api/users/carol@${origin.domain}`);
    expect(user).toMatchObject({
      status: 200,
      body: {
        isSwarm: true,
        profile: {
          handle: 'carol',
          displayName: 'Carol Origin',
          bio: 'on the origin',
          avatarUrl: '',
          nodeDomain: origin.domain,
          did: origin.users.get('carol')!.did,
        },
      },
    });
    const posts = await getJson(`/api/users/carol@${origin.domain}/posts`);
    expect(posts.status).toBe(200);
    expect(posts.body.posts).toContainEqual(
      expect.objectContaining({
        content: 'carol posts on the origin',
        author: expect.objectContaining({ handle: 'carol', nodeDomain: origin.domain }),
      }),
    );
  });

  it('shows the origin profile, swarm feed and post page with its replies', async () => {
    // dave's profile was never read here: his page reads his node, which keeps his posts here
    // for the swarm feed too (carol's, read by the previous case, is served from this node).
    const post = origin.addPost('dave', 'an origin post worth a page');
    post.replies.push({
      key: 'swarm:gamma.test:r1',
      id: crypto.randomUUID(),
      content: 'gamma replies on the origin',
      createdAt: new Date(Date.now() + 1000).toISOString(),
      authorHandle: 'erin',
      authorDisplayName: 'Erin',
      nodeDomain: 'gamma.test',
    });
    expect(await page(`/@dave@${origin.domain}`)).toContain('an origin post worth a page');
    expect(await page('/swarm')).toContain('an origin post worth a page');
    const thread = await page(`/posts/${encodeURIComponent(`swarm:${origin.domain}:${post.id}`)}`);
    expect(thread).toContain('an origin post worth a page');
    expect(thread).toContain('gamma replies on the origin');
  });
});

describe('an origin peer reads our web app', () => {
  it('reads our user and their posts (user-facing, `author` an object) by its rules', async () => {
    expect((await admin('/api/swarm/admin/users', { handle: 'alice' })).status).toBe(201);
    const created = await admin('/api/swarm/admin/posts', {
      handle: 'alice',
      content: 'alice speaks to the origin',
    });
    expect(created.status).toBe(201);
    const id = (created.body.post as { id: string }).id;

    const user = await origin.read.user(self, 'alice');
    expect(user).toMatchObject({ ok: true, value: { handle: `alice@${self}`, postsCount: 1 } });
    const posts = await origin.read.userPosts(self, 'alice');
    expect(posts).toEqual({
      ok: true,
      value: [
        expect.objectContaining({
          id: `swarm:${self}:${id}`,
          content: 'alice speaks to the origin',
          author: expect.objectContaining({ handle: 'alice', displayName: 'alice' }),
        }),
      ],
    });
  });
});

describe('a person of our node beside an origin peer, as the pages say it', () => {
  const PASSWORD = 'correct horse battery staple';
  let cookie = '';

  /** A page as the signed-in person gets it on a full load (server-rendered). */
  async function signedInPage(path: string) {
    const res = await fetch(`${url}${path}`, { headers: { cookie } });
    expect(res.status, path).toBe(200);
    return res.text();
  }

  beforeAll(async () => {
    for (const handle of ['dana', 'erin']) {
      const created = await admin('/api/swarm/admin/users', { handle, password: PASSWORD });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    const res = await fetch(`${url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        origin: `http://${self}`,
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ handle: 'dana', password: PASSWORD }).toString(),
    });
    expect(res.status).toBe(303);
    cookie = res.headers
      .getSetCookie()
      .find((c) => c.startsWith('swarm_session='))!
      .split(';', 1)[0]!;
  });

  it('Home, following nobody, points to the header search', async () => {
    const home = await signedInPage('/');
    expect(home).toContain('You follow nobody yet');
    expect(home).toContain('search box at the top of the page');
    // (the phone menu's link to /find keeps that name; the empty state no longer sends people there)
    expect(home).not.toContain('“Find someone”');
  });

  it('writing to someone on the origin node: their node cannot carry E2E messages', async () => {
    const thread = await signedInPage(`/messages/carol@${origin.domain}`);
    expect(thread).toContain(
      `${origin.domain} cannot carry end-to-end encrypted messages, so carol@${origin.domain} cannot be written to from here.`,
    );
    expect(thread).not.toContain('has not set up direct messages');
    // Someone of our profile without keys is the other case, said as such.
    const local = await signedInPage(`/messages/erin@${self}`);
    expect(local).toContain(`erin@${self} has not set up direct messages yet.`);
    expect(local).not.toContain('cannot carry end-to-end encrypted messages');
  });
});
