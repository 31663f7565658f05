import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort, type RestartableNode } from '@swarm/testnet';
import { signUp, twoNodeSuite, type Person } from './browser-harness.ts';

// Issue #14 in Chromium through two real nodes (`pnpm start`'s entry point, built web app):
// the composer's link preview card (kept, removed, refused), hashtags as links, the search page
// and its tabs by keyboard, a tag page with a post from the other node, profile tabs, and
// follower / following lists of a remote user. Needs `pnpm build`.

// Each step signs up, posts or crosses nodes on a shared machine: generous per-step time.
vi.setConfig({ testTimeout: 120_000 });

describe('search, tags, profiles and link previews in a browser', () => {
  let a: RestartableNode;
  let b: RestartableNode;
  let alice: Person;
  let bob: Person;
  let site: Server;
  let siteBase = '';

  beforeAll(async () => {
    site = createServer((req, res) => {
      if (new URL(req.url ?? '/', 'http://x').pathname === '/article') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          '<html><head><meta property="og:title" content="Gardens of the swarm">' +
            '<meta property="og:description" content="A long read about gardens."></head></html>',
        );
      } else {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        res.end('%PDF-1.7');
      }
    });
    const port = await freePort();
    site.listen(port, '127.0.0.1');
    await once(site, 'listening');
    siteBase = `http://127.0.0.1:${port}`;
  });

  afterAll(() => {
    site?.close();
  });

  twoNodeSuite('discover', { people: ['alice', 'bob'] }, (started) => {
    ({
      a,
      b,
      people: { alice, bob },
    } = started);
  });

  const card = (p: Person, text: string): Locator =>
    p.page.getByRole('article').filter({ hasText: text });

  async function post(p: Person, node: RestartableNode, text: string) {
    await p.visit(node.url, '/');
    await p.page.getByLabel('Write a post', { exact: true }).fill(text);
    await p.page.getByRole('button', { name: 'Post', exact: true }).click();
    await card(p, text).waitFor();
  }

  it('signs up alice on A and bob on B; alice follows bob', async () => {
    await signUp(alice, a, 'Alice');
    await signUp(bob, b, 'Bob');
    await alice.visit(a.url, `/@bob@${b.domain}`);
    await alice.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await alice.page.getByRole('button', { name: /^(Unfollow|Requested)$/ }).waitFor();
  });

  it('shows a link preview card while writing, which can be removed, and posts it when kept', async () => {
    await alice.visit(a.url, '/');
    const box = alice.page.getByLabel('Write a post', { exact: true });
    await box.fill(`Lovely read ${siteBase}/article #gardens`);
    const preview = alice.page.getByRole('group', { name: 'Link preview' });
    await preview.getByText('Gardens of the swarm').waitFor();
    await alice.shot('preview-card');
    await preview.getByRole('button', { name: 'Remove preview' }).click();
    await preview.waitFor({ state: 'detached' });
    await expect.poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);

    // A new text with the link: the card comes back (it was removed for that text only if
    // the link stays), kept this time, and the posted card shows it.
    await box.fill('');
    await box.fill(`Keeping the card ${siteBase}/article?kept=1 #Gardens`);
    await preview.getByText('Gardens of the swarm').waitFor();
    await alice.page.getByRole('button', { name: 'Post', exact: true }).click();
    const posted = card(alice, 'Keeping the card');
    await posted.getByRole('link', { name: /Gardens of the swarm/ }).waitFor();
    // The hashtag is a link to its tag page.
    expect(await posted.getByRole('link', { name: '#Gardens' }).getAttribute('href')).toBe(
      '/tags/gardens',
    );
  });

  it('says why there is no preview for a private address or a file that is not a page', async () => {
    await alice.visit(a.url, '/');
    const box = alice.page.getByLabel('Write a post', { exact: true });
    await box.fill('see https://10.0.0.1/admin');
    await alice.page.getByText(/No preview: .*private or local address/).waitFor();
    await box.fill(`the paper ${siteBase}/paper.pdf`);
    await alice.page.getByText(/No preview: .*not a web page/).waitFor();
    await alice.shot('preview-refused');
    await box.fill('');
    // The browser logs each refused request (403, 415) as a console error: expected here, and
    // nothing else may be.
    expect(
      alice.errors.filter((e) => !/status of (403|415) .*\/trpc\/posts\.linkPreview/.test(e)),
    ).toEqual([]);
    alice.errors.length = 0;
  });

  it('lists alice’s and bob’s #gardens posts on the tag page of A', async () => {
    await post(bob, b, 'My #gardens are on node B');
    // Alice likes it from her Home timeline (read from B, cached for a while): A keeps a copy.
    const bobs = card(alice, 'My #gardens are on node B');
    await alice.visitUntil(a.url, '/', () => bobs);
    await bobs.getByRole('button', { name: 'Like', exact: true }).click();
    await bobs.getByRole('status').filter({ hasText: 'delivered' }).waitFor();
    await alice.visit(a.url, '/tags/gardens', 'tag-page');
    await alice.page.getByRole('heading', { name: '#gardens', level: 1 }).waitFor();
    await card(alice, 'My #gardens are on node B').waitFor();
    await card(alice, 'Keeping the card').waitFor();
  });

  it('searches from the header and moves between result tabs by keyboard', async () => {
    await alice.visit(a.url, '/');
    const search = alice.page.getByLabel('Search', { exact: true });
    await search.fill('garden');
    await search.press('Enter');
    await alice.page.waitForURL(/\/search\?q=garden/);
    await alice.page.waitForLoadState('networkidle');
    const tabs = alice.page.getByRole('navigation', { name: 'Result types' });
    // Opens on the first tab with results: nobody is called "garden", posts are found.
    await expect
      .poll(() => tabs.getByRole('link', { name: /^Posts/ }).getAttribute('aria-current'))
      .toBe('page');
    await card(alice, 'Keeping the card').waitFor();
    await alice.shot('search-posts');

    // Keyboard only: focus the Tags tab and follow it.
    await tabs.getByRole('link', { name: /^Posts/ }).focus();
    await alice.page.keyboard.press('Tab');
    expect(await alice.page.evaluate(() => document.activeElement?.textContent)).toMatch(/^Tags/);
    await alice.page.keyboard.press('Enter');
    await alice.page.waitForURL(/tab=tags/);
    await alice.page.getByRole('link', { name: '#gardens' }).click();
    await alice.page.waitForURL(`${a.url}/tags/gardens`);

    // People: by name.
    await alice.visit(a.url, '/search?q=ali&tab=people', 'search-people');
    await alice.page
      .getByRole('list', { name: 'People' })
      .getByRole('link', { name: 'Alice' })
      .waitFor();
  });

  it('shows profile tabs: Posts, Posts & replies, Media', async () => {
    await alice.visit(a.url, '/');
    const bobs = card(alice, 'My #gardens are on node B');
    await bobs.getByRole('link', { name: 'Reply' }).click();
    await alice.page.getByLabel('Reply', { exact: true }).fill('A reply about #gardens');
    await alice.page.getByRole('button', { name: 'Send reply' }).click();
    await alice.page.getByText('A reply about #gardens').first().waitFor();

    await alice.visit(a.url, '/@alice', 'profile-posts');
    const sections = alice.page.getByRole('navigation', { name: 'Profile sections' });
    await card(alice, 'Keeping the card').waitFor();
    expect(await card(alice, 'A reply about #gardens').count()).toBe(0);
    await sections.getByRole('link', { name: 'Posts & replies' }).click();
    await card(alice, 'A reply about #gardens').waitFor();
    await sections.getByRole('link', { name: 'Media' }).click();
    await alice.page.getByText('No posts with images yet.').waitFor();
    await alice.shot('profile-media');
  });

  it("lists bob's followers (read from B) and alice's following", async () => {
    await alice.visit(a.url, `/@bob@${b.domain}`);
    await alice.page.getByRole('link', { name: 'Followers', exact: true }).click();
    await alice.page.waitForURL(`${a.url}/@bob@${b.domain}/followers`);
    const list = alice.page.getByRole('list', { name: `Followers of @bob@${b.domain}` });
    await list.getByRole('link', { name: 'Alice' }).waitFor();
    await alice.shot('followers-remote');
    await alice.visit(a.url, '/@alice/following', 'following-local');
    await alice.page
      .getByRole('list', { name: 'Followed by @alice' })
      .getByRole('link', { name: 'Bob' })
      .waitFor();
  });
});
