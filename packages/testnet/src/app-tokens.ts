import { randomBytes } from 'node:crypto';
import type { RestartableNode } from './node-process.ts';

// People and app tokens on a running node through the front door, for tests and benches that need a
// signed-in app rather than the OAuth flow itself (that is oauth.process.test.ts): sign-up by
// the page's form, an app registered by `POST /api/v1/apps`, the consent form posted with the
// person's session, the code exchanged at `/oauth/token`. Nodes run with
// `ADDRESS_HEADER=X-Forwarded-For` so each sign-up and registration has its own address.

export const APP_TEST_PASSWORD = 'correct horse battery staple';
const REDIRECT = 'com.example.statuses:/callback';
let nextAddress = 1;
export const appTestAddress = () => `203.0.113.${nextAddress++ % 250}`;

/** Signs `handle` up on `node`; their session cookie. */
export async function signUp(node: RestartableNode, handle: string): Promise<string> {
  const response = await fetch(`${node.url}/signup`, {
    method: 'POST',
    headers: { accept: 'text/html', origin: node.url, 'x-forwarded-for': appTestAddress() },
    body: new URLSearchParams({ handle, displayName: `${handle} D.`, password: APP_TEST_PASSWORD }),
    redirect: 'manual',
  });
  if (response.status !== 303) throw new Error(`sign-up of ${handle}: ${response.status}`);
  return /swarm_session=[^;]+/.exec(response.headers.get('set-cookie') ?? '')![0];
}

/** A token of the person of `cookie` for a new app with `scopes`. */
export async function tokenFor(
  node: RestartableNode,
  cookie: string,
  scopes = 'read write',
): Promise<string> {
  const registered = await fetch(`${node.url}/api/v1/apps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': appTestAddress() },
    body: JSON.stringify({ client_name: 'Statuses test', redirect_uris: REDIRECT, scopes }),
  });
  const app = (await registered.json()) as { client_id: string; client_secret: string };
  const state = randomBytes(8).toString('hex');
  const authorize = new URL('/oauth/authorize', node.url);
  for (const [key, value] of Object.entries({
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: REDIRECT,
    scope: scopes,
    state,
  })) {
    authorize.searchParams.set(key, value);
  }
  const consent = await fetch(authorize, {
    method: 'POST',
    headers: {
      accept: 'text/html',
      origin: node.url,
      cookie,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ decision: 'allow' }),
  });
  const html = await consent.text();
  const refresh = /<meta http-equiv="refresh" content="0;url=([^"]+)"/.exec(html);
  if (!refresh) throw new Error(`consent answered ${consent.status}: ${html.slice(0, 300)}`);
  const code = new URL(refresh[1]!.replaceAll('&amp;', '&')).searchParams.get('code')!;
  const token = await fetch(`${node.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'authorization_code',
      client_id: app.client_id,
      client_secret: app.client_secret,
      redirect_uri: REDIRECT,
      code,
    }),
  });
  const body = (await token.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`token: ${token.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** A tRPC mutation or query over HTTP with the person's session (the pages' own API). */
export async function trpc(
  node: RestartableNode,
  cookie: string,
  procedure: string,
  input: unknown,
  kind: 'mutation' | 'query' = 'mutation',
): Promise<unknown> {
  const response =
    kind === 'mutation'
      ? await fetch(`${node.url}/trpc/${procedure}`, {
          method: 'POST',
          headers: { cookie, origin: node.url, 'content-type': 'application/json' },
          body: JSON.stringify(input),
        })
      : await fetch(
          `${node.url}/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`,
          { headers: { cookie } },
        );
  const body = (await response.json()) as { result?: { data: unknown }; error?: unknown };
  if (!response.ok) throw new Error(`${procedure}: ${response.status} ${JSON.stringify(body)}`);
  return body.result?.data;
}

/** Uploads an image as the page does (`POST /api/uploads`); its upload id. */
export async function uploadImage(
  node: RestartableNode,
  cookie: string,
  bytes: Uint8Array<ArrayBuffer>,
): Promise<string> {
  const response = await fetch(`${node.url}/api/uploads?purpose=post`, {
    method: 'POST',
    headers: { cookie, origin: node.url, 'content-type': 'image/png' },
    body: bytes,
  });
  const body = (await response.json()) as { id?: string };
  if (!body.id) throw new Error(`upload: ${response.status} ${JSON.stringify(body)}`);
  return body.id;
}
