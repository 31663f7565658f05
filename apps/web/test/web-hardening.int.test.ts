import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, nodeOnPort, type RestartableNode } from '@swarm/testnet';

// Issue 17 items 3, 4 and 6 against real processes (the embedded entry point with the built web
// app; needs `pnpm build`): cross-origin writes refused whatever their content type, security
// headers on every kind of answer, sign-ups limited per client address.
//
// Two nodes on free ports. `one` is a default embedded node (no address header: the socket's
// address counts) with 3 sign-ups an hour; `two` runs as behind a proxy (ADDRESS_HEADER =
// X-Forwarded-For, XFF_DEPTH = 1) with the default limit of 5, and hosts bob, whom alice on
// `one` tries to follow.

const PASSWORD = 'correct horse battery staple';
/** What a browser's plain form post asks for (fetch's default, any type, gets SvelteKit's JSON). */
const HTML = { accept: 'text/html' };

let dataDir: string;
let one: RestartableNode;
let two: RestartableNode;
let otherPort: number;
/** alice's session cookie on `one`. */
let cookie: string;

const url = (node: RestartableNode, path: string) => `${node.url}${path}`;

async function signUpForm(
  node: RestartableNode,
  handle: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url(node, '/signup'), {
    method: 'POST',
    headers: { ...HTML, origin: node.url, ...headers },
    body: new URLSearchParams({ handle, displayName: handle, password: PASSWORD }),
    redirect: 'manual',
  });
}

function sessionCookieOf(response: Response): string {
  const match = /swarm_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '');
  if (!match) throw new Error(`no session cookie (status ${response.status})`);
  return `swarm_session=${match[1]}`;
}

/** Which of `handles` have an account on `node` (asked one by one: node info is cached for 1 s). */
async function existing(node: RestartableNode, handles: string[]): Promise<string[]> {
  const found = await Promise.all(
    handles.map(async (handle) => {
      const response = await fetch(url(node, `/api/swarm/users/${handle}?limit=0`));
      return response.status === 200 ? [handle] : [];
    }),
  );
  return found.flat();
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'swarm-web-hardening-'));
  const [portOne, portTwo] = [await freePort(), await freePort()];
  otherPort = await freePort();
  one = nodeOnPort({
    dataDir: join(dataDir, 'one'),
    port: portOne,
    env: { SWARM_SIGNUPS_PER_HOUR: '3' },
  });
  two = nodeOnPort({
    dataDir: join(dataDir, 'two'),
    port: portTwo,
    env: { ADDRESS_HEADER: 'X-Forwarded-For', XFF_DEPTH: '1' },
  });
  // One after the other: on a busy machine each gets the CPU to boot within its time limit.
  await one.start();
  await two.start();

  const alice = await signUpForm(one, 'alice');
  expect(alice.status).toBe(303);
  cookie = sessionCookieOf(alice);
  const bob = await signUpForm(two, 'bob', { 'x-forwarded-for': '192.0.2.50' });
  expect(bob.status).toBe(303);
});

afterAll(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
  await rm(dataDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------

describe('cross-origin writes (CSRF)', () => {
  /** alice's posts, her session, and bob's followers: what a forged request would change. */
  async function state() {
    const posts = (await (await fetch(url(one, '/api/swarm/users/alice?limit=50'))).json()) as {
      posts: unknown[];
    };
    const me = (await (await fetch(url(one, '/trpc/auth.me'), { headers: { cookie } })).json()) as {
      result: { data: { handle: string } | null };
    };
    const bob = (await (await fetch(url(two, '/api/swarm/users/bob?limit=0'))).json()) as {
      profile: { followersCount: number };
    };
    return {
      posts: posts.posts.length,
      signedInAs: me.result.data?.handle ?? null,
      bobFollowers: bob.profile.followersCount,
    };
  }

  const targets = () => [
    { kind: 'form action (post)', path: '/?/post', json: false },
    { kind: 'form action (log out)', path: '/logout', json: false },
    { kind: 'tRPC mutation (posts.create)', path: '/trpc/posts.create', json: true },
    { kind: 'tRPC mutation (auth.logOut)', path: '/trpc/auth.logOut', json: true },
    { kind: 'JSON endpoint (follow)', path: `/api/users/bob@${two.domain}/follow`, json: true },
  ];

  /** Each way a browser can say where a request comes from, none of them this node. */
  const foreignSources = (): [string, Record<string, string>][] => [
    ['another port on the same host', { origin: `http://localhost:${otherPort}` }],
    ['127.0.0.1 instead of localhost', { origin: `http://127.0.0.1:${one.port}` }],
    ['an opaque origin', { origin: 'null' }],
    ['another site', { origin: 'https://evil.example' }],
    ['Sec-Fetch-Site: same-site, no Origin', { 'sec-fetch-site': 'same-site' }],
    ['Sec-Fetch-Site: cross-site, no Origin', { 'sec-fetch-site': 'cross-site' }],
    ['only a Referer from another port', { referer: `http://localhost:${otherPort}/page` }],
    ['nothing at all', {}],
  ];

  /** The bodies a cross-origin page can send (and none), each with its content type. */
  const bodies = (): [string, Record<string, string>, BodyInit | undefined][] => {
    const multipart = new FormData();
    multipart.set('content', 'forged');
    return [
      ['no body, no content type', {}, undefined],
      ['JSON', { 'content-type': 'application/json' }, JSON.stringify({ content: 'forged' })],
      [
        'form-urlencoded',
        { 'content-type': 'application/x-www-form-urlencoded' },
        'content=forged',
      ],
      ['multipart', {}, multipart],
      ['text/plain', { 'content-type': 'text/plain' }, '{"content":"forged"}'],
    ];
  };

  it('refuses every state-changing request not from its own origin, and nothing changes', async () => {
    const before = await state();
    expect(before).toEqual({ posts: 0, signedInAs: 'alice', bobFollowers: 0 });
    let tried = 0;
    for (const target of targets()) {
      for (const [source, sourceHeaders] of foreignSources()) {
        for (const [bodyKind, bodyHeaders, body] of bodies()) {
          const what = `${target.kind}, ${source}, ${bodyKind}`;
          const response = await fetch(url(one, target.path), {
            method: 'POST',
            headers: { cookie, ...sourceHeaders, ...bodyHeaders },
            body,
            redirect: 'manual',
          });
          tried += 1;
          expect(response.status, what).toBe(403);
          if (target.json) {
            expect(response.headers.get('content-type'), what).toMatch(/^application\/json/);
            expect(await response.json(), what).toMatchObject({
              code: 'FORBIDDEN',
              error: expect.stringContaining('refused') as unknown,
            });
          } else {
            expect(await response.text(), what).toContain('refused');
          }
        }
      }
    }
    expect(tried).toBe(5 * 8 * 5);
    // Other state-changing methods too, and an enhanced form (it asks for JSON).
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const response = await fetch(url(one, `/api/users/bob@${two.domain}/follow`), {
        method,
        headers: { cookie, origin: `http://localhost:${otherPort}` },
      });
      expect(response.status, method).toBe(403);
      expect(await response.json()).toMatchObject({ code: 'FORBIDDEN' });
    }
    const enhanced = await fetch(url(one, '/?/post'), {
      method: 'POST',
      headers: {
        cookie,
        origin: `http://localhost:${otherPort}`,
        accept: 'application/json',
        'x-sveltekit-action': 'true',
      },
      body: new URLSearchParams({ content: 'forged' }),
    });
    expect(enhanced.status).toBe(403);
    expect(await enhanced.json()).toMatchObject({ code: 'FORBIDDEN' });

    expect(await state()).toEqual(before);
  });

  it('carries out the same requests from its own origin', async () => {
    const own = { cookie, origin: one.url, ...HTML };
    // Form action, both form encodings.
    for (const body of [new URLSearchParams({ content: 'first' }), new FormData()]) {
      if (body instanceof FormData) body.set('content', 'second');
      const posted = await fetch(url(one, '/?/post'), { method: 'POST', headers: own, body });
      expect(posted.status).toBe(200);
    }
    // tRPC with JSON; without Origin the browser's Sec-Fetch-Site or Referer is enough.
    for (const headers of [
      own as Record<string, string>,
      { cookie, 'sec-fetch-site': 'same-origin' },
      { cookie, referer: `${one.url}/` },
    ]) {
      const created = await fetch(url(one, '/trpc/posts.create'), {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'by tRPC' }),
      });
      expect(created.status).toBe(200);
    }
    expect(await state()).toEqual({ posts: 5, signedInAs: 'alice', bobFollowers: 0 });

    // Log out last (its button posts an empty form).
    const loggedOut = await fetch(url(one, '/logout'), {
      method: 'POST',
      headers: own,
      body: new URLSearchParams(),
      redirect: 'manual',
    });
    expect(loggedOut.status).toBe(303);
    expect((await state()).signedInAs).toBeNull();
  });

  it('follows through the JSON endpoint, without a body, from its own origin', async () => {
    const again = await signUpForm(one, 'alice_again');
    cookie = sessionCookieOf(again);
    const followed = await fetch(url(one, `/api/users/bob@${two.domain}/follow`), {
      method: 'POST',
      headers: { cookie, origin: one.url },
    });
    expect(followed.status, await followed.clone().text()).toBe(200);
    expect(await followed.json()).toMatchObject({ success: true });
    expect((await state()).bobFollowers).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------

describe('security headers', () => {
  const COMMON = {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'permissions-policy': expect.stringContaining('camera=()') as unknown,
  };

  function headersOf(response: Response): Record<string, string> {
    return Object.fromEntries(response.headers.entries());
  }

  it('puts a nonce-based CSP and the others on pages, signed in and out, and on error pages', async () => {
    for (const [path, headers, status] of [
      ['/', {}, 200],
      ['/', { cookie }, 200],
      ['/signup', {}, 200],
      ['/settings', { cookie }, 200],
      ['/no-such-page', {}, 404],
      ['/posts/no-such-post', {}, 404],
    ] as const) {
      const response = await fetch(url(one, path), { headers, redirect: 'manual' });
      const h = headersOf(response);
      expect(response.status, path).toBe(status);
      expect(h['content-type'], path).toMatch(/^text\/html/);
      expect(h, path).toMatchObject({ ...COMMON, 'referrer-policy': 'same-origin' });
      const csp = h['content-security-policy'] ?? '';
      expect(csp, path).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("object-src 'none'");
      expect(csp, path).toContain("base-uri 'none'");
      expect(csp, path).toContain("img-src 'self' data: blob:");
      expect(csp, path).not.toMatch(/script-src[^;]*unsafe/);
      // The nonce in the header is the one on the page's own start-up script.
      const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
      expect(await response.text(), path).toContain(`<script nonce="${nonce}">`);
      // Plain http: no HSTS from the app (the proxy sends it in production).
      expect(h['strict-transport-security'], path).toBeUndefined();
    }
  });

  it('puts a deny-all CSP and the others on JSON endpoints, tRPC, redirects and refusals', async () => {
    for (const [path, init, status] of [
      ['/api/users/alice_again', {}, 200],
      ['/api/users/nobody', {}, 404],
      ['/trpc/auth.me', {}, 200],
      ['/settings', {}, 303],
      ['/logout', { method: 'POST' }, 403],
    ] as const) {
      const response = await fetch(url(one, path), { ...init, redirect: 'manual' });
      expect(response.status, `${path}: ${await response.clone().text()}`).toBe(status);
      expect(headersOf(response), path).toMatchObject({
        ...COMMON,
        'referrer-policy': 'same-origin',
        'content-security-policy':
          "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
      });
    }
  });

  it('puts them on static files, which the hook never sees', async () => {
    const page = await fetch(url(one, '/'));
    // The start-up script imports the client's entry modules.
    const script = /import\("([^"]+\.js)"\)/.exec(await page.text())?.[1];
    expect(script, 'a module the page imports').toBeDefined();
    for (const path of [new URL(script!, one.url).pathname, '/robots.txt']) {
      const response = await fetch(url(one, path));
      expect(response.status, path).toBe(200);
      expect(headersOf(response), path).toMatchObject({
        ...COMMON,
        'referrer-policy': 'same-origin',
      });
    }
  });

  it("puts them on the gateway's JSON, errors and reference page, with HSTS", async () => {
    for (const [path, status] of [
      ['/api/swarm/info', 200],
      ['/.well-known/node-swarm', 200],
      ['/api/swarm/no-such-thing', 404],
      ['/api/swarm/reference', 200],
    ] as const) {
      const response = await fetch(url(one, path));
      expect(response.status, path).toBe(status);
      const h = headersOf(response);
      expect(h, path).toMatchObject({
        ...COMMON,
        'referrer-policy': 'no-referrer',
        'strict-transport-security': 'max-age=31536000',
      });
      expect(h['content-security-policy'], path).toMatch(/^default-src 'none';/);
      expect(h['content-security-policy'], path).toContain("frame-ancestors 'none'");
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('sign-up limit per client address', () => {
  it('lets 5 of 60 parallel sign-ups from one address through, with Retry-After for the rest', async () => {
    const from = { 'x-forwarded-for': '203.0.113.7' };
    const handles = Array.from({ length: 60 }, (_, i) => `flood_${i}`);
    const answers = await Promise.all(handles.map((handle) => signUpForm(two, handle, from)));
    const made = answers.filter((r) => r.status === 303);
    const refused = answers.filter((r) => r.status === 429);
    expect(made).toHaveLength(5);
    expect(refused).toHaveLength(55);
    for (const response of refused) {
      const retryAfter = Number(response.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(720);
    }
    // A form error on the form.
    expect(await refused[0]!.text()).toMatch(
      /role="alert">Too many sign-ups from your address; try again in \d+ minutes?\./,
    );
    const made5 = await existing(two, handles);
    expect(made5).toHaveLength(5);
    expect(made5).toEqual(handles.filter((_, i) => answers[i]!.status === 303));

    // tRPC's sign-up shares the budget: 429 with Retry-After.
    const viaTrpc = await fetch(url(two, '/trpc/auth.signUp'), {
      method: 'POST',
      headers: { ...from, origin: two.url, 'content-type': 'application/json' },
      body: JSON.stringify({ handle: 'flood_trpc', displayName: '', password: PASSWORD }),
    });
    expect(viaTrpc.status).toBe(429);
    expect(Number(viaTrpc.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await viaTrpc.json()).toMatchObject({
      error: { message: expect.stringContaining('Too many sign-ups') as unknown },
    });

    // The address is the proxy's last hop (XFF_DEPTH=1): a made-up earlier entry changes nothing.
    const spoofed = await signUpForm(two, 'flood_spoofed', {
      'x-forwarded-for': '198.51.100.1, 203.0.113.7',
    });
    expect(spoofed.status).toBe(429);
    // Another address still signs up.
    const other = await signUpForm(two, 'someone_else', { 'x-forwarded-for': '203.0.113.8' });
    expect(other.status).toBe(303);
    expect(
      await existing(two, [...handles, 'flood_trpc', 'flood_spoofed', 'someone_else']),
    ).toEqual([...made5, 'someone_else']);
  });

  it('ignores X-Forwarded-For without ADDRESS_HEADER: the socket address is the client', async () => {
    // `one` allows 3 an hour; alice and alice_again spent two.
    const third = await signUpForm(one, 'carol', { 'x-forwarded-for': '203.0.113.20' });
    expect(third.status).toBe(303);
    const fourth = await signUpForm(one, 'dave', { 'x-forwarded-for': '203.0.113.21' });
    expect(fourth.status).toBe(429);
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await existing(one, ['carol', 'dave'])).toEqual(['carol']);
  });
});
