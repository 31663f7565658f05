import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, nodeOnPort, type RestartableNode } from '@swarm/testnet';

// Issue #14's routes on a running node (`pnpm start`'s entry point, web app + gateway, PGlite):
// search, tag pages and follower lists through tRPC over HTTP and the swarm JSON endpoints,
// link previews fetched from a real HTTP server, and the bad inputs of each, all over the wire.

const ADMIN_TOKEN = 'discover-admin-token-0123456789abcdef';
const PASSWORD = 'correct horse battery staple';

let dataDir: string;
let node: RestartableNode;
let site: Server;
let siteBase: string;
let cookie: string;

/** A web site for previews: an article, a PDF, a page over 1 MiB. */
function startSite() {
  return createServer((req, res) => {
    if (req.url === '/article') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<html><head><title>Fallback</title><meta property="og:title" content="A fine article">' +
          '<meta property="og:description" content="Worth reading."></head><body>…</body></html>',
      );
    } else if (req.url === '/paper.pdf') {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end('%PDF-1.7');
    } else if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<title>huge</title>${'x'.repeat(1024 * 1024 + 100)}`);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
}

async function admin(path: string, body: unknown) {
  const response = await fetch(`${node.url}/api/swarm/admin${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201)
    throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { post?: { id: string } };
}

/** A tRPC query over HTTP (GET, no batching): status and the data or the error body. */
async function query(path: string, input: unknown, withCookie = false) {
  const url = `${node.url}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`;
  const response = await fetch(url, { headers: withCookie ? { cookie } : {} });
  const body = (await response.json()) as {
    result?: { data: unknown };
    error?: { message: string; data: { code: string; httpStatus: number } };
  };
  return { status: response.status, data: body.result?.data as never, error: body.error };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swarm-discover-'));
  site = startSite();
  const sitePort = await freePort();
  site.listen(sitePort, '127.0.0.1');
  await once(site, 'listening');
  siteBase = `http://127.0.0.1:${sitePort}`;
  node = nodeOnPort({
    dataDir: join(dataDir, 'node'),
    port: await freePort(),
    env: { ADMIN_TOKEN },
  });
  await node.start();
  await admin('/users', { handle: 'alice', password: PASSWORD, displayName: 'Alice Liddell' });
  await admin('/users', { handle: 'bob', password: PASSWORD });
  const first = await admin('/posts', { handle: 'alice', content: 'Gardening with #Plants today' });
  await admin('/posts', {
    handle: 'bob',
    content: 'My #plants drink tea',
    replyToId: first.post!.id,
  });
  await admin('/posts', { handle: 'bob', content: 'Unrelated words only' });

  const login = await fetch(`${node.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      origin: node.url,
      accept: 'text/html',
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ handle: 'alice', password: PASSWORD }).toString(),
  });
  const session = login.headers.getSetCookie().find((c) => c.startsWith('swarm_session='));
  if (!session) throw new Error(`login answered ${login.status}`);
  cookie = session.split(';', 1)[0]!;
}, 300_000);

afterAll(async () => {
  site?.close();
  await node?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('search and tags over HTTP', () => {
  it('finds posts by words (prefixes, any case) and people by handle and name', async () => {
    const words = await query('search.query', { q: 'GARDEN' });
    expect(words.status).toBe(200);
    const found = words.data as { posts: { content: string }[]; people: { address: string }[] };
    expect(found.posts.map((p) => p.content)).toEqual(['Gardening with #Plants today']);
    const people = await query('search.query', { q: 'liddell' });
    expect((people.data as typeof found).people.map((p) => p.address)).toEqual(['alice']);
  });

  it('lists a tag’s posts, newest first, on the tag page and through tRPC', async () => {
    const page = await query('search.tag', { tag: 'PLANTS' });
    expect((page.data as { posts: { content: string }[] }).posts.map((p) => p.content)).toEqual([
      'My #plants drink tea',
      'Gardening with #Plants today',
    ]);
    const html = await fetch(`${node.url}/tags/plants`);
    expect(html.status).toBe(200);
    const text = await html.text();
    expect(text).toContain('My #plants drink tea');
    expect(text).toContain('href="/tags/plants"');
    const search = await fetch(`${node.url}/search?q=${encodeURIComponent('#plants')}`);
    expect(search.status).toBe(200);
    // Opens on the Tags tab for a #query.
    expect(await search.text()).toMatch(/aria-current="page"[^>]*>Tags/);
  });

  it('answers garbage queries with nothing found or a clear 400, never a 500', async () => {
    for (const q of ["' OR 1=1 --", '&:*|!()<->', '%_\\', '🙂🙂', '   ', 'a:* & b']) {
      const answer = await query('search.query', { q });
      expect(answer.status, q).toBe(200);
    }
    const long = await query('search.query', { q: 'x'.repeat(201) });
    expect(long.status).toBe(400);
    expect(long.error?.message).toMatch(/at most 200 characters/);
    const nul = await query('search.query', { q: 'a\u0000b' });
    expect(nul.status).toBe(400);
    for (const tag of ['123', 'a b', "x'y", 'é']) {
      const answer = await query('search.tag', { tag });
      expect(answer.status, tag).toBe(400);
      expect(answer.error?.message, tag).toMatch(/Not a hashtag/);
    }
    expect((await query('search.tag', { tag: 'plants', before: 'yesterday' })).status).toBe(400);
    expect((await fetch(`${node.url}/tags/%27%20OR%201%3D1`)).status).toBe(400);
    expect((await fetch(`${node.url}/search?q=${'y'.repeat(300)}`)).status).toBe(400);
    expect((await fetch(`${node.url}/search?q=%F0%9F`)).status).toBe(200);
  });
});

describe('follower lists over HTTP', () => {
  it('serves the swarm endpoints with bounded paging and refuses bad queries', async () => {
    const followers = await fetch(`${node.url}/api/swarm/users/alice/followers`);
    expect(followers.status).toBe(200);
    expect(await followers.json()).toMatchObject({ followers: [], nodeDomain: node.domain });
    for (const bad of ['limit=-3', 'limit=x', 'cursor=%3Cscript%3E']) {
      const answer = await fetch(`${node.url}/api/swarm/users/alice/following?${bad}`);
      expect(answer.status, bad).toBe(400);
      expect(await answer.json()).toMatchObject({ code: 'INVALID_REQUEST' });
    }
    const unknown = await fetch(`${node.url}/api/swarm/users/nobody/followers`);
    expect(unknown.status).toBe(404);
    const spec = (await (await fetch(`${node.url}/api/swarm/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining([
        '/api/swarm/users/{handle}/followers',
        '/api/swarm/users/{handle}/following',
      ]),
    );
  });

  it('shows the list pages, and a clear 400 for a bad cursor', async () => {
    const page = await fetch(`${node.url}/@alice/followers`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Followers of @alice');
    expect((await fetch(`${node.url}/@alice/following?cursor=!!`)).status).toBe(200);
    const bad = await query('profiles.following', { address: 'alice', cursor: '!!' });
    expect(bad.status).toBe(400);
  });
});

describe('link previews over HTTP', () => {
  it('needs a session', async () => {
    const answer = await query('posts.linkPreview', { url: `${siteBase}/article` });
    expect(answer.status).toBe(401);
  });

  it('reads the card of an HTML page (development mode allows this loopback site)', async () => {
    const answer = await query('posts.linkPreview', { url: `${siteBase}/article` }, true);
    expect(answer.status).toBe(200);
    expect(answer.data).toMatchObject({
      url: `${siteBase}/article`,
      title: 'A fine article',
      description: 'Worth reading.',
    });
  });

  it('refuses private addresses, non-HTML and oversize pages with their own status', async () => {
    const cases: [string, number, RegExp][] = [
      ['https://10.0.0.1/admin', 403, /private or local address/],
      ['https://169.254.169.254/latest/meta-data', 403, /private or local address/],
      [`${siteBase}/paper.pdf`, 415, /not a web page/],
      [`${siteBase}/huge`, 413, /larger than/],
      ['javascript:alert(1)', 400, /not an http\(s\) URL/],
    ];
    for (const [url, status, message] of cases) {
      const answer = await query('posts.linkPreview', { url }, true);
      expect(answer.status, url).toBe(status);
      expect(answer.error?.message, url).toMatch(message);
    }
  });
});
