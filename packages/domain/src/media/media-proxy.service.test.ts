import { describe, expect, it } from 'vitest';
import { generateSigningKeyPair } from '@swarm/contract';
import { createLogger } from '../logger.ts';
import { createPeerClient } from '../peers/peer-client.ts';
import { transportFromFetch } from '../peers/peer-transport.ts';
import {
  createMediaProxyService,
  looksLike,
  MEDIA_PROXY,
  withMediaSrc,
} from './media-proxy.service.ts';

// The media proxy over an injected transport: what reaches the network, and what never does.

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
const keys = await generateSigningKeyPair();
const logger = createLogger('silent');

function setup(clockMs = { now: Date.UTC(2026, 10, 22) }) {
  const sent: string[] = [];
  const transport = transportFromFetch(async (request) => {
    sent.push(request.url);
    return new Response(PNG, { headers: { 'content-type': 'image/png' } });
  });
  const clock = { now: () => new Date(clockMs.now) };
  const peers = createPeerClient({
    config: { domain: 'alpha.example', dev: false },
    keys,
    clock,
    logger,
    transport,
    // A DNS answer pointing at a private address must be refused like a private literal.
    resolveHost: async (host) => (host === 'inside.example' ? ['10.0.0.7'] : ['93.184.216.34']),
  });
  const media = createMediaProxyService({
    keys: { mediaSecret: new Uint8Array(32).fill(7) },
    peers,
    clock,
    logger,
  });
  const load = (url: string) => {
    const src = media.src(url);
    if (!src) throw new Error(`not signed: ${url}`);
    const params = new URL(src, 'http://x').searchParams;
    return media.load({ url: params.get('url'), sig: params.get('sig') });
  };
  return { sent, media, load, clockMs };
}

describe('media proxy', () => {
  it('signs only http(s) URLs a node may fetch, and checks the signature', async () => {
    const { media } = setup();
    expect(media.src('javascript:alert(1)')).toBeNull();
    expect(media.src('http://images.example/a.png')).toBeNull(); // https only outside dev
    expect(media.src('https://user:pw@images.example/a.png')).toBeNull();
    const src = media.src('https://images.example/a.png')!;
    expect(src).toMatch(/^\/media\/proxy\?url=https%3A%2F%2Fimages\.example%2Fa\.png&sig=/);
    const sig = new URL(src, 'http://x').searchParams.get('sig');
    expect(await media.load({ url: 'https://images.example/b.png', sig })).toMatchObject({
      ok: false,
      status: 403,
    });
  });

  it('never connects to a host whose DNS answer is private, and answers like any failure', async () => {
    const { sent, load } = setup();
    expect(await load('https://inside.example/a.png')).toEqual({
      ok: false,
      status: 502,
      code: 'PEER_UNAVAILABLE',
      message: 'The image could not be loaded.',
    });
    expect(sent).toEqual([]);
  });

  it('fetches once: concurrent loads share a request, later ones come from the cache', async () => {
    const { sent, load } = setup();
    const url = 'https://images.example/a.png';
    const all = await Promise.all(Array.from({ length: 20 }, () => load(url)));
    expect(all.every((a) => a.ok)).toBe(true);
    expect(await load(url)).toMatchObject({ ok: true, contentType: 'image/png' });
    expect(sent).toEqual([url]);
  });

  it('spends at most its per-host budget a minute', async () => {
    const { sent, load, clockMs } = setup();
    const answers = [];
    for (let i = 0; i < MEDIA_PROXY.perHostPerMinute + 5; i++) {
      answers.push(await load(`https://images.example/${i}.png`));
    }
    expect(sent).toHaveLength(MEDIA_PROXY.perHostPerMinute);
    expect(answers.filter((a) => !a.ok).map((a) => !a.ok && a.status)).toEqual(Array(5).fill(429));
    clockMs.now += 60_000;
    expect(await load('https://images.example/next.png')).toMatchObject({ ok: true });
  });

  it('recognises image bytes by their start', () => {
    expect(looksLike('image/png', PNG)).toBe(true);
    expect(looksLike('image/jpeg', PNG)).toBe(false);
    expect(looksLike('image/svg+xml', new TextEncoder().encode('<svg/>'))).toBe(false);
  });

  it('adds proxied paths next to image URLs of views, leaving the URLs', () => {
    const src = (url: string | null | undefined) => (url ? `/p/${url}` : null);
    const data = {
      posts: [
        {
          author: { handle: 'a', displayName: 'A', address: 'a', avatarUrl: 'https://i/a.png' },
          media: [{ url: 'https://i/m.png', mimeType: 'image/png', altText: '' }],
          linkPreview: { url: 'https://l', title: 't', description: null, image: null },
        },
      ],
      profile: { actor: {}, headerUrl: 'https://i/h.png' },
    };
    expect(withMediaSrc(data, src)).toEqual({
      posts: [
        {
          author: { ...data.posts[0]!.author, avatarSrc: '/p/https://i/a.png' },
          media: [{ ...data.posts[0]!.media[0], src: '/p/https://i/m.png' }],
          linkPreview: { ...data.posts[0]!.linkPreview, imageSrc: null },
        },
      ],
      profile: { actor: {}, headerUrl: 'https://i/h.png', headerSrc: '/p/https://i/h.png' },
    });
    expect(data.posts[0]!.author).not.toHaveProperty('avatarSrc');
  });

  it('leaves a statement prepared for signing as it is (its photos would not match)', () => {
    const src = (url: string | null | undefined) => (url ? `/p/${url}` : null);
    const prepared = {
      action: 'post',
      targetDomain: 'a.example',
      body: { media: [{ url: 'https://a.example/m.webp', mimeType: 'image/webp', altText: 'x' }] },
    };
    expect(withMediaSrc(prepared, src)).toEqual(prepared);
    expect(withMediaSrc(prepared, src).body.media[0]).not.toHaveProperty('src');
  });
});
