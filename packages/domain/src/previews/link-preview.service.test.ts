import { describe, expect, it } from 'vitest';
import { generateSigningKeyPair } from '@swarm/contract';
import { createLogger } from '../logger.ts';
import { createPeerClient } from '../peers/peer-client.ts';
import { transportFromFetch } from '../peers/peer-transport.ts';
import { createMemoryLimits } from '../replicas/limits.ts';
import { parseLinkMetadata } from './link-metadata.ts';
import { createLinkPreviewService, LINK_PREVIEW } from './link-preview.service.ts';

// Link previews through the real peer client (SSRF guard, size cap, no blind redirects) over an
// injected transport: what is fetched, what is refused before anything is sent, what is cached.

const keys = await generateSigningKeyPair();
const logger = createLogger('silent');

const ARTICLE = `<!doctype html><html><head>
  <title>Plain title</title>
  <meta property="og:title" content="The &amp; article">
  <meta name="twitter:description" content="  A   description
    over lines ">
  <meta property="og:image" content="/img/card.png">
</head><body><meta property="og:title" content="ignored, in the body"></body></html>`;

type Route = (url: URL) => Response | Promise<Response>;

function setup(routes: Record<string, Route>) {
  const sent: string[] = [];
  const transport = transportFromFetch(async (request) => {
    sent.push(request.url);
    const url = new URL(request.url);
    const route = routes[url.pathname];
    return route ? route(url) : new Response('not found', { status: 404 });
  });
  const clock = { now: () => new Date(Date.UTC(2026, 10, 25)) };
  const peers = createPeerClient({
    config: { domain: 'alpha.example', dev: false },
    keys,
    clock,
    logger,
    transport,
    resolveHost: async (host) => (host === 'inside.example' ? ['10.0.0.7'] : ['93.184.216.34']),
  });
  const limits = createMemoryLimits({ clock });
  const previews = createLinkPreviewService({ peers, clock, logger, limits });
  return { sent, previews };
}

const html = (body: string, type = 'text/html; charset=utf-8') =>
  new Response(body, { headers: { 'content-type': type } });

describe('parseLinkMetadata', () => {
  it('prefers Open Graph, then Twitter card, then <title>; resolves the image; decodes entities', () => {
    expect(parseLinkMetadata(ARTICLE, 'https://news.example/a/b')).toEqual({
      title: 'The & article',
      description: 'A description over lines',
      image: 'https://news.example/img/card.png',
      siteName: null,
    });
    expect(parseLinkMetadata('<title> Only  a title </title>', 'https://x.example/')).toEqual({
      title: 'Only a title',
      description: null,
      image: null,
      siteName: null,
    });
  });

  it('survives broken markup and drops unusable images, capping long text', () => {
    const long = 'x'.repeat(5000);
    const meta = parseLinkMetadata(
      `<meta property=og:title content="${long}"><meta property="og:image" content="javascript:alert(1)"><title>unclosed`,
      'https://x.example/',
    );
    expect(Array.from(meta.title ?? '')).toHaveLength(300);
    expect(meta.image).toBeNull();
    expect(parseLinkMetadata('', 'https://x.example/')).toEqual({
      title: null,
      description: null,
      image: null,
      siteName: null,
    });
  });
});

describe('link previews', () => {
  it('fetches an https page once, reads its card, and serves repeats from the cache', async () => {
    const { sent, previews } = setup({ '/a/b': () => html(ARTICLE) });
    const first = await previews.preview('u1', 'https://news.example/a/b#section');
    expect(first).toEqual({
      ok: true,
      value: {
        url: 'https://news.example/a/b',
        title: 'The & article',
        description: 'A description over lines',
        image: 'https://news.example/img/card.png',
        siteName: null,
      },
    });
    expect(await previews.preview('u2', 'https://news.example/a/b')).toEqual(first);
    expect(sent).toEqual(['https://news.example/a/b']);
  });

  it('follows a redirect on the same terms, each hop vetted again', async () => {
    const { sent, previews } = setup({
      '/old': () => new Response(null, { status: 301, headers: { location: '/new' } }),
      '/new': () => html('<title>Moved here</title>'),
      '/sneaky': () =>
        new Response(null, { status: 302, headers: { location: 'https://inside.example/' } }),
    });
    const moved = await previews.preview('u1', 'https://news.example/old');
    expect(moved).toMatchObject({
      ok: true,
      value: { url: 'https://news.example/old', title: 'Moved here' },
    });
    const sneaky = await previews.preview('u1', 'https://news.example/sneaky');
    expect(sneaky).toMatchObject({ ok: false, reason: { code: 'FORBIDDEN' } });
    expect(sent).not.toContain('https://inside.example/');
  });

  it('refuses private addresses, plain http, non-HTML and oversize pages, with reasons', async () => {
    const { sent, previews } = setup({
      '/doc.pdf': () => html('%PDF-1.7', 'application/pdf'),
      '/huge': () => html(`<title>big</title>${'x'.repeat(LINK_PREVIEW.maxBytes + 10)}`),
      '/gone': () => new Response('no', { status: 500 }),
    });
    const cases: [string, string, RegExp][] = [
      ['https://inside.example/x', 'FORBIDDEN', /private or local address/],
      ['https://10.1.2.3/x', 'FORBIDDEN', /private or local address/],
      ['https://127.0.0.1/x', 'FORBIDDEN', /private or local address/],
      ['http://news.example/x', 'INVALID_REQUEST', /only https:\/\//],
      ['ftp://news.example/x', 'INVALID_REQUEST', /not an http\(s\) URL/],
      ['not a url', 'INVALID_REQUEST', /not an absolute URL/],
      ['', 'INVALID_REQUEST', /web address/],
      [
        'https://news.example/doc.pdf',
        'UNSUPPORTED_MEDIA_TYPE',
        /not a web page \(application\/pdf\)/,
      ],
      ['https://news.example/huge', 'PAYLOAD_TOO_LARGE', /larger than 1024 KiB/],
      ['https://news.example/gone', 'PEER_UNAVAILABLE', /HTTP 500/],
    ];
    for (const [url, code, message] of cases) {
      const result = await previews.preview('u1', url);
      expect(result.ok, url).toBe(false);
      if (result.ok) continue;
      expect(result.reason.code, url).toBe(code);
      expect(result.reason.message, url).toMatch(message);
    }
    // Nothing was sent to a private address or over plain http.
    expect(sent.filter((u) => !u.startsWith('https://news.example/'))).toEqual([]);
  });

  it('limits how many pages one user makes the node fetch', async () => {
    const { previews } = setup({ '/p': () => html('<title>p</title>') });
    const results = [];
    for (let i = 0; i < LINK_PREVIEW.perUser.burst + 1; i++) {
      results.push(await previews.preview('greedy', `https://news.example/p?i=${i}`));
    }
    expect(results.slice(0, -1).every((r) => r.ok)).toBe(true);
    expect(results.at(-1)).toMatchObject({ ok: false, reason: { code: 'RATE_LIMITED' } });
    // Someone else is not affected; a cached page costs nothing.
    expect((await previews.preview('other', 'https://news.example/p?i=99')).ok).toBe(true);
    expect((await previews.preview('greedy', 'https://news.example/p?i=0')).ok).toBe(true);
  });
});
