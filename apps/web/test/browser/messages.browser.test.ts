import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { RestartableNode } from '@swarm/testnet';
import {
  PASSWORD,
  signUp,
  twoNodeSuite,
  type BrowserHarness,
  type Person,
} from './browser-harness.ts';

// Issue #5's journey: end-to-end encrypted direct messages between two real nodes (the embedded
// entry point with the built web app, own PGlite each), driven through the pages by their
// accessible names. alice@A writes to bob@B; bob reads and answers; alice sees "read"; a second
// browser of alice's restores her keys from the backup at login and reads the thread. The steps
// share the nodes and browsers and run in order; each fails on any console or page error. Needs
// `pnpm build`.

describe('direct messages between two nodes in a browser', () => {
  let a: RestartableNode;
  let b: RestartableNode;
  let harness: BrowserHarness;
  let alice: Person;
  let bob: Person;

  twoNodeSuite('messages', { people: ['alice', 'bob'] }, (started) => {
    ({
      a,
      b,
      harness,
      people: { alice, bob },
    } = started);
  });

  /** The message bubble (`<article>` in the thread) whose text contains `text`. */
  const bubble = (p: Person, text: string): Locator =>
    p.page.getByRole('main').getByRole('article').filter({ hasText: text });

  const bobAddress = () => `bob@${b.domain}`;
  const aliceAddress = () => `alice@${a.domain}`;
  const firstText = 'Hello Bob, this is end-to-end encrypted.';
  const answerText = 'Hi Alice! Got it, and this answer is encrypted too.';

  it('signs up alice on A and bob on B, each with an encryption key', async () => {
    await signUp(alice, a, 'Alice');
    await signUp(bob, b, 'Bob');
    // Published with the profile, bound to the did (checked by the sender's browser below).
    for (const [node, handle] of [
      [a, 'alice'],
      [b, 'bob'],
    ] as const) {
      const res = await fetch(`${node.url}/api/swarm/users/${handle}?limit=0`);
      const body = (await res.json()) as { profile?: { encryptionKey?: { publicKey?: string } } };
      expect(body.profile?.encryptionKey?.publicKey, `${handle}'s encryption key`).toMatch(
        /^[A-Za-z0-9_-]{87}$/,
      );
    }
  });

  it('alice writes to bob from the inbox: the message is sent to B', async () => {
    await alice.visit(a.url, '/messages');
    await alice.page.getByRole('heading', { name: 'Messages', level: 1 }).waitFor();
    await alice.page.getByLabel('To', { exact: true }).fill(`@${bobAddress()}`);
    await alice.page.getByRole('button', { name: 'Write' }).click();
    await alice.page.waitForURL(`${a.url}/messages/${bobAddress()}`);
    await alice.page.waitForLoadState('networkidle');
    const textbox = alice.page.getByLabel(`Message to ${bobAddress()}`);
    await expect.poll(() => textbox.isEnabled()).toBe(true);
    await alice.shot('thread-empty');
    await textbox.fill(firstText);
    await alice.page.getByRole('button', { name: 'Send', exact: true }).click();
    await bubble(alice, firstText).waitFor();
    await bubble(alice, firstText)
      .getByText(/^(sent|delivered|read)$/)
      .waitFor();
    await alice.shot('sent');
  });

  it('bob sees it in his inbox with an unread badge, reads it and answers', async () => {
    await bob.visit(b.url, '/messages');
    const nav = bob.page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: /Messages\s*1\s*unread/ }).waitFor();
    const conversation = bob.page.getByRole('link').filter({ hasText: aliceAddress() });
    await conversation.filter({ hasText: '1 unread' }).waitFor();
    // The preview is decrypted in bob's browser.
    await conversation.filter({ hasText: firstText }).waitFor();
    await bob.shot('inbox');
    // Decrypted in bob's inbox: alice's open thread learns it was delivered (not read yet).
    await bubble(alice, firstText).getByText('delivered', { exact: true }).waitFor();
    await alice.shot('delivered');
    await conversation.click();
    // A click before hydration is a full page load: wait for the address, not for `load`.
    await bob.page.waitForURL(`${b.url}/messages/${aliceAddress()}`, { waitUntil: 'commit' });
    await bubble(bob, firstText).waitFor();
    await bob.shot('thread');
    const textbox = bob.page.getByLabel(`Message to ${aliceAddress()}`);
    await expect.poll(() => textbox.isEnabled()).toBe(true);
    await textbox.fill(answerText);
    await bob.page.getByRole('button', { name: 'Send', exact: true }).click();
    await bubble(bob, answerText)
      .getByText(/^(sent|delivered|read)$/)
      .waitFor();
    await bob.shot('answered');
  });

  it('alice sees her message "read" and bob\'s answer', async () => {
    // Still on the thread: it refreshes by itself while open.
    await bubble(alice, firstText).getByText('read', { exact: true }).waitFor();
    await bubble(alice, answerText).waitFor();
    await alice.shot('read-and-answered');
    // The thread on a phone-sized screen (layout check by screenshot).
    await alice.page.setViewportSize({ width: 390, height: 800 });
    await alice.shot('read-and-answered-narrow');
    await alice.page.setViewportSize({ width: 1100, height: 900 });
    // Opened by alice, bob's answer turns "read" on his side too.
    await bubble(bob, answerText).getByText('read', { exact: true }).waitFor();
    await bob.shot('answer-read');
  });

  it("alice's second browser restores her keys at login and reads the thread", async () => {
    const second = await harness.person('alice2');
    await second.visit(a.url, `/login?next=/messages/${bobAddress()}`, 'login');
    await second.page.getByLabel('Handle', { exact: true }).fill('alice');
    await second.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await second.page.getByRole('button', { name: 'Log in' }).click();
    await second.page.waitForURL(`${a.url}/messages/${bobAddress()}`);
    // Her own sent message is encrypted for her key too, so it opens here as well.
    await bubble(second, firstText).waitFor();
    await bubble(second, answerText).waitFor();
    await second.shot('thread-restored');
  });

  it('bob blocks alice from the conversation; her next message is not accepted', async () => {
    await bob.visit(b.url, `/messages/${aliceAddress()}`, 'thread-before-block');
    await bob.page.getByRole('button', { name: `Block ${aliceAddress()}` }).click();
    await bob.page.getByRole('button', { name: `Unblock ${aliceAddress()}` }).waitFor();
    await bob.shot('blocked');

    await alice.visit(a.url, `/messages/${bobAddress()}`, 'thread-after-block');
    const textbox = alice.page.getByLabel(`Message to ${bobAddress()}`);
    await expect.poll(() => textbox.isEnabled()).toBe(true);
    const refused = 'Are you there?';
    await textbox.fill(refused);
    await alice.page.getByRole('button', { name: 'Send', exact: true }).click();
    await bubble(alice, refused)
      .getByText(/^failed: /)
      .waitFor();
    await alice.shot('refused');
  });

  it('bob unblocks alice but lets nobody write to him; then everyone again', async () => {
    await bob.visit(b.url, `/messages/${aliceAddress()}`, 'thread-blocked');
    await bob.page.getByRole('button', { name: `Unblock ${aliceAddress()}` }).click();
    await bob.page.getByRole('button', { name: `Block ${aliceAddress()}` }).waitFor();

    const setPrivacy = async (label: string) => {
      await bob.visit(b.url, '/settings');
      await bob.page.getByLabel('Who may send me direct messages').selectOption({ label });
      const section = bob.page.getByRole('region', { name: 'Messages' });
      await section.getByRole('button', { name: 'Save', exact: true }).click();
      await section.getByText('Saved.').waitFor();
      await bob.shot(`privacy-${label}`);
    };
    const aliceSends = async (text: string) => {
      await alice.visit(a.url, `/messages/${bobAddress()}`, 'thread');
      const textbox = alice.page.getByLabel(`Message to ${bobAddress()}`);
      await expect.poll(() => textbox.isEnabled()).toBe(true);
      await textbox.fill(text);
      await alice.page.getByRole('button', { name: 'Send', exact: true }).click();
    };

    await setPrivacy('Nobody');
    await aliceSends('Nobody may write, not even me?');
    await bubble(alice, 'Nobody may write')
      .getByText('failed: not accepted', { exact: true })
      .waitFor();
    await alice.shot('refused-by-privacy');

    await setPrivacy('Everyone');
    await aliceSends('Open again!');
    await bubble(alice, 'Open again!')
      .getByText(/^(sent|delivered|read)$/)
      .waitFor();
  });

  // Stops and starts B, so it gets more time than the other steps.
  it(
    'with B down, the message waits in the outbox ("retrying, next in …"); with B back, "Retry now" sends it',
    { timeout: 90_000 },
    async () => {
      await bob.page.goto('about:blank');
      await b.stop();
      // Opened while B is down: A offers the key bob's profile last published.
      await alice.visit(a.url, `/messages/${bobAddress()}`, 'thread-during-outage');
      // The heading names bob as A knows him, his address under it.
      await alice.page.getByRole('heading', { level: 1, name: 'Bob', exact: true }).waitFor();
      const textbox = alice.page.getByLabel(`Message to ${bobAddress()}`);
      await expect.poll(() => textbox.isEnabled()).toBe(true);

      const text = 'Are you back?';
      await textbox.fill(text);
      await alice.page.getByRole('button', { name: 'Send', exact: true }).click();
      await bubble(alice, text)
        .getByText(/^retrying, next in \d+ (s|min|h)$/)
        .waitFor();
      await alice.shot('retrying');

      const retry = bubble(alice, text).getByRole('button', { name: 'Retry now' });
      await retry.waitFor();

      await b.start();
      // Alice retries from the thread rather than waiting for the worker's backoff (~30 s after
      // the failed attempt). If the worker got there first, there is nothing to click.
      if (await retry.isVisible()) await retry.click();
      await bubble(alice, text)
        .getByText(/^(sent|delivered|read)$/)
        .waitFor();
      await expect.poll(() => retry.count()).toBe(0);
      await alice.shot('retried');
    },
  );

  it('an account without a published encryption key sets it up on /messages with its password', async () => {
    const carol = await harness.person('carol');
    // The sign-up publishes the key after the account exists; make that step fail, as a network
    // error or an older account would leave it.
    await carol.page.route('**/trpc/messages.setEncryptionKey**', (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify([
          { error: { message: 'not now', code: -32603, data: { code: 'INTERNAL_SERVER_ERROR' } } },
        ]),
      }),
    );
    await signUp(carol, a, 'Carol');
    await carol.page.unrouteAll();
    // The refused request shows in the console; it is this test's doing.
    carol.errors.splice(0, carol.errors.length, ...carol.errors.filter((e) => !/500/.test(e)));
    const published = async () => {
      const res = await fetch(`${a.url}/api/swarm/users/carol?limit=0`);
      const body = (await res.json()) as { profile?: { encryptionKey?: unknown } };
      return body.profile?.encryptionKey !== undefined;
    };
    expect(await published()).toBe(false);

    await carol.visit(a.url, '/messages');
    await carol.page.getByRole('heading', { name: 'Set up private messages' }).waitFor();
    await carol.page.getByLabel('Your password').fill(PASSWORD);
    await carol.page.getByRole('button', { name: 'Set up messages' }).click();
    await carol.page.getByRole('heading', { name: 'Set up private messages' }).waitFor({
      state: 'detached',
    });
    await carol.shot('set-up');
    expect(await published()).toBe(true);

    await carol.visit(a.url, `/messages/${bobAddress()}`, 'thread');
    const textbox = carol.page.getByLabel(`Message to ${bobAddress()}`);
    await expect.poll(() => textbox.isEnabled()).toBe(true);
    await textbox.fill('Hi Bob, Carol here.');
    await carol.page.getByRole('button', { name: 'Send', exact: true }).click();
    await bubble(carol, 'Carol here')
      .getByText(/^(sent|delivered|read)$/)
      .waitFor();
    await carol.context.close();
  });
});
