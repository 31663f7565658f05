import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, nodeOnPort, type RestartableNode } from '@swarm/testnet';
import { createOAuthAPIClient, createRestAPIClient, type mastodon } from 'masto';
import generator from 'megalodon';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// OAuth 2 through the front door (docs/clients.md): a node started as the README says, a person
// who logs in and allows an app in Chromium, the app's loopback redirect served by this test, and
// the code exchanged by masto.js and megalodon as apps do. Code expiry is tested on the service
// (packages/auth/test/client-oauth.int.test.ts): a node process runs on the real clock.
// `pnpm build` first.

const PASSWORD = 'correct horse battery staple';
const VERIFIER = randomBytes(48).toString('base64url');
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

let dataDir: string;
let node: RestartableNode;
let browser: Browser;
let page: Page;
let callbackServer: Server;
let redirectUri: string;
/** The query of each request the loopback redirect received, in order. */
const callbacks: URLSearchParams[] = [];
/** Alice's session cookie, for the consent form posted without a browser. */
let aliceCookie: string;
let nextAddress = 1;
const address = () => `198.51.100.${nextAddress++}`;

interface RegisteredApp {
  clientId: string;
  clientSecret: string;
}

async function registerApp(scopes = 'read write', redirect = redirectUri): Promise<RegisteredApp> {
  const response = await fetch(`${node.url}/api/v1/apps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address() },
    body: JSON.stringify({ client_name: 'OAuth test app', redirect_uris: redirect, scopes }),
  });
  expect(response.status).toBe(200);
  const app = (await response.json()) as { client_id: string; client_secret: string };
  return { clientId: app.client_id, clientSecret: app.client_secret };
}

function authorizeUrl(app: RegisteredApp, extra: Record<string, string> = {}) {
  const url = new URL('/oauth/authorize', node.url);
  const params = {
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: redirectUri,
    scope: 'read write',
    state: 'state-123',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    ...extra,
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.href;
}

/** Opens the consent page, logs in when asked, clicks `button`; the app's callback query. */
async function consentInBrowser(url: string, button: 'Allow' | 'Deny' = 'Allow') {
  const before = callbacks.length;
  await page.goto(url);
  if (new URL(page.url()).pathname === '/login') {
    await page.locator('input[name="handle"]').fill('alice');
    await page.locator('input[name="password"]').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((u) => u.pathname === '/oauth/authorize');
  }
  await expect.poll(() => page.getByText('OAuth test app').first().isVisible()).toBe(true);
  await expect.poll(() => page.getByText('@alice@').first().isVisible()).toBe(true);
  await page.getByRole('button', { name: button }).click();
  // The consent page hands over by a refresh (its form-action policy is this origin only).
  await page.waitForURL((u) => u.href.startsWith(redirectUri), { timeout: 15_000 });
  expect(callbacks.length).toBe(before + 1);
  return callbacks[before]!;
}

async function codeFor(app: RegisteredApp, extra: Record<string, string> = {}) {
  const answer = await consentInBrowser(authorizeUrl(app, extra));
  expect(answer.get('state')).toBe('state-123');
  return answer.get('code')!;
}

const token = (body: BodyInit, headers: Record<string, string>) =>
  fetch(`${node.url}/oauth/token`, { method: 'POST', headers, body });
const tokenJson = (body: Record<string, string>) =>
  token(JSON.stringify(body), { 'content-type': 'application/json' });
const tokenForm = (body: Record<string, string>) =>
  token(new URLSearchParams(body), { 'content-type': 'application/x-www-form-urlencoded' });

const bearer = (path: string, accessToken: string) =>
  fetch(`${node.url}${path}`, { headers: { authorization: `Bearer ${accessToken}` } });

async function errorOf(response: Response): Promise<Record<string, unknown>> {
  return { status: response.status, ...((await response.json()) as Record<string, unknown>) };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swarm-oauth-'));
  node = nodeOnPort({
    dataDir,
    port: await freePort(),
    env: { ADDRESS_HEADER: 'X-Forwarded-For', XFF_DEPTH: '1' },
  });
  const callbackPort = await freePort();
  redirectUri = `http://127.0.0.1:${callbackPort}/callback`;
  callbackServer = createServer((req, res) => {
    const url = new URL(req.url ?? '/', redirectUri);
    // Chromium asks for a favicon too.
    if (url.pathname === '/callback') callbacks.push(url.searchParams);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('back in the app');
  });
  await new Promise<void>((resolve) => callbackServer.listen(callbackPort, '127.0.0.1', resolve));
  await node.start();
  const signup = await fetch(`${node.url}/signup`, {
    method: 'POST',
    headers: { accept: 'text/html', origin: node.url, 'x-forwarded-for': '192.0.2.1' },
    body: new URLSearchParams({ handle: 'alice', displayName: 'Alice A.', password: PASSWORD }),
    redirect: 'manual',
  });
  expect(signup.status).toBe(303);
  aliceCookie = /swarm_session=[^;]+/.exec(signup.headers.get('set-cookie') ?? '')![0];
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  page = await (await browser.newContext()).newPage();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => callbackServer?.close(resolve));
  await node?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('authorization code through Chromium', () => {
  it('logs in, allows, and masto.js exchanges the code with PKCE; both libraries verify', async () => {
    const app = await registerApp();
    const code = await codeFor(app);
    const oauth = createOAuthAPIClient({ url: node.url });
    // masto.js sends every parameter it is given (snake-cased); its types predate PKCE.
    const params = {
      grantType: 'authorization_code',
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri,
      code,
      codeVerifier: VERIFIER,
    } as mastodon.oauth.CreateTokenWithAuthorizationCodeParams;
    const issued = await oauth.token.create(params);
    expect(issued).toMatchObject({ tokenType: 'Bearer', scope: 'read write' });

    const masto = createRestAPIClient({ url: node.url, accessToken: issued.accessToken });
    const me = await masto.v1.accounts.verifyCredentials();
    expect(me).toMatchObject({
      username: 'alice',
      acct: 'alice',
      displayName: 'Alice A.',
      bot: false,
      locked: false,
      fields: [],
      followersCount: 0,
      source: { note: '' },
    });
    expect(me.url).toBe(`${node.url}/@alice`);
    const client = generator('mastodon', node.url, issued.accessToken);
    const verified = await client.verifyAccountCredentials();
    expect(verified.data).toMatchObject({ id: me.id, username: 'alice' });
    const ownApp = await masto.v1.apps.verifyCredentials();
    expect(ownApp.name).toBe('OAuth test app');

    // The person sees the app in Settings.
    await page.goto(`${node.url}/settings/apps`);
    await expect
      .poll(() => page.getByTestId('authorized-apps').innerText())
      .toContain('OAuth test app');
    // Revoked there, the app's token stops working at once.
    await page.getByRole('button', { name: 'Revoke' }).first().click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Revoked');
    const after = await bearer('/api/v1/accounts/verify_credentials', issued.accessToken);
    expect(after.status).toBe(401);
  });

  it('megalodon: a confidential app without PKCE, its JSON token request and revocation', async () => {
    const client = generator('mastodon', node.url);
    const registered = await client.registerApp('OAuth test app', {
      scopes: ['read'],
      redirect_uris: redirectUri,
    });
    const app = { clientId: registered.client_id, clientSecret: registered.client_secret };
    const code = await codeFor(app, {
      scope: 'read',
      code_challenge: '',
      code_challenge_method: '',
    });
    const data = await client.fetchAccessToken(app.clientId, app.clientSecret, code, redirectUri);
    expect(data.scope).toBe('read');
    const user = generator('mastodon', node.url, data.access_token);
    expect((await user.verifyAccountCredentials()).data.username).toBe('alice');

    await client.revokeToken(app.clientId, app.clientSecret, data.access_token);
    const after = await bearer('/api/v1/accounts/verify_credentials', data.access_token);
    expect(await errorOf(after)).toMatchObject({
      status: 401,
      error: 'The access token is invalid',
    });
    expect(after.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('a form-urlencoded token request; a reused code and a wrong verifier are invalid_grant', async () => {
    const app = await registerApp();
    const code = await codeFor(app);
    const base = {
      grant_type: 'authorization_code',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      redirect_uri: redirectUri,
      code,
    };
    const issued = await tokenForm({ ...base, code_verifier: VERIFIER });
    expect(issued.status).toBe(200);
    expect(await issued.json()).toMatchObject({ token_type: 'Bearer', scope: 'read write' });
    expect(await errorOf(await tokenForm({ ...base, code_verifier: VERIFIER }))).toMatchObject({
      status: 400,
      error: 'invalid_grant',
    });

    const other = await codeFor(app);
    const wrong = await tokenJson({ ...base, code: other, code_verifier: 'x'.repeat(43) });
    expect(await errorOf(wrong)).toMatchObject({ status: 400, error: 'invalid_grant' });
  });

  it('deny sends access_denied to the app', async () => {
    const app = await registerApp();
    const answer = await consentInBrowser(authorizeUrl(app), 'Deny');
    expect(answer.get('error')).toBe('access_denied');
    expect(answer.get('code')).toBeNull();
  });

  it('shows the code for the out-of-band redirect', async () => {
    const app = await registerApp('read', 'urn:ietf:wg:oauth:2.0:oob');
    const url = new URL(authorizeUrl(app, { scope: 'read' }));
    url.searchParams.set('redirect_uri', 'urn:ietf:wg:oauth:2.0:oob');
    await page.goto(url.href);
    await page.getByRole('button', { name: 'Allow' }).click();
    const code = await page.getByTestId('oauth-code').innerText();
    const issued = await tokenJson({
      grant_type: 'authorization_code',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
      code,
      code_verifier: VERIFIER,
    });
    expect(issued.status).toBe(200);
  });

  it('refuses on the page what cannot be authorized: unregistered redirect, plain, foreign scope', async () => {
    const app = await registerApp('read');
    const cases: Record<string, string>[] = [
      { redirect_uri: 'http://127.0.0.1:9/elsewhere' },
      { code_challenge_method: 'plain', code_challenge: VERIFIER },
      { scope: 'write' },
    ];
    for (const extra of cases) {
      const response = await page.goto(authorizeUrl(app, { scope: 'read', ...extra }));
      expect(response?.status()).toBe(200);
      await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/cannot be used/);
      expect(await page.getByRole('button', { name: 'Allow' }).count()).toBe(0);
    }
  });
});

describe('the consent form without a browser', () => {
  const allow = (url: string, origin: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        accept: 'text/html',
        origin,
        cookie: aliceCookie,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ decision: 'allow' }),
    });

  it("hands a custom scheme's code over by a refresh to the app's own address", async () => {
    const scheme = 'com.example.app:/callback';
    const app = await registerApp('read', scheme);
    const url = new URL(authorizeUrl(app, { scope: 'read' }));
    url.searchParams.set('redirect_uri', scheme);
    const response = await allow(url.href, node.url);
    expect(response.status).toBe(200);
    const html = await response.text();
    const refresh = /<meta http-equiv="refresh" content="0;url=([^"]+)"/.exec(html);
    const target = new URL(refresh![1]!.replaceAll('&amp;', '&'));
    expect(`${target.protocol}${target.pathname}`).toBe(scheme);
    expect(target.searchParams.get('state')).toBe('state-123');
    const issued = await tokenForm({
      grant_type: 'authorization_code',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      redirect_uri: scheme,
      code: target.searchParams.get('code')!,
      code_verifier: VERIFIER,
    });
    expect(issued.status).toBe(200);
  });

  it('refuses a consent posted from another origin (the CSRF check)', async () => {
    const app = await registerApp('read');
    const response = await allow(authorizeUrl(app, { scope: 'read' }), 'https://evil.example');
    expect(response.status).toBe(403);
    expect(await response.text()).not.toContain('http-equiv="refresh"');
  });
});

describe('tokens without a browser', () => {
  it('client credentials: an app-only read token; a user endpoint refuses it', async () => {
    const app = await registerApp();
    const response = await tokenForm({
      grant_type: 'client_credentials',
      client_id: app.clientId,
      client_secret: app.clientSecret,
    });
    const issued = (await response.json()) as { access_token: string; scope: string };
    expect(issued.scope).toBe('read');
    expect((await bearer('/api/v1/apps/verify_credentials', issued.access_token)).status).toBe(200);
    const me = await bearer('/api/v1/accounts/verify_credentials', issued.access_token);
    expect(me.status).toBe(422);
  });

  it('a token whose scopes do not cover the endpoint is 403', async () => {
    const app = await registerApp('write');
    const response = await tokenJson({
      grant_type: 'client_credentials',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      scope: 'write',
    });
    const { access_token } = (await response.json()) as { access_token: string };
    expect(
      await errorOf(await bearer('/api/v1/accounts/verify_credentials', access_token)),
    ).toEqual(
      expect.objectContaining({
        status: 403,
        error: 'This action is outside the authorized scopes',
      }),
    );
  });

  it('answers RFC 6749 errors: client, grant type, missing fields, scope not registered', async () => {
    const app = await registerApp('read');
    const client = { client_id: app.clientId, client_secret: app.clientSecret };
    const cases: [Record<string, string>, number, string][] = [
      [
        { grant_type: 'client_credentials', client_id: app.clientId, client_secret: 'x' },
        401,
        'invalid_client',
      ],
      [{ grant_type: 'password', ...client }, 400, 'unsupported_grant_type'],
      [{ grant_type: 'authorization_code', ...client }, 400, 'invalid_request'],
      [{ ...client }, 400, 'invalid_request'],
      [{ grant_type: 'client_credentials', ...client, scope: 'write' }, 400, 'invalid_scope'],
      [
        { grant_type: 'authorization_code', ...client, code: 'nope', redirect_uri: redirectUri },
        400,
        'invalid_grant',
      ],
    ];
    for (const [body, status, error] of cases) {
      const answer = await errorOf(await tokenJson(body));
      expect(answer, JSON.stringify(body)).toMatchObject({ status, error });
      expect(typeof answer.error_description).toBe('string');
    }
    const notJson = await token('{', { 'content-type': 'application/json' });
    expect(await errorOf(notJson)).toMatchObject({ status: 400, error: 'invalid_request' });
  });

  it('a missing token is 401, and a cookie never opens the client API', async () => {
    const missing = await fetch(`${node.url}/api/v1/accounts/verify_credentials`);
    expect(await errorOf(missing)).toMatchObject({
      status: 401,
      error: 'The access token is invalid',
    });
    const cookieOnly = await fetch(`${node.url}/api/v1/apps/verify_credentials`, {
      headers: { cookie: 'swarm_session=anything' },
    });
    expect(cookieOnly.status).toBe(401);
  });

  it('publishes the authorization server metadata', async () => {
    const meta = (await (
      await fetch(`${node.url}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      issuer: node.url,
      authorization_endpoint: `${node.url}/oauth/authorize`,
      token_endpoint: `${node.url}/oauth/token`,
      revocation_endpoint: `${node.url}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'client_credentials'],
      code_challenge_methods_supported: ['S256'],
    });
    expect(meta.scopes_supported).toEqual(
      expect.arrayContaining(['read', 'write', 'read:accounts']),
    );
  });
});
