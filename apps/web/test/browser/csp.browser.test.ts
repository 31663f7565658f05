import type { Locator } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { RestartableNode } from '@swarm/testnet';
import {
  adminPages,
  signUp,
  STEP_TIMEOUT_MS,
  twoNodeSuite,
  type BrowserHarness,
  type Person,
} from './browser-harness.ts';

// Every page of the web app in Chromium with the Content-Security-Policy on (issue 17 item 4),
// signed out and signed in (as the node's admin, so /admin too): no `securitypolicyviolation`
// event and no console error on any of them, and the flows that need what a strict policy
// could break still work: sign-up makes the keys in the browser (WebCrypto, IndexedDB), posting
// (a form action), a like signed in the browser and delivered to the other node (tRPC).
// Needs `pnpm build`.

describe('every page under the Content-Security-Policy', () => {
  let a: RestartableNode;
  let b: RestartableNode;
  let visitor: Person;
  let alice: Person;
  let bob: Person;
  /** Every `securitypolicyviolation` seen in any page of any person. */
  const violations: string[] = [];

  /** A person whose pages report CSP violations to the test (the hook survives navigations). */
  async function watched(harness: BrowserHarness, name: string): Promise<Person> {
    const p = await harness.person(name);
    await p.context.exposeBinding('__reportCspViolation', ({ page }, text: string) => {
      violations.push(`${name}: ${text} (${page.url()})`);
    });
    await p.context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        const report = (window as unknown as { __reportCspViolation: (t: string) => void })
          .__reportCspViolation;
        report(`${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}`);
      });
    });
    return p;
  }

  twoNodeSuite('csp', { people: ['visitor', 'alice', 'bob'], person: watched }, (started) => {
    ({
      a,
      b,
      people: { visitor, alice, bob },
    } = started);
  });

  afterEach(() => {
    const seen = violations.splice(0);
    expect(seen, 'CSP violations').toEqual([]);
  });

  const card = (p: Person, text: string): Locator =>
    p.page.getByRole('article').filter({ hasText: text });

  /** Visits each path and waits for its heading-bearing main content; errors fail afterEach. */
  async function visitAll(p: Person, node: RestartableNode, paths: string[]) {
    for (const path of paths) {
      await p.visit(node.url, path);
      await p.page.getByRole('main').waitFor();
    }
  }

  /** A 404 page (visit() refuses statuses ≥ 400). */
  async function visitMissing(p: Person, node: RestartableNode, path: string) {
    const response = await p.page.goto(`${node.url}${path}`, { waitUntil: 'networkidle' });
    expect(response?.status()).toBe(404);
    await p.page.getByRole('main').waitFor();
    await p.shot(`missing-${path}`);
    // Chromium logs the 404 itself as a console error: that one is expected.
    const expected = `status of 404 (Not Found) (${node.url}${path})`;
    const at = p.errors.findIndex((e) => e.endsWith(expected));
    expect(at, 'the 404 logged once').toBeGreaterThanOrEqual(0);
    p.errors.splice(at, 1);
  }

  const bobPost = 'Bob posts under a strict policy';
  const alicePost = 'Alice posts under a strict policy';
  let bobPostId = '';
  /** The page of alice's post and of bob's post, as paths on A. */
  let alicePostPath = '';
  let bobPostPathOnA = '';

  it('sign-up makes the keys in the browser (WebCrypto, IndexedDB)', async () => {
    await signUp(alice, a, 'Alice');
    await signUp(bob, b, 'Bob');
    for (const [p, node] of [
      [alice, a],
      [bob, b],
    ] as const) {
      const me = (await p.page.evaluate(async () => {
        const response = await fetch('/trpc/auth.me');
        return (await response.json()) as { result: { data: { did: string | null } } };
      })) as { result: { data: { did: string | null } } };
      expect(me.result.data.did, `${p.name}'s did`).toMatch(/^did:key:zDn/);
      // The private key is in this browser's IndexedDB, under the node's origin.
      const stored = await p.page.evaluate(
        () =>
          new Promise<number>((resolve, reject) => {
            const open = indexedDB.open('swarm-user-keys');
            open.onerror = () => reject(new Error('cannot open the key store'));
            open.onsuccess = () => {
              const db = open.result;
              const names = [...db.objectStoreNames];
              if (names.length === 0) return resolve(0);
              const count = db.transaction(names[0]!).objectStore(names[0]!).count();
              count.onsuccess = () => resolve(count.result);
              count.onerror = () => reject(new Error('cannot count keys'));
            };
          }),
      );
      expect(stored, `${p.name}'s stored keys on ${node.domain}`).toBeGreaterThan(0);
    }
  });

  it('posts (a form action) and likes a remote post (signed in the browser, over tRPC)', async () => {
    await bob.visit(b.url, '/');
    await bob.page.getByLabel('Write a post', { exact: true }).fill(bobPost);
    await bob.page.getByRole('button', { name: 'Post', exact: true }).click();
    const href = await card(bob, bobPost).getByRole('link', { name: 'Reply' }).getAttribute('href');
    bobPostId = decodeURIComponent(/^\/posts\/([^#?]+)/.exec(href ?? '')?.[1] ?? '');
    expect(bobPostId).not.toBe('');

    await alice.visit(a.url, '/');
    await alice.page.getByLabel('Write a post', { exact: true }).fill(alicePost);
    await alice.page.getByRole('button', { name: 'Post', exact: true }).click();
    alicePostPath =
      (await card(alice, alicePost).getByRole('link', { name: 'Reply' }).getAttribute('href')) ??
      '';
    expect(alicePostPath).toMatch(/^\/posts\//);

    // alice follows bob, so his post reaches her Home timeline; then she likes it.
    await alice.visit(a.url, `/@bob@${b.domain}`);
    await alice.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await alice.page.getByRole('button', { name: /^(Unfollow|Requested)$/ }).waitFor();
    await alice.visit(a.url, '/swarm');
    const post = card(alice, bobPost);
    bobPostPathOnA = (await post.getByRole('link', { name: 'Reply' }).getAttribute('href')) ?? '';
    expect(bobPostPathOnA).toMatch(/^\/posts\//);
    await post.getByRole('button', { name: 'Like', exact: true }).click();
    await post.getByRole('status').filter({ hasText: 'delivered' }).waitFor();
    await expect
      .poll(
        async () => {
          const res = await fetch(`${b.url}/api/swarm/posts/${encodeURIComponent(bobPostId)}`);
          const body = (await res.json()) as { likesCount?: number; post?: { likesCount: number } };
          return body.likesCount ?? body.post?.likesCount;
        },
        { timeout: STEP_TIMEOUT_MS },
      )
      .toBe(1);
  });

  it('loads every page signed out', async () => {
    await visitAll(visitor, a, [
      '/',
      '/public',
      '/swarm',
      '/find',
      '/find?q=%40%40',
      '/login',
      '/signup',
      '/rules',
      '/search?q=alice',
      '/tags/swarm',
      '/@alice',
      `/@bob@${b.domain}`,
      alicePostPath,
      bobPostPathOnA,
    ]);
    await visitMissing(visitor, a, '/no-such-page');
  }, 240_000);

  it('loads every page signed in, /admin included', async () => {
    await visitAll(alice, a, [
      ...adminPages(b, alicePostPath),
      bobPostPathOnA,
      '/admin/reports',
      '/admin/registrations',
      '/admin/audit',
      '/settings/safety',
      '/search?q=bob',
      '/@alice/followers',
    ]);
    await visitMissing(alice, a, '/no-such-page');
    // Many pages, each waited for until hydrated: more than the default 30 s on a busy machine.
  }, 240_000);

  it('blocks a script injected into a page, and reports it', async () => {
    await visitor.visit(a.url, '/public');
    const ran = await visitor.page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__injected = true';
      document.body.append(script);
      return (window as unknown as { __injected?: boolean }).__injected ?? false;
    });
    expect(ran).toBe(false);
    await expect.poll(() => violations.length).toBe(1);
    expect(violations.splice(0)[0]).toMatch(/^visitor: script-src-elem blocked inline/);
    // Chromium's own console report of it.
    expect(visitor.errors.splice(0)).toEqual([
      expect.stringContaining('violates the following Content Security Policy directive'),
    ]);
  });

  it('navigates client-side under the policy (SvelteKit router, streamed data)', async () => {
    await alice.visit(a.url, '/');
    const nav = alice.page.getByRole('navigation', { name: 'Main' });
    for (const name of ['Public', 'Swarm', 'Deliveries', 'Settings', 'Home']) {
      await nav.getByRole('link', { name, exact: true }).click();
      await alice.page.waitForLoadState('networkidle');
    }
    await alice.shot('navigated');
  });
});
