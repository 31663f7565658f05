import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEDIA_PROXY } from '@swarm/domain';
import { createHttpServer } from '@swarm/gateway';
import { createTestNode, type TestNode } from './harness.ts';
import { freePort, nodeOnPort, type RestartableNode } from '../src/node-process.ts';

// Issue 17 item 7, second half: a running node (web app + gateway, one process) shows another
// node's profile; every image on the page loads through the node's media proxy, which fetches
// only URLs the node signed, only images, within its size cap, never from private addresses.

/** 1×1 transparent PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

function imageHost() {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    switch (req.url) {
      case '/avatar.png':
      case '/banner.png':
      case '/photo.png':
        res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
        return;
      case '/page.png': // says PNG, is HTML
        res.writeHead(200, { 'content-type': 'image/png' }).end('<html><script>x</script></html>');
        return;
      case '/doc.html':
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
        return;
      case '/huge.png': {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(Buffer.concat([PNG, Buffer.alloc(MEDIA_PROXY.maxBytes)]));
        return;
      }
      default:
        res.writeHead(404).end();
    }
  });
  return { server, seen };
}

let dataDir: string;
let node: RestartableNode;
let images: ReturnType<typeof imageHost>;
let imagesBase: string;
let peer: TestNode;
let peerServer: Server;
let peerDomain: string;

const MEDIA = ['photo.png', 'page.png', 'doc.html', 'huge.png'];
const PRIVATE = 'https://10.1.2.3/secret.png';

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swarm-media-'));
  images = imageHost();
  const imagesPort = await freePort();
  images.server.listen(imagesPort, '127.0.0.1');
  await once(images.server, 'listening');
  imagesBase = `http://localhost:${imagesPort}`;

  // The other node: bob with an avatar, a banner, and a post whose media are the cases.
  const peerPort = await freePort();
  peerDomain = `localhost:${peerPort}`;
  peer = await createTestNode({ SWARM_DOMAIN: peerDomain, SWARM_DEV: '1' });
  const bob = await peer.node.db.prisma.user.create({
    data: {
      handle: 'bob',
      displayName: 'Bob',
      passwordHash: 'x',
      avatarUrl: `${imagesBase}/avatar.png`,
      headerUrl: `${imagesBase}/banner.png`,
    },
  });
  await peer.node.db.prisma.post.create({
    data: {
      authorId: bob.id,
      content: 'pictures',
      media: {
        create: [...MEDIA.map((m) => `${imagesBase}/${m}`), PRIVATE].map((url, position) => ({
          url,
          mimeType: 'image/png',
          altText: `case ${position}`,
          position,
        })),
      },
    },
  });
  peerServer = createHttpServer({ fetch: peer.app.fetch });
  peerServer.listen(peerPort, '127.0.0.1');
  await once(peerServer, 'listening');

  node = nodeOnPort({ dataDir: join(dataDir, 'node'), port: await freePort() });
  await node.start();
});

afterAll(async () => {
  await node?.stop();
  peerServer?.close();
  await peer?.close();
  images?.server.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The `src` of every `<img>` on the page, and which original URL each proxied one names. */
function imagesOf(html: string) {
  const srcs = [...html.matchAll(/<img\b[^>]*?\ssrc="([^"]*)"/g)].map((m) =>
    m[1]!.replaceAll('&amp;', '&'),
  );
  return srcs.map((src) => ({
    src,
    url: src.startsWith('/') ? new URL(src, 'http://x').searchParams.get('url') : null,
  }));
}

describe('the media proxy of a running node', () => {
  let shown: { src: string; url: string | null }[];
  const proxied = (url: string) => shown.find((s) => s.url === url)!.src;

  it('renders every remote image of a page through the proxy, with no-referrer and lazy', async () => {
    const res = await fetch(`${node.url}/@bob@${peerDomain}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    shown = imagesOf(html);
    // (The avatar shows twice: on the profile and on the post.)
    expect([...new Set(shown.map((s) => s.url))].sort()).toEqual(
      ['avatar.png', 'banner.png', ...MEDIA]
        .map((m) => `${imagesBase}/${m}`)
        .concat(PRIVATE)
        .sort(),
    );
    for (const { src } of shown) expect(src).toMatch(/^\/media\/proxy\?url=[^&]+&sig=[\w-]+$/);
    for (const tag of html.match(/<img\b[^>]*>/g) ?? []) {
      expect(tag).toContain('referrerpolicy="no-referrer"');
      expect(tag).toContain('loading="lazy"');
    }
    // The browser is never pointed at the image host.
    expect(images.seen).toEqual([]);
  });

  it('serves a signed image with nosniff, a closed CSP and cache headers, then from its cache', async () => {
    const first = await fetch(`${node.url}${proxied(`${imagesBase}/avatar.png`)}`);
    expect(first.status).toBe(200);
    expect(Buffer.from(await first.arrayBuffer())).toEqual(PNG);
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    expect(first.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(first.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const again = await fetch(`${node.url}${proxied(`${imagesBase}/avatar.png`)}`);
    expect(again.status).toBe(200);
    await again.arrayBuffer();
    expect(images.seen.filter((u) => u === '/avatar.png')).toHaveLength(1);
  });

  it('is not an open proxy: unsigned or re-targeted URLs are refused without a fetch', async () => {
    const before = images.seen.length;
    const sig = new URL(proxied(`${imagesBase}/avatar.png`), 'http://x').searchParams.get('sig')!;
    for (const query of [
      `url=${encodeURIComponent(`${imagesBase}/photo.png`)}&sig=${sig}`,
      `url=${encodeURIComponent(`${imagesBase}/photo.png`)}&sig=AAAAAAAAAAAAAAAAAAAAAA`,
      `url=${encodeURIComponent(`${imagesBase}/photo.png`)}`,
    ]) {
      const res = await fetch(`${node.url}/media/proxy?${query}`);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(((await res.json()) as { code: string }).code).toMatch(/FORBIDDEN|INVALID_REQUEST/);
    }
    expect(images.seen.length).toBe(before);
  });

  it('refuses non-images, images that are not what they claim, oversize answers and private addresses', async () => {
    const answers = [];
    for (const url of [
      `${imagesBase}/doc.html`,
      `${imagesBase}/page.png`,
      `${imagesBase}/huge.png`,
      PRIVATE,
    ]) {
      const res = await fetch(`${node.url}${proxied(url)}`);
      answers.push({ url, status: res.status, body: await res.json() });
    }
    // One answer for every failure: nothing tells a missing host from a refused type.
    for (const answer of answers) {
      expect(answer).toEqual({
        url: answer.url,
        status: 502,
        body: { error: 'The image could not be loaded.', code: 'PEER_UNAVAILABLE' },
      });
    }
    // The good image of the same post loads.
    const photo = await fetch(`${node.url}${proxied(`${imagesBase}/photo.png`)}`);
    expect(photo.status).toBe(200);
    expect(photo.headers.get('content-type')).toBe('image/png');
  });
});
