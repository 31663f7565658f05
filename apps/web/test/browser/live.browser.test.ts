import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { RestartableNode } from '@swarm/testnet';
import {
  hydrated,
  signUp,
  twoNodeSuite,
  type BrowserHarness,
  type Person,
} from './browser-harness.ts';

// Issue #14, "Live updates" and "Phone-first layout", in Chromium against two real nodes (the
// embedded entry point with the built web app). Live: a like from the other node (over real
// HTTP) raises bob's notification badge with no reload, "N new posts" on Home, a message that
// arrives in an open thread, and the stream coming back by itself after the node restarted.
// Phone: the header's height on a 390-px screen, the bottom bar, dark mode by the system
// setting, and a sign-up form typed into before the page's script loaded. Needs `pnpm build`.

const LIVE_WAIT_MS = 45_000;

describe('live updates and the phone layout in a browser', () => {
  let a: RestartableNode;
  let b: RestartableNode;
  let harness: BrowserHarness;
  let alice: Person;
  let bob: Person;
  let carol: Person;

  twoNodeSuite(
    'live',
    { people: ['alice', 'bob', 'carol'], nodes: { postgres: true }, timeoutMs: 400_000 },
    (started) => {
      ({
        a,
        b,
        harness,
        people: { alice, bob, carol },
      } = started);
    },
  );

  const card = (p: Person, text: string): Locator =>
    p.page.getByRole('article').filter({ hasText: text });
  const nav = (p: Person) => p.page.getByRole('navigation', { name: 'Main' });

  /** Waits until the page's live stream is open (the layout marks `<html data-live="open">`). */
  async function streamOpen(page: Page) {
    await page.waitForSelector('html[data-live="open"]', {
      state: 'attached',
      timeout: LIVE_WAIT_MS,
    });
  }

  /** Marks the document: a reload would lose the mark. */
  async function markDocument(page: Page) {
    await page.evaluate(
      () => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true),
    );
  }
  async function expectSameDocument(page: Page) {
    expect(
      await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument),
      'the page was not reloaded',
    ).toBe(true);
  }

  const bobPost = 'Bob writes on node B';

  it('signs up alice on A, bob and carol on B; bob posts and follows carol', async () => {
    await signUp(alice, a, 'Alice');
    await signUp(bob, b, 'Bob');
    await signUp(carol, b, 'Carol');
    await bob.visit(b.url, '/');
    await bob.page.getByLabel('Write a post', { exact: true }).fill(bobPost);
    await bob.page.getByRole('button', { name: 'Post', exact: true }).click();
    await card(bob, bobPost).waitFor();
    await bob.visit(b.url, '/@carol');
    await bob.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await bob.page.getByRole('button', { name: 'Unfollow', exact: true }).waitFor();
  }, 300_000);

  it("a like from node A raises bob's notification badge with no reload", async () => {
    await bob.visit(b.url, '/swarm');
    await streamOpen(bob.page);
    await markDocument(bob.page);
    await expect(
      nav(bob)
        .getByRole('link', { name: /Notifications\s*\d+\s*unread/ })
        .count(),
    ).resolves.toBe(0);
    // alice likes bob's post on his profile, seen from A: signed in her browser, sent to B.
    await alice.visit(a.url, `/@bob@${b.domain}`);
    const post = card(alice, bobPost);
    await post.getByRole('button', { name: 'Like', exact: true }).click();
    await post.getByRole('status').filter({ hasText: 'delivered' }).waitFor();
    await nav(bob)
      .getByRole('link', { name: /Notifications\s*1\s*unread/ })
      .waitFor({ timeout: LIVE_WAIT_MS });
    await expectSameDocument(bob.page);
    await bob.shot('badge-live');
  }, 120_000);

  const carolPost = 'Carol posts while bob is looking';

  it('shows "1 new post" on Home, and the post on a click', async () => {
    await bob.visit(b.url, '/');
    await streamOpen(bob.page);
    await markDocument(bob.page);
    await carol.visit(b.url, '/');
    await carol.page.getByLabel('Write a post', { exact: true }).fill(carolPost);
    await carol.page.getByRole('button', { name: 'Post', exact: true }).click();
    await card(carol, carolPost).waitFor();
    const show = bob.page.getByRole('button', { name: '1 new post: show' });
    await show.waitFor({ timeout: LIVE_WAIT_MS });
    expect(await card(bob, carolPost).count()).toBe(0);
    await show.click();
    await card(bob, carolPost).waitFor();
    await expectSameDocument(bob.page);
  }, 120_000);

  const message = 'Carol to bob, live';

  it('a message arrives in an open thread', async () => {
    await bob.visit(b.url, '/messages');
    await bob.page.getByLabel('To', { exact: true }).fill('carol');
    await bob.page.getByRole('button', { name: 'Write' }).click();
    await bob.page.waitForURL(/\/messages\/carol/);
    await hydrated(bob.page);
    await streamOpen(bob.page);
    await markDocument(bob.page);
    await carol.visit(b.url, '/messages');
    await carol.page.getByLabel('To', { exact: true }).fill('bob');
    await carol.page.getByRole('button', { name: 'Write' }).click();
    await carol.page.waitForURL(/\/messages\/bob/);
    const textbox = carol.page.getByLabel(/^Message to bob/);
    await expect.poll(() => textbox.isEnabled(), { timeout: LIVE_WAIT_MS }).toBe(true);
    await textbox.fill(message);
    await carol.page.getByRole('button', { name: 'Send', exact: true }).click();
    await bob.page
      .getByRole('main')
      .getByRole('article')
      .filter({ hasText: message })
      .waitFor({ timeout: LIVE_WAIT_MS });
    await expectSameDocument(bob.page);
    await bob.shot('thread-live');
  }, 120_000);

  it('reconnects by itself after the node dropped the stream (restart)', async () => {
    await bob.visit(b.url, '/swarm');
    await streamOpen(bob.page);
    await markDocument(bob.page);
    await b.stop();
    await bob.page.waitForSelector('html[data-live="closed"]', { state: 'attached' });
    await b.start();
    await streamOpen(bob.page);
    // A change after the restart reaches the same page: carol likes bob's post on B.
    await carol.visit(b.url, '/@bob');
    await card(carol, bobPost).getByRole('button', { name: 'Like', exact: true }).click();
    await card(carol, bobPost).getByRole('button', { name: 'Unlike', exact: true }).waitFor();
    await nav(bob)
      .getByRole('link', { name: /Notifications\s*2\s*unread/ })
      .waitFor({ timeout: LIVE_WAIT_MS });
    await expectSameDocument(bob.page);
    // While B was down Chromium logged the failed reconnects of every open page: expected.
    const refused = /ERR_CONNECTION_REFUSED \(http:\/\/[^)]*\/events\)$/;
    for (const p of [alice, bob, carol]) {
      const kept = p.errors.filter((e) => !refused.test(e));
      p.errors.splice(0, p.errors.length, ...kept);
    }
  }, 400_000);

  it('keeps the header to 64 px on a 390-px screen, the sections in a bottom bar', async () => {
    await bob.page.setViewportSize({ width: 390, height: 844 });
    await bob.visit(b.url, '/');
    const header = await bob.page.locator('header.site-header').boundingBox();
    expect(header!.height).toBeLessThanOrEqual(64);
    // The bottom bar: the main sections one tap away, at the bottom of the screen.
    const bar = await nav(bob).boundingBox();
    expect(bar!.y + bar!.height).toBeGreaterThan(844 - 2);
    for (const name of [/^Home/, /^Swarm/, /^Notifications/, /^Messages/]) {
      await expect(nav(bob).getByRole('link', { name }).isVisible()).resolves.toBe(true);
    }
    await nav(bob).getByText('More', { exact: true }).click();
    await nav(bob).getByRole('link', { name: 'Settings' }).click();
    await bob.page.waitForURL(`${b.url}/settings`);
    await bob.shot('phone-settings');
    // Signed out, too.
    const visitor = await harness.person('visitor');
    await visitor.page.setViewportSize({ width: 390, height: 844 });
    await visitor.visit(b.url, '/');
    const anonymous = await visitor.page.locator('header.site-header').boundingBox();
    expect(anonymous!.height).toBeLessThanOrEqual(64);
    await visitor.page.getByRole('link', { name: 'Sign up' }).first().waitFor();
    await visitor.context.close();
  }, 120_000);

  it('follows the system setting for dark mode', async () => {
    const background = () =>
      bob.page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    await bob.page.emulateMedia({ colorScheme: 'dark' });
    await bob.visit(b.url, '/');
    expect(await background()).toBe('rgb(17, 17, 24)');
    await bob.shot('dark');
    await bob.page.emulateMedia({ colorScheme: 'light' });
    expect(await background()).toBe('rgb(247, 247, 251)');
  });

  it('keeps what was typed into the sign-up form before its script loaded', async () => {
    const visitor = await harness.person('slow');
    // Hold every script of the app until the handle is typed.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    await visitor.page.route(/\/_app\/.*\.js(\?|$)/, async (route) => {
      await released;
      await route.continue();
    });
    await visitor.page.goto(`${b.url}/signup`, { waitUntil: 'domcontentloaded' });
    const handle = visitor.page.getByLabel('Handle', { exact: true });
    await handle.fill('dave');
    await visitor.page.getByLabel('Display name', { exact: true }).fill('Dave');
    expect(
      await visitor.page.evaluate(() => document.documentElement.hasAttribute('data-ready')),
      'the script has not run yet',
    ).toBe(false);
    release();
    await hydrated(visitor.page);
    expect(await handle.inputValue()).toBe('dave');
    expect(await visitor.page.getByLabel('Display name', { exact: true }).inputValue()).toBe(
      'Dave',
    );
    await visitor.context.close();
  });
});
