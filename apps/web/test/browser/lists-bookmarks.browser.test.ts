import { describe, expect, it } from 'vitest';
import type { RestartableNode } from '@swarm/testnet';
import { signUp, STEP_TIMEOUT_MS, twoNodeSuite, type Person } from './browser-harness.ts';

// Bookmarks and lists (issue 25) in Chromium on two real nodes: bob on B follows alice on A
// and carol on B. He bookmarks alice's post (the copy B keeps of it) and carol's from his home
// timeline and finds them on /bookmarks, the second one from a phone's "More" menu; he makes a
// list, renames it, adds alice (on another node) and carol, reads their posts in the list's
// timeline, takes carol off again and deletes the list. Needs `pnpm build`.

describe('bookmarks and lists in a browser', () => {
  let a: RestartableNode;
  let b: RestartableNode;
  let alice: Person;
  let bob: Person;
  let carol: Person;

  twoNodeSuite('lists-bookmarks', { people: ['alice', 'bob', 'carol'] }, (started) => {
    ({
      a,
      b,
      people: { alice, bob, carol },
    } = started);
  });

  const fromAlice = 'Alice writes from node A';
  const fromCarol = 'Carol writes on node B';
  const card = (p: Person, text: string) => p.page.getByRole('article').filter({ hasText: text });

  async function post(p: Person, node: RestartableNode, text: string) {
    await p.visit(node.url, '/');
    await p.page.getByLabel('Write a post', { exact: true }).fill(text);
    await p.page.getByRole('button', { name: 'Post', exact: true }).click();
    await card(p, text).waitFor();
  }

  async function follow(address: string) {
    await bob.visit(b.url, `/@${address}`);
    await bob.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await bob.page.getByRole('button', { name: /^(Unfollow|Requested)$/ }).waitFor();
  }

  it(
    'alice signs up on A, bob and carol on B',
    async () => {
      await signUp(alice, a, 'Alice');
      await signUp(bob, b, 'Bob');
      await signUp(carol, b, 'Carol');
    },
    6 * STEP_TIMEOUT_MS,
  );

  it(
    'bob follows alice (on A) and carol',
    async () => {
      await follow(`alice@${a.domain}`);
      await follow('carol');
    },
    4 * STEP_TIMEOUT_MS,
  );

  it(
    'they post; alice’s post reaches B',
    async () => {
      await post(alice, a, fromAlice);
      await post(carol, b, fromCarol);
      // Pushed to her follower's node, or read by its poller.
      await bob.visitUntil(b.url, '/', () => card(bob, fromAlice), 4 * STEP_TIMEOUT_MS);
      await card(bob, fromCarol).waitFor();
    },
    6 * STEP_TIMEOUT_MS,
  );

  it('bob bookmarks both posts and finds them on /bookmarks', async () => {
    for (const text of [fromAlice, fromCarol]) {
      const button = card(bob, text).getByRole('button', { name: 'Bookmark' });
      expect(await button.getAttribute('aria-pressed')).toBe('false');
      await button.click();
      await card(bob, text).getByRole('status').filter({ hasText: 'Bookmarked.' }).waitFor();
      expect(await button.getAttribute('aria-pressed')).toBe('true');
    }
    await bob.visit(b.url, '/bookmarks', 'bookmarks');
    await bob.page.getByRole('heading', { name: 'Bookmarks', level: 1 }).waitFor();
    const list = bob.page.getByRole('list', { name: 'Your bookmarks' });
    const entries = list.getByRole('article');
    expect(await entries.count()).toBe(2);
    // Newest bookmark first: carol's.
    expect(await entries.first().textContent()).toContain(fromCarol);
    const pressed = list.getByRole('button', { name: 'Bookmark', pressed: true });
    expect(await pressed.count()).toBe(2);
    // Nobody else sees them: carol's bookmarks are empty.
    await carol.visit(b.url, '/bookmarks');
    await carol.page.getByText('No bookmarks yet.').waitFor();
  });

  it('on a phone: the "More" menu leads to bookmarks, where one is removed', async () => {
    await bob.page.setViewportSize({ width: 390, height: 844 });
    await bob.visit(b.url, '/', 'phone-home');
    await bob.page.getByText('More', { exact: true }).click();
    await bob.page.getByRole('link', { name: 'Bookmarks', exact: true }).click();
    await bob.page.waitForURL(`${b.url}/bookmarks`);
    const button = card(bob, fromCarol).getByRole('button', { name: 'Bookmark' });
    await button.click();
    await card(bob, fromCarol)
      .getByRole('status')
      .filter({ hasText: 'Bookmark removed.' })
      .waitFor();
    expect(await button.getAttribute('aria-pressed')).toBe('false');
    await bob.visit(b.url, '/bookmarks', 'phone-bookmarks');
    await card(bob, fromAlice).waitFor();
    expect(await card(bob, fromCarol).count()).toBe(0);
    await bob.page.setViewportSize({ width: 1280, height: 900 });
  });

  it('bob makes a list and renames it; a long title is refused', async () => {
    await bob.visit(b.url, '/lists', 'lists-empty');
    await bob.page.getByText('No lists yet.').waitFor();
    await bob.page.getByLabel('Title', { exact: true }).fill('Friends');
    await bob.page.getByRole('button', { name: 'Make list' }).click();
    await bob.page.getByText('List “Friends” made.').waitFor();
    await bob.page.getByRole('button', { name: 'Rename Friends' }).click();
    await bob.page.getByLabel('New title for Friends').fill('Close friends');
    await bob.page.getByRole('button', { name: 'Save' }).click();
    await bob.page.getByText('Renamed to “Close friends”.').waitFor();
    // Too long a title is refused with a sentence next to the field.
    await bob.page
      .getByLabel('Title', { exact: true })
      .evaluate((el) => el.removeAttribute('maxlength'));
    await bob.page.getByLabel('Title', { exact: true }).fill('x'.repeat(101));
    await bob.page.getByRole('button', { name: 'Make list' }).click();
    await bob.page.getByText('A list title has at most 100 characters.').waitFor();
  });

  it('bob adds alice (on A) and carol to the list and reads their posts there', async () => {
    await bob.page.getByRole('link', { name: 'Close friends' }).click();
    await bob.page.getByRole('heading', { name: 'Close friends', level: 1 }).waitFor();
    await bob.page.getByText('Add people to this list to read their posts here.').waitFor();
    // Someone bob does not follow is refused.
    await bob.page.getByLabel('Add someone you follow').fill('nobody');
    await bob.page.getByRole('button', { name: 'Add', exact: true }).click();
    await bob.page.getByText('Lists hold people you follow').waitFor();

    await bob.page.getByLabel('Add someone you follow').fill(`alice@${a.domain}`);
    await bob.page.getByRole('button', { name: 'Add', exact: true }).click();
    await bob.page.getByText(`@alice@${a.domain} added.`).waitFor();
    const timeline = bob.page.getByRole('list', { name: 'Posts of Close friends' });
    await timeline.getByRole('article').filter({ hasText: fromAlice }).waitFor();
    expect(await timeline.getByRole('article').filter({ hasText: fromCarol }).count()).toBe(0);
    await bob.shot('list-with-alice');

    await bob.page.getByLabel('Add someone you follow').fill('carol');
    await bob.page.getByRole('button', { name: 'Add', exact: true }).click();
    await bob.page.getByText('@carol added.').waitFor();
    await timeline.getByRole('article').filter({ hasText: fromCarol }).waitFor();
    await bob.page.getByRole('heading', { name: 'People on this list (2)' }).waitFor();
  });

  it('bob takes carol off the list and deletes the list', async () => {
    await bob.page.getByRole('button', { name: 'Remove @carol' }).click();
    await bob.page.getByText('@carol taken off the list.').waitFor();
    const timeline = bob.page.getByRole('list', { name: 'Posts of Close friends' });
    await timeline.getByRole('article').filter({ hasText: fromAlice }).waitFor();
    expect(await timeline.getByRole('article').filter({ hasText: fromCarol }).count()).toBe(0);

    await bob.page.getByRole('link', { name: '← Lists' }).click();
    await bob.page.getByRole('button', { name: 'Delete Close friends' }).click();
    await bob.page.getByText('List “Close friends” deleted.').waitFor();
    await bob.page.getByText('No lists yet.').waitFor();
  });
});
