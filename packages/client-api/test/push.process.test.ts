import { createECDH, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decrypt } from 'http_ece';
import { createRestAPIClient, MastoHttpError } from 'masto';
import { freePort, nodeOnPort, type RestartableNode } from '@swarm/testnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Web Push through the front door (docs/clients.md "Web Push"): a node started as the README
// says, masto.js subscribing with an endpoint this test serves on loopback (allowed because the
// node runs with SWARM_DEV=1), another person liking, reposting and following through the web
// app's tRPC, and the pushes received here, their VAPID signature checked and their aes128gcm
// payload decrypted with the browser-side keys the test made (http_ece). `pnpm build` first.

const PASSWORD = 'correct horse battery staple';

type Push = ReturnType<typeof createRestAPIClient>['v1']['push']['subscription'];
/** masto.js's types know `policy` on create only; Mastodon reads `data[policy]` on both. */
type CreateParams = Parameters<Push['create']>[0];
type UpdateParams = Parameters<Push['update']>[0];

let dataDir: string;
let node: RestartableNode;
let pushServer: Server;
let pushBase: string;
let aliceCookie: string;
let bobCookie: string;
let nextAddress = 1;
const address = () => `198.51.100.${nextAddress++}`;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}
const received: Received[] = [];
/** Status the push endpoint answers per path (default 201). */
const answers = new Map<string, number>();

/** A browser's side of a subscription: its ECDH key pair and auth secret. */
interface BrowserKeys {
  ecdh: ECDH;
  auth: Buffer;
  p256dh: string;
  authB64: string;
}
function browserKeys(): BrowserKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    ecdh,
    auth,
    p256dh: ecdh.getPublicKey().toString('base64url'),
    authB64: auth.toString('base64url'),
  };
}

interface Payload {
  access_token: string;
  preferred_locale: string;
  notification_id: string;
  notification_type: string;
  icon: string;
  title: string;
  body: string;
  url: string;
}

async function signUp(handle: string, displayName: string) {
  const response = await fetch(`${node.url}/signup`, {
    method: 'POST',
    headers: { accept: 'text/html', origin: node.url, 'x-forwarded-for': address() },
    body: new URLSearchParams({ handle, displayName, password: PASSWORD }),
    redirect: 'manual',
  });
  expect(response.status).toBe(303);
  return /swarm_session=[^;]+/.exec(response.headers.get('set-cookie') ?? '')![0];
}

async function trpc<T>(cookie: string, path: string, input: unknown): Promise<T> {
  const response = await fetch(`${node.url}/trpc/${path}`, {
    method: 'POST',
    headers: { origin: node.url, 'content-type': 'application/json', cookie },
    body: JSON.stringify(input),
  });
  const body = (await response.json()) as { result?: { data: T } };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.result!.data;
}

async function trpcQuery<T>(cookie: string, path: string, input?: unknown): Promise<T> {
  const query = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
  const response = await fetch(`${node.url}/trpc/${path}${query}`, { headers: { cookie } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { data: T } }).result.data;
}

/** A token of alice's for a new app with `scope`, through the consent form (out of band). */
async function tokenFor(scope: string): Promise<string> {
  const registered = await fetch(`${node.url}/api/v1/apps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address() },
    body: JSON.stringify({
      client_name: 'Push test app',
      redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
      scopes: scope,
    }),
  });
  expect(registered.status).toBe(200);
  const app = (await registered.json()) as {
    client_id: string;
    client_secret: string;
    vapid_key: string;
  };
  const authorize = new URL('/oauth/authorize', node.url);
  for (const [key, value] of Object.entries({
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
    scope,
  })) {
    authorize.searchParams.set(key, value);
  }
  const consent = await fetch(authorize, {
    method: 'POST',
    headers: { origin: node.url, cookie: aliceCookie, accept: 'text/html' },
    body: new URLSearchParams({ decision: 'allow' }),
  });
  const html = await consent.text();
  const code = /data-testid="oauth-code">([^<]+)</.exec(html)?.[1];
  expect(code, html.slice(0, 500)).toBeTruthy();
  const token = await fetch(`${node.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'authorization_code',
      client_id: app.client_id,
      client_secret: app.client_secret,
      redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
      code,
    }),
  });
  expect(token.status).toBe(200);
  return ((await token.json()) as { access_token: string }).access_token;
}

/** The next push to `path` after `from` pushes were received there, within `ms`. */
async function nextPush(path: string, from: number, ms = 10_000): Promise<Received> {
  const deadline = Date.now() + ms;
  for (;;) {
    const here = received.filter((r) => r.path === path);
    if (here.length > from) return here[from]!;
    if (Date.now() > deadline) throw new Error(`no push to ${path} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const countAt = (path: string) => received.filter((r) => r.path === path).length;

/** Checks the VAPID signature (RFC 8292) and decrypts the payload (RFC 8291). */
function open(push: Received, keys: BrowserKeys, serverKey: string): Payload {
  expect(push.headers['content-encoding']).toBe('aes128gcm');
  expect(Number(push.headers.ttl)).toBeGreaterThan(0);
  const vapid = /^vapid t=([^,]+),\s*k=(.+)$/.exec(String(push.headers.authorization));
  expect(vapid, String(push.headers.authorization)).not.toBeNull();
  const [jwt, key] = [vapid![1]!, vapid![2]!];
  expect(key).toBe(serverKey);
  const [header, claims, signature] = jwt.split('.') as [string, string, string];
  const point = Buffer.from(key, 'base64url');
  const publicKey = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
    },
    format: 'jwk',
  });
  expect(
    verify(
      'sha256',
      Buffer.from(`${header}.${claims}`),
      { key: publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    ),
  ).toBe(true);
  const claimSet = JSON.parse(Buffer.from(claims, 'base64url').toString()) as {
    aud: string;
    exp: number;
    sub: string;
  };
  expect(claimSet.aud).toBe(pushBase);
  expect(claimSet.exp * 1000).toBeGreaterThan(Date.now());
  const clear = decrypt(push.body, {
    version: 'aes128gcm',
    privateKey: keys.ecdh,
    authSecret: keys.auth,
  });
  return JSON.parse(clear.toString('utf8')) as Payload;
}

let alicePost: string;
let aliceSecondPost: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swarm-push-'));
  node = nodeOnPort({
    dataDir,
    port: await freePort(),
    env: { ADDRESS_HEADER: 'X-Forwarded-For', XFF_DEPTH: '1' },
  });
  const pushPort = await freePort();
  pushBase = `http://127.0.0.1:${pushPort}`;
  pushServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(answers.get(path) ?? 201).end();
    });
  });
  await new Promise<void>((resolve) => pushServer.listen(pushPort, '127.0.0.1', resolve));
  await node.start();
  aliceCookie = await signUp('alice', 'Alice A.');
  bobCookie = await signUp('bob', 'Bob B.');
  const created = await trpc<{ post: { id: string } }>(aliceCookie, 'posts.create', {
    content: 'Pushed to the phone of whoever wrote it',
  });
  alicePost = created.post.id;
  aliceSecondPost = (
    await trpc<{ post: { id: string } }>(aliceCookie, 'posts.create', { content: 'Another one' })
  ).post.id;
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => pushServer?.close(resolve));
  await node?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('Web Push with masto.js', () => {
  it('the VAPID key is in the instance document and the Application entity', async () => {
    const masto = createRestAPIClient({ url: node.url });
    const instance = await masto.v2.instance.fetch();
    const key = (instance.configuration as unknown as { vapid: { publicKey: string } }).vapid
      .publicKey;
    expect(Buffer.from(key, 'base64url')).toHaveLength(65);
    const app = await masto.v1.apps.create({
      clientName: 'Push key app',
      redirectUris: 'urn:ietf:wg:oauth:2.0:oob',
      scopes: 'read push',
    });
    expect(app.vapidKey).toBe(key);
  });

  it('subscribes, receives a like and a follow encrypted for its keys, and manages the subscription', async () => {
    const accessToken = await tokenFor('read push');
    const masto = createRestAPIClient({ url: node.url, accessToken });
    const keys = browserKeys();
    const endpoint = `${pushBase}/push/alice-1`;
    const made = await masto.v1.push.subscription.create({
      subscription: { endpoint, keys: { p256dh: keys.p256dh, auth: keys.authB64 } },
      data: { alerts: { favourite: true, follow: true, reblog: true, mention: true } },
      policy: 'all',
    } as CreateParams);
    const instance = await createRestAPIClient({ url: node.url }).v2.instance.fetch();
    const serverKey = (instance.configuration as unknown as { vapid: { publicKey: string } }).vapid
      .publicKey;
    expect(made).toMatchObject({ endpoint, policy: 'all', serverKey });
    expect(made.alerts).toMatchObject({
      favourite: true,
      follow: true,
      reblog: true,
      mention: true,
      poll: false,
      status: false,
      update: false,
    });
    expect(await masto.v1.push.subscription.fetch()).toMatchObject({ id: made.id, endpoint });

    // Bob likes alice's post: the push arrives, signed with the node's VAPID key, for our keys.
    const path = '/push/alice-1';
    let seen = countAt(path);
    await trpc(bobCookie, 'interactions.like', { postId: alicePost });
    const liked = open(await nextPush(path, seen), keys, serverKey);
    expect(liked).toEqual({
      access_token: '',
      preferred_locale: 'en',
      // The notification's client-API id (docs/clients.md "Ids"): a decimal time-sorted number.
      notification_id: expect.stringMatching(/^[1-9][0-9]{14,18}$/) as string,
      notification_type: 'favourite',
      icon: `${node.url}/icon-192.png`,
      title: 'Bob B. favourited your post',
      body: 'Pushed to the phone of whoever wrote it',
      url: `${node.url}/posts/${alicePost}`,
    });

    // Bob follows her.
    seen = countAt(path);
    await trpc(bobCookie, 'interactions.follow', { address: 'alice' });
    const followed = open(await nextPush(path, seen), keys, serverKey);
    expect(BigInt(followed.notification_id)).toBeGreaterThan(BigInt(liked.notification_id));
    expect(followed).toMatchObject({
      notification_type: 'follow',
      title: 'Bob B. followed you',
      url: `${node.url}/@bob`,
    });

    // Likes off: bob's like of the second post is not pushed; his repost of it is.
    const updated = await masto.v1.push.subscription.update({
      data: { alerts: { favourite: false } },
    });
    expect(updated.alerts).toMatchObject({ favourite: false, reblog: true, follow: true });
    seen = countAt(path);
    await trpc(bobCookie, 'interactions.like', { postId: aliceSecondPost });
    await trpc(bobCookie, 'interactions.repost', { postId: aliceSecondPost });
    const reposted = open(await nextPush(path, seen), keys, serverKey);
    expect(reposted).toMatchObject({ notification_type: 'reblog', body: 'Another one' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(countAt(path)).toBe(seen + 1);

    // Policy "followed": alice follows nobody, so bob's undo and redo of the like is not pushed
    // even with likes on again; "all" again and the next one is.
    await masto.v1.push.subscription.update({
      data: { alerts: { favourite: true }, policy: 'followed' },
    } as UpdateParams);
    expect((await masto.v1.push.subscription.fetch()).policy).toBe('followed');
    seen = countAt(path);
    await trpc(bobCookie, 'interactions.unlike', { postId: alicePost });
    await trpc(bobCookie, 'interactions.like', { postId: alicePost });
    // The policy is read when the push is sent: the worker (every 500 ms) gets to it first.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(countAt(path)).toBe(seen);
    await masto.v1.push.subscription.update({
      data: { policy: 'all' },
    } as UpdateParams);
    await trpc(bobCookie, 'interactions.unlike', { postId: aliceSecondPost });
    await trpc(bobCookie, 'interactions.like', { postId: aliceSecondPost });
    const again = open(await nextPush(path, seen), keys, serverKey);
    expect(again).toMatchObject({ notification_type: 'favourite', body: 'Another one' });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(countAt(path)).toBe(seen + 1);

    // Deleted: the next read is a 404, deleting again still answers {}.
    await masto.v1.push.subscription.remove();
    await expect(masto.v1.push.subscription.fetch()).rejects.toMatchObject({ statusCode: 404 });
    const again2 = await fetch(`${node.url}/api/v1/push/subscription`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(again2.status).toBe(200);
    expect(await again2.json()).toEqual({});
  }, 60_000);

  it('takes Rails form parameters, replaces on a new POST, and a 410 endpoint loses it', async () => {
    const accessToken = await tokenFor('push');
    const keys = browserKeys();
    const form = new URLSearchParams({
      'subscription[endpoint]': `${pushBase}/push/first`,
      'subscription[keys][p256dh]': keys.p256dh,
      'subscription[keys][auth]': keys.authB64,
      'data[alerts][follow]': 'true',
      'data[alerts][admin][sign_up]': 'true',
      'data[policy]': 'follower',
    });
    const made = await fetch(`${node.url}/api/v1/push/subscription`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}` },
      body: form,
    });
    expect(made.status).toBe(200);
    const first = (await made.json()) as {
      id: string;
      alerts: Record<string, boolean>;
      policy: string;
    };
    expect(first.policy).toBe('follower');
    expect(first.alerts).toMatchObject({ follow: true, 'admin.sign_up': true, favourite: false });

    // The query-string form of a change.
    const changed = await fetch(
      `${node.url}/api/v1/push/subscription?data[alerts][favourite]=1&data[policy]=all`,
      { method: 'PUT', headers: { authorization: `Bearer ${accessToken}` } },
    );
    expect(await changed.json()).toMatchObject({ policy: 'all', alerts: { favourite: true } });

    // A second POST with the same token replaces the first.
    answers.set('/push/gone', 410);
    const replaced = await fetch(`${node.url}/api/v1/push/subscription`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        subscription: {
          endpoint: `${pushBase}/push/gone`,
          keys: { p256dh: keys.p256dh, auth: keys.authB64 },
        },
        data: { alerts: { favourite: true } },
      }),
    });
    const second = (await replaced.json()) as { id: string; endpoint: string };
    expect(second.id).not.toBe(first.id);
    const read = await fetch(`${node.url}/api/v1/push/subscription`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(await read.json()).toMatchObject({ id: second.id, endpoint: `${pushBase}/push/gone` });

    // The push service says it is gone: the node deletes the subscription.
    const seen = countAt('/push/gone');
    await trpc(bobCookie, 'interactions.unlike', { postId: alicePost });
    await trpc(bobCookie, 'interactions.like', { postId: alicePost });
    await nextPush('/push/gone', seen);
    await expect
      .poll(
        async () =>
          (
            await fetch(`${node.url}/api/v1/push/subscription`, {
              headers: { authorization: `Bearer ${accessToken}` },
            })
          ).status,
        { timeout: 5_000 },
      )
      .toBe(404);
  }, 60_000);

  it('a subscription ends with its token', async () => {
    const [kept, revoked] = [await tokenFor('push'), await tokenFor('push')];
    const keys = browserKeys();
    for (const [token, path] of [
      [kept, '/push/kept'],
      [revoked, '/push/revoked'],
    ] as const) {
      const masto = createRestAPIClient({ url: node.url, accessToken: token });
      await masto.v1.push.subscription.create({
        subscription: {
          endpoint: `${pushBase}${path}`,
          keys: { p256dh: keys.p256dh, auth: keys.authB64 },
        },
        data: { alerts: { favourite: true } },
        policy: 'all',
      } as CreateParams);
    }
    // Revoked from Settings → Authorized apps (all of the app's tokens): the session's tRPC.
    const apps = await trpcQuery<{ appId: string }[]>(aliceCookie, 'settings.authorizedApps');
    const self = await fetch(`${node.url}/api/v1/apps/verify_credentials`, {
      headers: { authorization: `Bearer ${revoked}` },
    });
    const revokedApp = ((await self.json()) as { id: string }).id;
    expect(apps.map((a) => a.appId)).toContain(revokedApp);
    await trpc(aliceCookie, 'settings.revokeApp', { appId: revokedApp });

    const [seenKept, seenRevoked] = [countAt('/push/kept'), countAt('/push/revoked')];
    await trpc(bobCookie, 'interactions.unlike', { postId: alicePost });
    await trpc(bobCookie, 'interactions.like', { postId: alicePost });
    await nextPush('/push/kept', seenKept);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(countAt('/push/revoked')).toBe(seenRevoked);
  }, 60_000);
});

describe('Web Push refusals', () => {
  const call = (token: string, method: string, body?: unknown) =>
    fetch(`${node.url}/api/v1/push/subscription`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const refusal = async (response: Response) => ({
    status: response.status,
    error: ((await response.json()) as { error: string }).error,
  });

  it('a token without the push scope: 403; none at all: 401', async () => {
    const token = await tokenFor('read');
    const masto = createRestAPIClient({ url: node.url, accessToken: token });
    const keys = browserKeys();
    const refused = await masto.v1.push.subscription
      .create({
        subscription: {
          endpoint: `${pushBase}/push/x`,
          keys: { p256dh: keys.p256dh, auth: keys.authB64 },
        },
        policy: 'all',
      })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MastoHttpError);
    expect((refused as MastoHttpError).statusCode).toBe(403);
    expect(await refusal(await call(token, 'GET'))).toEqual({
      status: 403,
      error: 'This action is outside the authorized scopes',
    });
    expect((await fetch(`${node.url}/api/v1/push/subscription`)).status).toBe(401);
  });

  it('no subscription: 404 on read and change', async () => {
    const token = await tokenFor('push');
    expect(await refusal(await call(token, 'GET'))).toEqual({
      status: 404,
      error: 'Record not found',
    });
    expect((await call(token, 'PUT', { data: { policy: 'all' } })).status).toBe(404);
  });

  it('bad endpoints, keys and policies: 422 with the field named', async () => {
    const token = await tokenFor('push');
    const keys = browserKeys();
    const withEndpoint = (endpoint: unknown, extra: Record<string, unknown> = {}) => ({
      subscription: { endpoint, keys: { p256dh: keys.p256dh, auth: keys.authB64 } },
      ...extra,
    });
    const cases: [unknown, RegExp][] = [
      [withEndpoint(undefined), /Endpoint can't be blank/],
      [withEndpoint('ftp://push.example/x'), /Endpoint is not valid/],
      [withEndpoint('http://push.example/x'), /Endpoint is not valid/],
      [withEndpoint('https://10.0.0.1/x'), /Endpoint is not valid \(a private address\)/],
      [withEndpoint('https://169.254.169.254/latest'), /private address/],
      [withEndpoint('https://user:pw@push.example/x'), /Endpoint is not valid/],
      [withEndpoint(`https://push.example/${'x'.repeat(2_100)}`), /too long/],
      [withEndpoint(42), /Endpoint can't be blank/],
      [
        {
          subscription: { endpoint: `${pushBase}/p`, keys: { p256dh: 'AAAA', auth: keys.authB64 } },
        },
        /p256dh is not a P-256 public key/,
      ],
      [
        {
          subscription: {
            endpoint: `${pushBase}/p`,
            // 65 bytes starting with 4, but not a point on the curve.
            keys: { p256dh: Buffer.alloc(65, 4).toString('base64url'), auth: keys.authB64 },
          },
        },
        /p256dh is not a P-256 public key/,
      ],
      [
        {
          subscription: {
            endpoint: `${pushBase}/p`,
            keys: { p256dh: keys.p256dh, auth: 'c2hvcnQ' },
          },
        },
        /auth is not a 16-byte secret/,
      ],
      [{ subscription: { endpoint: `${pushBase}/p` } }, /p256dh can't be blank/],
      [withEndpoint(`${pushBase}/p`, { data: { policy: 'everyone' } }), /Policy must be one of/],
    ];
    for (const [body, message] of cases) {
      const answer = await refusal(await call(token, 'POST', body));
      expect(answer.status, JSON.stringify(body).slice(0, 200)).toBe(422);
      expect(answer.error).toMatch(message);
    }
    // A body that is not JSON at all.
    const broken = await fetch(`${node.url}/api/v1/push/subscription`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"subscription":',
    });
    expect(broken.status).toBe(400);
    // Nothing was stored by any of them.
    expect((await call(token, 'GET')).status).toBe(404);
  });
});
