import { createECDH, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, nodeOnPort, type RestartableNode } from '@swarm/testnet';
import {
  launchBrowser,
  signUp,
  STEP_TIMEOUT_MS,
  type BrowserHarness,
  type Person,
} from './browser-harness.ts';

// The web app as an installable app with push notifications (docs/clients.md "Web Push"): the
// manifest, its icons and the service worker are served; the worker is registered and shows
// a push as a notification; the Settings switch subscribes this browser and the node then
// pushes a like to that subscription (aes128gcm, VAPID-signed).
//
// Headless Chromium has no push service here (it would need Google's, and background
// networking is off), so `PushManager.subscribe` is replaced in the page by one that answers a
// subscription to an endpoint this test serves, with keys the test made; the rest is real: the
// switch's code, the tRPC call, the node's storage, the outbox, the encryption and the POST.
// The notification is shown from a push delivered to the worker through the DevTools protocol
// (`ServiceWorker.deliverPushMessage`), Chromium's way of testing push handlers.
// Needs `pnpm build`.

let dataDir: string;
let node: RestartableNode;
let harness: BrowserHarness;
let alice: Person;
let pushServer: Server;
let endpoint: string;
const received: { headers: IncomingHttpHeaders; body: Buffer }[] = [];

const ecdh = createECDH('prime256v1');
ecdh.generateKeys();
const keys = {
  p256dh: ecdh.getPublicKey().toString('base64url'),
  auth: randomBytes(16).toString('base64url'),
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swarm-push-browser-'));
  node = nodeOnPort({ dataDir, port: await freePort() });
  const pushPort = await freePort();
  endpoint = `http://127.0.0.1:${pushPort}/push/browser`;
  pushServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((resolve) => pushServer.listen(pushPort, '127.0.0.1', resolve));
  await node.start();
  harness = await launchBrowser('push');
  alice = await harness.person('alice');
}, 120_000);

afterAll(async () => {
  await harness?.close();
  await new Promise((resolve) => pushServer?.close(resolve));
  await node?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('installable, with push notifications', () => {
  it('serves the manifest, its icons and the service worker', async () => {
    const manifest = await fetch(`${node.url}/manifest.webmanifest`);
    expect(manifest.headers.get('content-type')).toBe('application/manifest+json');
    const body = (await manifest.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      start_url: '/',
      display: 'standalone',
      theme_color: '#4338ca',
    });
    expect(typeof body.name).toBe('string');
    expect(typeof body.short_name).toBe('string');
    for (const icon of body.icons as { src: string; sizes: string }[]) {
      const png = await fetch(`${node.url}${icon.src}`);
      expect(png.status).toBe(200);
      expect(png.headers.get('content-type')).toBe('image/png');
      const bytes = Buffer.from(await png.arrayBuffer());
      // The PNG's own size is what the manifest says.
      const [width, height] = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
      expect(`${width}x${height}`).toBe(icon.sizes);
    }
    const worker = await fetch(`${node.url}/service-worker.js`);
    expect(worker.status).toBe(200);
    expect(worker.headers.get('content-type')).toMatch(/javascript/);
    expect(await worker.text()).toContain('notificationclick');
  });

  it('registers the worker, which shows a pushed notification', async () => {
    await signUp(alice, node, 'Alice A.');
    await alice.context.grantPermissions(['notifications'], { origin: node.url });
    await alice.visit(node.url, '/');
    expect(
      await alice.page.evaluate(
        async () => (await navigator.serviceWorker.ready).active?.scriptURL,
      ),
    ).toBe(`${node.url}/service-worker.js`);
    const manifestLink = await alice.page.locator('link[rel="manifest"]').getAttribute('href');
    expect(manifestLink).toBe('/manifest.webmanifest');

    const cdp = await alice.context.newCDPSession(alice.page);
    const registrationId = new Promise<string>((resolve) => {
      cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
        const ours = registrations.find((r) => r.scopeURL === `${node.url}/`);
        if (ours) resolve(ours.registrationId);
      });
    });
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: node.url,
      registrationId: await registrationId,
      data: JSON.stringify({
        notification_id: 'n-1',
        notification_type: 'favourite',
        title: 'Bob favourited your post',
        body: 'Hello from the push test',
        icon: `${node.url}/icon-192.png`,
        url: `${node.url}/notifications`,
      }),
    });
    await expect
      .poll(
        () =>
          alice.page.evaluate(async () =>
            (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
              title: n.title,
              body: n.body,
              tag: n.tag,
              data: n.data as unknown,
            })),
          ),
        { timeout: STEP_TIMEOUT_MS },
      )
      .toEqual([
        {
          title: 'Bob favourited your post',
          body: 'Hello from the push test',
          tag: 'n-1',
          data: { url: `${node.url}/notifications` },
        },
      ]);
    await cdp.detach();
  });

  it('the Settings switch subscribes this browser, and a like is pushed to it', async () => {
    // The stand-in push service (see the header): what the switch gets from PushManager.
    await alice.context.addInitScript(
      ({ endpoint, p256dh, auth }) => {
        let current: PushSubscription | null = null;
        const make = (): PushSubscription =>
          ({
            endpoint,
            expirationTime: null,
            options: { userVisibleOnly: true, applicationServerKey: null },
            getKey: () => null,
            toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh, auth } }),
            unsubscribe: async () => {
              current = null;
              return true;
            },
          }) as unknown as PushSubscription;
        PushManager.prototype.subscribe = async function (options) {
          // The switch hands over the node's VAPID key, as a real push service needs it.
          const key = options?.applicationServerKey;
          if (!(key instanceof Uint8Array) || key.length !== 65) {
            throw new Error('no VAPID key given to subscribe');
          }
          current = make();
          return current;
        };
        PushManager.prototype.getSubscription = async () => current;
      },
      { endpoint, ...keys },
    );
    await alice.visit(node.url, '/settings');
    const toggle = alice.page.getByRole('switch', { name: 'Push notifications on this device' });
    await expect.poll(() => toggle.isEnabled()).toBe(true);
    expect(await toggle.isChecked()).toBe(false);
    await toggle.check();
    await expect
      .poll(() => alice.page.getByTestId('push-settings').getByRole('status').innerText())
      .toContain('Push notifications are on for this device.');
    await alice.shot('push-on');

    // Bob likes alice's post: the node pushes it to the subscription the switch stored.
    const bobCookie = await signUpOverHttp('bob');
    const post = await trpc<{ post: { id: string } }>(await aliceCookie(), 'posts.create', {
      content: 'Liked while push is on',
    });
    const before = received.length;
    await trpc(bobCookie, 'interactions.like', { postId: post.post.id });
    await expect.poll(() => received.length, { timeout: 10_000 }).toBe(before + 1);
    const push = received[before]!;
    expect(push.headers['content-encoding']).toBe('aes128gcm');
    expect(String(push.headers.authorization)).toMatch(/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=/);
    // The record header of RFC 8188: salt (16), record size (4), key id length (1), then the
    // node's ephemeral public key (65 bytes, uncompressed point).
    expect(push.body[20]).toBe(65);
    expect(push.body[21]).toBe(4);

    // Off: the browser and the node both forget it; the page says so after a reload.
    await toggle.uncheck();
    await expect
      .poll(() => alice.page.getByTestId('push-settings').getByRole('status').innerText())
      .toContain('Push notifications are off for this device.');
    const status = await trpcGet<{ endpoint: string | null }>(await aliceCookie(), 'push.status');
    expect(status.endpoint).toBeNull();
    expect(harness.takeErrors()).toEqual([]);
  });
});

/** Alice's session cookie, from her browser: what her pages send. */
async function aliceCookie(): Promise<string> {
  const cookie = (await alice.context.cookies(node.url)).find((c) => c.name === 'swarm_session');
  if (!cookie) throw new Error('alice has no session');
  return `${cookie.name}=${cookie.value}`;
}

async function signUpOverHttp(handle: string): Promise<string> {
  const response = await fetch(`${node.url}/signup`, {
    method: 'POST',
    headers: { accept: 'text/html', origin: node.url },
    body: new URLSearchParams({
      handle,
      displayName: handle,
      password: 'correct horse battery staple',
    }),
    redirect: 'manual',
  });
  expect(response.status).toBe(303);
  return /swarm_session=[^;]+/.exec(response.headers.get('set-cookie') ?? '')![0];
}

async function trpc<T = unknown>(cookie: string, path: string, input: unknown): Promise<T> {
  const response = await fetch(`${node.url}/trpc/${path}`, {
    method: 'POST',
    headers: { origin: node.url, 'content-type': 'application/json', cookie },
    body: JSON.stringify(input),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { result: { data: T } }).result.data;
}

async function trpcGet<T>(cookie: string, path: string): Promise<T> {
  const response = await fetch(`${node.url}/trpc/${path}`, { headers: { cookie } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { data: T } }).result.data;
}
