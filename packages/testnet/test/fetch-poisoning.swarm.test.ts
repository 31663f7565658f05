import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINK_PREVIEW, MEDIA_PROXY } from '@swarm/domain';
import {
  createTestNode,
  insertKeyedUser,
  signedInCaller,
  trpcFailure,
  type KeyedUser,
  type TestNode,
} from './harness.ts';

// Red team (issue 22): hostile answers to the media proxy and to link previews, from a real
// HTTP server the node fetches with its real transport (development mode, so the server may be
// on loopback). A trickle of bytes (slowloris) must hit the total deadline; an answer with a
// wrong or huge type or body, or a redirect to a private address, is neither served nor
// cached; one URL's answer is never stored or served under another URL.

/** 1×1 PNGs that differ in their last byte (a comment chunk would do as well). */
const png = (tag: number) =>
  Buffer.concat([
    Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
      'base64',
    ),
    Buffer.from([tag]),
  ]);
const SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';

const hits = new Map<string, number>();
let honest = false; // /flip.png: SVG at first, a PNG once this is set
let host: string;
let slowHost: string;
let server: Server;
let slowHeaders: net.Server;
const sockets = new Set<net.Socket>();
let node: TestNode;
let alice: KeyedUser;

function trickle(res: ServerResponse, type: string) {
  res.writeHead(200, { 'content-type': type });
  res.write(type.startsWith('image/') ? png(0).subarray(0, 8) : '<html><head>');
  const timer = setInterval(() => res.write(' '), 200);
  res.once('close', () => clearInterval(timer));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    switch (path) {
      case '/a.png':
        return void res.writeHead(200, { 'content-type': 'image/png' }).end(png(1));
      case '/b.png':
        return void res.writeHead(200, { 'content-type': 'image/png' }).end(png(2));
      case '/slow.png':
        return trickle(res, 'image/png');
      case '/slow.html':
        return trickle(res, 'text/html');
      case '/flip.png':
        return void (honest
          ? res.writeHead(200, { 'content-type': 'image/png' }).end(png(3))
          : res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(SVG));
      case '/endless.png': {
        // No Content-Length: only the cap while reading can stop it.
        res.writeHead(200, { 'content-type': 'image/png' });
        res.write(png(4));
        const chunk = Buffer.alloc(256 * 1024);
        const pump = () => {
          while (res.write(chunk)) if (res.writableLength > 1 << 20) break;
        };
        res.on('drain', pump);
        pump();
        return;
      }
      case '/long-type.png':
        return void res
          .writeHead(200, { 'content-type': `image/png; x=${'a'.repeat(8000)}` })
          .end(png(5));
      case '/to-private.png':
        return void res.writeHead(302, { location: 'https://10.1.2.3/a.png' }).end();
      case '/to-private':
        return void res.writeHead(302, { location: 'https://10.1.2.3/' }).end();
      case '/to-metadata':
        return void res
          .writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' })
          .end();
      case '/p1':
      case '/p2':
        return void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<html><head><title>page ${path.slice(2)}</title></head></html>`);
      case '/hop':
        return void res.writeHead(302, { location: '/p2' }).end();
      default:
        return void res.writeHead(404).end();
    }
  });
  server.on('connection', (socket) => {
    socket.on('error', () => undefined); // the node hangs up on purpose
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  host = `http://localhost:${(server.address() as AddressInfo).port}`;
  // Headers that never end: a status line, then a header line every 200 ms.
  slowHeaders = net.createServer((socket) => {
    socket.on('error', () => undefined);
    sockets.add(socket);
    socket.write('HTTP/1.1 200 OK\r\n');
    const timer = setInterval(() => socket.write('X-Wait: 1\r\n'), 200);
    socket.once('close', () => {
      clearInterval(timer);
      sockets.delete(socket);
    });
  });
  slowHeaders.listen(0, '127.0.0.1');
  await once(slowHeaders, 'listening');
  slowHost = `http://localhost:${(slowHeaders.address() as AddressInfo).port}`;
  node = await createTestNode({ SWARM_DEV: '1', SWARM_DOMAIN: 'localhost:1' });
  alice = await insertKeyedUser(node.node, 'alice');
});

afterAll(async () => {
  await node?.close();
  for (const socket of sockets) socket.destroy();
  server?.close();
  slowHeaders?.close();
});

/** The proxy's answer for `url`, as a page would ask for it (signed by the node). */
async function proxied(url: string) {
  const src = new URL(node.node.media.src(url)!, 'http://x');
  return node.node.media.load({
    url: src.searchParams.get('url'),
    sig: src.searchParams.get('sig'),
  });
}

const preview = (url: string) => signedInCaller(node.node, alice.user).posts.linkPreview({ url });

describe('slow answers hit the total deadline', () => {
  it('a trickled body or never-ending headers fail at the deadline, not later', async () => {
    const started = performance.now();
    const timed = async <T>(work: Promise<T>) => {
      const value = await work;
      return { value, ms: performance.now() - started };
    };
    const [image, headers, page, pageHeaders] = await Promise.all([
      timed(proxied(`${host}/slow.png`)),
      timed(proxied(`${slowHost}/x.png`)),
      timed(trpcFailure(preview(`${host}/slow.html`))),
      timed(trpcFailure(preview(`${slowHost}/page`))),
    ]);
    for (const { value, ms } of [image, headers]) {
      expect(value).toMatchObject({ ok: false, status: 502 });
      expect(ms).toBeGreaterThanOrEqual(MEDIA_PROXY.timeoutMs - 100);
      expect(ms).toBeLessThan(MEDIA_PROXY.timeoutMs + 3_000);
    }
    for (const { value, ms } of [page, pageHeaders]) {
      expect(value.code).toBe('BAD_GATEWAY');
      expect(value.message).toMatch(/did not answer in time/);
      expect(ms).toBeLessThan(LINK_PREVIEW.timeoutMs + 3_000);
    }
  });
});

describe('bad answers are neither served nor cached', () => {
  it('an SVG is refused, and the refusal is not turned into an image later by the cache', async () => {
    expect(await proxied(`${host}/flip.png`)).toMatchObject({ ok: false, status: 502 });
    honest = true;
    // Within the failure memory, the host is not asked again and nothing is served.
    expect(await proxied(`${host}/flip.png`)).toMatchObject({ ok: false, status: 502 });
    expect(hits.get('/flip.png')).toBe(1);
    node.clock.advance(MEDIA_PROXY.negativeTtlMs + 1);
    const good = await proxied(`${host}/flip.png`);
    expect(good.ok && Buffer.from(good.bytes).equals(png(3))).toBe(true);
  });

  it('a body past the cap without Content-Length, or a type with huge parameters', async () => {
    expect(await proxied(`${host}/endless.png`)).toMatchObject({ ok: false, status: 502 });
    const long = await proxied(`${host}/long-type.png`);
    // The type is read without its parameters; the bytes are a PNG: served as image/png only.
    expect(long.ok && long.contentType).toBe('image/png');
  });

  it('a redirect is never followed by the proxy, and a preview never follows one to a private address', async () => {
    expect(await proxied(`${host}/to-private.png`)).toMatchObject({ ok: false, status: 502 });
    expect(hits.get('/to-private.png')).toBe(1);
    for (const path of ['/to-private', '/to-metadata']) {
      const failed = await trpcFailure(preview(`${host}${path}`));
      expect(failed, path).toMatchObject({ code: 'FORBIDDEN' });
    }
    // Failures are remembered as failures: asking again neither fetches nor yields a card.
    const again = await trpcFailure(preview(`${host}/to-private`));
    expect(again.code).toBe('FORBIDDEN');
    expect(hits.get('/to-private')).toBe(1);
  });
});

describe('one URL’s answer is never kept under another', () => {
  it('concurrent images come back with their own bytes, and stay so in the cache', async () => {
    const urls = [`${host}/a.png`, `${host}/b.png`, `${host}/a.png#b.png`, `${host}/b.png?a.png`];
    const want = [1, 2, 1, 2];
    for (const round of [1, 2]) {
      const answers = await Promise.all(urls.map((url) => proxied(url)));
      answers.forEach((answer, i) => {
        expect(
          answer.ok && Buffer.from(answer.bytes).equals(png(want[i]!)),
          `${urls[i]} ${round}`,
        ).toBe(true);
      });
    }
  });

  it('a redirected preview is the card of the link asked for; the target keeps its own', async () => {
    const [hop, p1] = await Promise.all([preview(`${host}/hop`), preview(`${host}/p1`)]);
    expect(hop).toMatchObject({ url: `${host}/hop`, title: 'page 2' });
    expect(p1).toMatchObject({ url: `${host}/p1`, title: 'page 1' });
    expect(await preview(`${host}/p2`)).toMatchObject({ url: `${host}/p2`, title: 'page 2' });
    expect(await preview(`${host}/p1#x`)).toMatchObject({ url: `${host}/p1`, title: 'page 1' });
  });
});
