import { describe, expect, it } from 'vitest';
import type { RestartableNode } from '@swarm/testnet';
import { PASSWORD, signUp, STEP_TIMEOUT_MS, twoNodeSuite, type Person } from './browser-harness.ts';

// A new post reaching the node of its author's follower (docs/protocol.md "Post delivery"),
// through the pages of two real nodes: bob on B follows alice on A; alice writes a
// followers-only post in the composer, which her browser signs with the key it made at sign-up;
// A's outbox delivers it to B. B knows alice's did since bob followed her, so it takes her pushes
// only with her signature (post-push.swarm.test.ts shows an unsigned one refused): "Delivered" on
// her deliveries page is the proof that the composer signed what A sent. Bob then sees it on B:
// A never serves a followers-only post to peers' reads, so only the push can have brought it.
// Then the composer without her key in the browser: it says her posts go out unsigned and
// links to where Settings restores the key. Needs `pnpm build`.

describe('a post pushed to a follower’s node', () => {
  let a: RestartableNode;
  let b: RestartableNode;
  let alice: Person;
  let bob: Person;

  twoNodeSuite('post-push', { people: ['alice', 'bob'] }, (started) => {
    ({
      a,
      b,
      people: { alice, bob },
    } = started);
  });

  const text = 'For my followers only, signed in this browser';

  it('signs up alice on A and bob on B; bob follows alice', async () => {
    await signUp(alice, a, 'Alice');
    await signUp(bob, b, 'Bob');
    await bob.visit(b.url, `/@alice@${a.domain}`, 'profile-alice');
    await bob.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await bob.page.getByRole('button', { name: /^(Unfollow|Requested)$/ }).waitFor();
    await bob.visit(b.url, `/@alice@${a.domain}`, 'profile-alice-followed');
    await bob.page.getByRole('button', { name: 'Unfollow', exact: true }).waitFor();
  });

  /** The composer once it has looked for her key in this browser (`here`, `elsewhere`…). */
  const composerWithKey = (state: string) =>
    alice.page.locator(`form.composer[data-signing-key="${state}"]`);
  const unsignedNotice = () =>
    alice.page.getByText('This browser does not hold your signing key', { exact: false });

  it('alice posts for her followers: the composer says it is on its way to one node', async () => {
    await alice.visit(a.url, '/');
    // Her key is in this browser: nothing to warn about.
    await composerWithKey('here').waitFor();
    expect(await unsignedNotice().count()).toBe(0);
    await alice.page.getByLabel('Write a post', { exact: true }).fill(text);
    await alice.page.getByLabel('Who can see it').selectOption('followers');
    await alice.page.getByRole('button', { name: 'Post', exact: true }).click();
    await alice.page
      .getByRole('status')
      .filter({ hasText: 'On its way to your followers on 1 other node.' })
      .waitFor();
    await alice.shot('posted');
  });

  it('A delivers it to B (which takes it only signed by her)', async () => {
    const delivered = () =>
      alice.page
        .getByRole('listitem')
        .filter({ hasText: `Post to followers to ${b.domain}` })
        .filter({ hasText: 'Delivered' });
    await alice.visitUntil(a.url, '/deliveries', delivered, 4 * STEP_TIMEOUT_MS);
    expect(await delivered().count()).toBe(1);
    await alice.shot('delivered');
  });

  it('bob sees it in his home timeline on B', async () => {
    const card = () => bob.page.getByRole('article').filter({ hasText: text });
    await bob.visitUntil(b.url, '/', card);
    await bob.shot('home-with-push');
  });

  it('without her key in this browser the composer says her posts go unsigned, and where to restore it', async () => {
    // As in another browser: the key store of this one emptied.
    await alice.page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const open = indexedDB.open('swarm-user-keys');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const tx = open.result.transaction('keys', 'readwrite');
            tx.objectStore('keys').clear();
            tx.oncomplete = () => {
              open.result.close();
              resolve();
            };
            tx.onerror = () => reject(tx.error);
          };
        }),
    );
    await alice.visit(a.url, '/');
    await composerWithKey('elsewhere').waitFor();
    const notice = unsignedNotice();
    await notice.waitFor();
    expect(await notice.innerText()).toContain('followers-only post not at all');
    // Screen readers hear it with the text box.
    const box = alice.page.getByLabel('Write a post', { exact: true });
    expect(await box.getAttribute('aria-describedby')).toContain('compose-unsigned');
    await alice.shot('composer-unsigned');

    await alice.page.getByRole('link', { name: 'Restore your key in Settings' }).click();
    await alice.page.waitForURL(`${a.url}/settings#signing-key`);
    const restore = alice.page
      .locator('form')
      .filter({ hasText: 'Restore the key in this browser' });
    await restore.getByLabel('Your password').fill(PASSWORD);
    await restore.getByRole('button', { name: 'Restore my key' }).click();
    await alice.page.getByRole('definition').filter({ hasText: /^Yes$/ }).waitFor();
    await alice.visit(a.url, '/');
    await composerWithKey('here').waitFor();
    expect(await unsignedNotice().count()).toBe(0);
  });
});
