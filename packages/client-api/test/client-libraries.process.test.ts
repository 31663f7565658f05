import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, nodeOnPort, type RestartableNode } from '@swarm/testnet';
import { createRestAPIClient, MastoHttpError } from 'masto';
import generator, { detector } from 'megalodon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The client API through the front door (docs/clients.md): a node started as the README says,
// driven by the two libraries most Mastodon apps are built on, masto.js and megalodon, and by
// plain fetch for what the libraries never send. `pnpm build` first.

const PASSWORD = 'correct horse battery staple';
/** A node-specific upload limit, so the instance document is seen to read the node's settings. */
const UPLOAD_MAX_BYTES = 4_000_000;
const OTHER_ORIGIN = 'https://elk.example';

let dataDir: string;
let node: RestartableNode;
let admin: string;
/** Each test its own client address (X-Forwarded-For), so the registration limit is its own. */
let nextAddress = 1;
const address = () => `198.51.100.${nextAddress++}`;

const post = (path: string, body: BodyInit | null, headers: Record<string, string> = {}) =>
  fetch(`${node.url}${path}`, {
    method: 'POST',
    headers: { 'x-forwarded-for': address(), ...headers },
    body,
  });

const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  post(path, JSON.stringify(body), { 'content-type': 'application/json', ...headers });

const trpc = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${node.url}/trpc/${path}`, {
    method: 'POST',
    headers: { origin: node.url, 'content-type': 'application/json', cookie: admin, ...headers },
    body: JSON.stringify(body),
  });

/** A refusal: its status and Mastodon's `error` sentence. */
async function refusalOf(response: Response) {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { error: unknown };
  expect(typeof body.error).toBe('string');
  return { status: response.status, error: body.error as string };
}

const APP = { client_name: 'Test app', redirect_uris: 'https://app.example/callback' };

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swarm-client-api-'));
  node = nodeOnPort({
    dataDir,
    port: await freePort(),
    env: {
      ADDRESS_HEADER: 'X-Forwarded-For',
      XFF_DEPTH: '1',
      UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES),
      SWARM_NODE_NAME: 'Client test node',
    },
  });
  await node.start();
  // The first account is the admin: the instance's contact.
  const first = await fetch(`${node.url}/signup`, {
    method: 'POST',
    headers: { accept: 'text/html', origin: node.url, 'x-forwarded-for': '192.0.2.1' },
    body: new URLSearchParams({ handle: 'root', displayName: 'Root', password: PASSWORD }),
    redirect: 'manual',
  });
  expect(first.status).toBe(303);
  const cookie = /swarm_session=([^;]+)/.exec(first.headers.get('set-cookie') ?? '');
  admin = `swarm_session=${cookie![1]}`;
});

afterAll(async () => {
  await node?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('nodeinfo', () => {
  it('links to 2.1, which counts the people of the node', async () => {
    const links = (await (await fetch(`${node.url}/.well-known/nodeinfo`)).json()) as {
      links: { rel: string; href: string }[];
    };
    expect(links.links).toEqual([
      {
        rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1',
        href: `${node.url}/nodeinfo/2.1`,
      },
    ]);
    const info = await (await fetch(links.links[0]!.href)).json();
    expect(info).toMatchObject({
      version: '2.1',
      software: { name: 'swarm-node', version: expect.any(String) },
      protocols: ['swarm'],
      openRegistrations: true,
      // The admin signed up (a session): active this month.
      usage: { users: { total: 1, activeMonth: 1, activeHalfyear: 1 }, localPosts: 0 },
      metadata: { nodeName: 'Client test node' },
    });
  });

  it("megalodon's detector picks its Mastodon client", async () => {
    expect(await detector(node.url)).toBe('mastodon');
  });
});

describe('the instance documents', () => {
  it('v1 through masto.js: version, limits, registrations and the contact', async () => {
    const masto = createRestAPIClient({ url: node.url });
    const instance = await masto.v1.instance.fetch();
    expect(instance.uri).toBe(node.domain);
    expect(instance.title).toBe('Client test node');
    expect(instance.version).toMatch(/^4\.2\.0 \(compatible; swarm-node \d+\.\d+\.\d+\)$/);
    expect(instance.urls.streamingApi).toBe(`ws://${node.domain}`);
    expect(instance.stats).toMatchObject({ userCount: 1, statusCount: 0 });
    expect(instance.registrations).toBe(true);
    expect(instance.approvalRequired).toBe(false);
    expect(instance.configuration.statuses).toMatchObject({
      maxCharacters: 5000,
      maxMediaAttachments: 4,
    });
    expect(instance.configuration.mediaAttachments.imageSizeLimit).toBe(UPLOAD_MAX_BYTES);
    expect(instance.contactAccount).toMatchObject({
      username: 'root',
      acct: 'root',
      displayName: 'Root',
      url: `${node.url}/@root`,
    });
    // Apps draw these as images: root has no picture of their own, so the node's neutral pair,
    // and the node's icon as its thumbnail; each is an image the node serves.
    expect(instance.contactAccount?.avatar).toBe(`${node.url}/avatars/missing.png`);
    expect(instance.contactAccount?.header).toBe(`${node.url}/headers/missing.png`);
    expect(instance.thumbnail).toBe(`${node.url}/icon-512.png`);
    for (const url of [
      instance.contactAccount!.avatar,
      instance.contactAccount!.header,
      instance.thumbnail!,
    ]) {
      const image = await fetch(url);
      expect([url, image.status, image.headers.get('content-type')]).toEqual([
        url,
        200,
        'image/png',
      ]);
    }
  });

  it('v2 through masto.js and megalodon, with the registrations the admin sets', async () => {
    const masto = createRestAPIClient({ url: node.url });
    const v2 = await masto.v2.instance.fetch();
    expect(v2.domain).toBe(node.domain);
    expect(v2.configuration.urls.streaming).toBe(`ws://${node.domain}`);
    expect(v2.configuration.mediaAttachments.supportedMimeTypes).toContain('image/png');
    expect(v2.registrations).toMatchObject({ enabled: true, approvalRequired: false });
    expect(v2.contact.account?.username).toBe('root');
    expect(v2.usage.users.activeMonth).toBe(1);
    expect(v2.thumbnail.url).toBe(`${node.url}/icon-512.png`);

    const setMode = (mode: string) => trpc('moderation.admin.setMode', { mode });
    expect((await setMode('approval')).status).toBe(200);
    try {
      expect((await masto.v2.instance.fetch()).registrations).toMatchObject({
        enabled: true,
        approvalRequired: true,
      });
      expect((await setMode('invite')).status).toBe(200);
      expect((await masto.v2.instance.fetch()).registrations.enabled).toBe(false);
      const megalodon = generator('mastodon', node.url);
      const v1 = await megalodon.getInstance();
      expect(v1.data).toMatchObject({ uri: node.domain, registrations: false });
    } finally {
      await setMode('open');
    }
  });
});

describe('app registration', () => {
  it('megalodon registers an app with a loopback redirect and gets an authorization URL', async () => {
    const client = generator('mastodon', node.url);
    const app = await client.registerApp('Whalebird test', {
      redirect_uris: 'http://127.0.0.1:8123/callback',
      scopes: ['read', 'write', 'follow'],
      website: 'https://whalebird.example',
    });
    expect(app.name).toBe('Whalebird test');
    expect(app.client_id).toMatch(/^[\w-]{40,}$/);
    expect(app.client_secret).toMatch(/^[\w-]{40,}$/);
    expect(app.redirect_uri).toBe('http://127.0.0.1:8123/callback');
    expect(app.url).toContain(`${node.url}/oauth/authorize?`);
  });

  it('masto.js registers apps with several redirect URIs; each gets its own credentials', async () => {
    const masto = createRestAPIClient({ url: node.url });
    const uris = ['com.example.app:/callback', 'urn:ietf:wg:oauth:2.0:oob'];
    const app = await masto.v1.apps.create({
      clientName: 'Elk test',
      redirectUris: uris,
      scopes: 'read write:statuses push',
      website: 'https://elk.example',
    });
    expect(app).toMatchObject({
      name: 'Elk test',
      website: 'https://elk.example',
      scopes: ['read', 'write:statuses', 'push'],
      redirectUri: uris.join('\n'),
      redirectUris: uris,
    });
    const again = await masto.v1.apps.create({
      clientName: 'Elk test',
      redirectUris: uris[1]!,
      scopes: 'read',
    });
    expect(again.clientId).not.toBe(app.clientId);
    expect(again.clientSecret).not.toBe(app.clientSecret);
  });

  it('masto.js sees a javascript: redirect refused with 422', async () => {
    const masto = createRestAPIClient({ url: node.url });
    const attempt = masto.v1.apps.create({
      clientName: 'Evil',
      redirectUris: 'javascript:alert(1)',
      scopes: 'read',
    });
    await expect(attempt).rejects.toBeInstanceOf(MastoHttpError);
    await expect(attempt).rejects.toMatchObject({ statusCode: 422 });
  });

  it('takes form bodies, query strings and Rails-style lists; scopes default to read', async () => {
    const form = await post(
      '/api/v1/apps',
      new URLSearchParams({ ...APP, redirect_uris: 'https://a.example/cb\nhttps://b.example/cb' }),
    );
    expect(form.status).toBe(200);
    expect(await form.json()).toMatchObject({
      name: 'Test app',
      scopes: ['read'],
      redirect_uris: ['https://a.example/cb', 'https://b.example/cb'],
      website: null,
    });

    const query = await post(
      `/api/v1/apps?${new URLSearchParams({ ...APP, scopes: 'read write' })}`,
      null,
    );
    expect(query.status).toBe(200);
    expect(await query.json()).toMatchObject({ scopes: ['read', 'write'] });

    const list = new URLSearchParams([
      ['client_name', 'Listed'],
      ['redirect_uris[]', 'https://a.example/cb'],
      ['redirect_uris[]', 'myapp://cb'],
    ]);
    const rails = await post('/api/v1/apps', list);
    expect(rails.status).toBe(200);
    expect(await rails.json()).toMatchObject({
      redirect_uris: ['https://a.example/cb', 'myapp://cb'],
    });
  });

  it.each([
    ['a javascript: redirect', { ...APP, redirect_uris: 'javascript:alert(1)' }, /javascript/],
    ['a data: redirect', { ...APP, redirect_uris: 'data:text/html,<b>x</b>' }, /data/],
    ['plain http off loopback', { ...APP, redirect_uris: 'http://app.example/cb' }, /loopback/],
    ['a relative redirect', { ...APP, redirect_uris: '/callback' }, /absolute/],
    ['a redirect with a fragment', { ...APP, redirect_uris: 'https://a.example/#x' }, /fragment/],
    ['no redirect', { client_name: 'x' }, /redirect_uris/],
    ['no client_name', { redirect_uris: APP.redirect_uris }, /client_name/],
    ['a blank client_name', { ...APP, client_name: '   ' }, /client_name/],
    ['an oversize client_name', { ...APP, client_name: 'x'.repeat(61) }, /client_name/],
    ['a number for client_name', { ...APP, client_name: 42 }, /client_name/],
    ['an unknown scope', { ...APP, scopes: 'read admin:write' }, /admin:write/],
    ['a website that is not a URL', { ...APP, website: 'javascript:alert(1)' }, /website/],
    ['eleven redirect URIs', { ...APP, redirect_uris: Array(11).fill(APP.redirect_uris) }, /10/],
  ])('refuses %s with 422', async (_, body, message) => {
    const refused = await refusalOf(await postJson('/api/v1/apps', body));
    expect(refused.status).toBe(422);
    expect(refused.error).toMatch(/^Validation failed: /);
    expect(refused.error).toMatch(message);
  });

  it('refuses a body that is not a JSON object with 400', async () => {
    for (const body of ['{"client_name":', '[1,2]', '"x"']) {
      const refused = await refusalOf(
        await post('/api/v1/apps', body, { 'content-type': 'application/json' }),
      );
      expect(refused.status).toBe(400);
    }
  });

  it('counts registrations per address: 429 with Retry-After, other addresses unaffected', async () => {
    const from = address();
    let last: Response | undefined;
    for (let i = 0; i <= 30; i++) {
      last = await postJson('/api/v1/apps', APP, { 'x-forwarded-for': from });
      if (last.status !== 200) break;
    }
    const refused = await refusalOf(last!);
    expect(refused.status).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await postJson('/api/v1/apps', APP)).status).toBe(200);
  });
});

describe('the edge: CORS, no cookies, JSON everywhere', () => {
  it('answers a CORS preflight from another origin; a cookie-authenticated tRPC call from there is still refused', async () => {
    const preflight = await fetch(`${node.url}/api/v1/apps`, {
      method: 'OPTIONS',
      headers: {
        origin: OTHER_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();

    const fromElsewhere = await postJson('/api/v1/apps', APP, {
      origin: OTHER_ORIGIN,
      cookie: admin,
    });
    expect(fromElsewhere.status).toBe(200);
    expect(fromElsewhere.headers.get('access-control-allow-origin')).toBe('*');
    expect(fromElsewhere.headers.get('set-cookie')).toBeNull();

    const trpcFromElsewhere = await trpc(
      'moderation.admin.setMode',
      { mode: 'invite' },
      { origin: OTHER_ORIGIN },
    );
    expect(trpcFromElsewhere.status).toBe(403);
    const trpcPreflight = await fetch(`${node.url}/trpc/moderation.admin.setMode`, {
      method: 'OPTIONS',
      headers: { origin: OTHER_ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(trpcPreflight.headers.get('access-control-allow-origin')).toBeNull();
    const info = (await (await fetch(`${node.url}/nodeinfo/2.1`)).json()) as {
      openRegistrations: boolean;
    };
    expect(info.openRegistrations).toBe(true);
  });

  it.each([
    ['GET', '/api/v1/no-such-endpoint'],
    ['GET', '/api/v2/no-such-endpoint'],
    ['POST', '/api/v1/statuses/1/pin'],
    ['GET', '/api/v1/apps'],
    // `/oauth/authorize` is the web app's consent page (oauth.process.test.ts).
    ['GET', '/oauth/no-such-endpoint'],
    ['GET', '/oauth/token'],
  ])('%s %s is a JSON 404', async (method, path) => {
    const response = await fetch(`${node.url}${path}`, { method });
    const refused = await refusalOf(response);
    expect(refused.status).toBe(404);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('logs client-API requests under one route label, whatever the path', async () => {
    const path = `/api/v1/accounts/${crypto.randomUUID()}`;
    expect((await fetch(`${node.url}${path}`)).status).toBe(404);
    await expect
      .poll(() =>
        node
          .output()
          .split('\n')
          .find((line) => line.includes(path)),
      )
      .toMatch(/"route":"client-api"/);
  });
});
