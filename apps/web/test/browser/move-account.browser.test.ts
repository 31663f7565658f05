import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { RestartableNode } from '@swarm/testnet';
import {
  PASSWORD,
  signUp,
  STEP_TIMEOUT_MS,
  twoNodeSuite,
  type BrowserHarness,
  type Person,
} from './browser-harness.ts';

// Issue #15's move across two real nodes (embedded entry points, built web app, Chromium):
// alice signs up on A and bob on B follows her; alice exports her account on A, imports the
// archive on B (her key restored from the backup in the archive), logs in there and moves. Bob's
// view of alice's old profile then says where she went, and he follows her new address. Needs
// `pnpm build`.

describe('moving an account in a browser', () => {
  let a: RestartableNode;
  let b: RestartableNode;
  let harness: BrowserHarness;
  let alice: Person;
  let bob: Person;
  let archivePath = '';

  twoNodeSuite('move-account', { people: ['alice', 'bob'] }, (started) => {
    ({
      a,
      b,
      harness,
      people: { alice, bob },
    } = started);
  });

  it('alice signs up on A and posts; bob on B follows her', async () => {
    await signUp(alice, a, 'Alice');
    await alice.visit(a.url, '/');
    await alice.page.getByLabel('Write a post', { exact: true }).fill('Hello from node A');
    await alice.page.getByRole('button', { name: 'Post', exact: true }).click();
    await alice.page.getByRole('article').filter({ hasText: 'Hello from node A' }).waitFor();

    await signUp(bob, b, 'Bob');
    await bob.visit(b.url, `/@alice@${a.domain}`, 'profile-alice-on-a');
    await bob.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await bob.page.getByRole('button', { name: /^(Unfollow|Requested)$/ }).waitFor();
  });

  it('alice exports her account on A: one signed file', async () => {
    await alice.visit(a.url, '/settings');
    const download = alice.page.waitForEvent('download');
    await alice.page.getByRole('button', { name: 'Export my account' }).click();
    const file = await download;
    archivePath = (await file.path()) ?? '';
    await alice.page.getByText(/Archive saved: 1 post/).waitFor();
    const archive = JSON.parse(await readFile(archivePath, 'utf8')) as Record<string, unknown>;
    expect(archive).toMatchObject({
      format: 'swarm-account-archive',
      version: 1,
      nodeDomain: a.domain,
      account: { handle: 'alice' },
    });
    expect(typeof archive.signature).toBe('string');
    expect(archive.followers).toEqual([expect.objectContaining({ address: `bob@${b.domain}` })]);
  });

  it('a wrong password cannot import it on B; the right one does', async () => {
    // A fresh context: B's origin has never seen alice's key.
    const newcomer = await harness.person('alice-on-b');
    await newcomer.visit(b.url, '/import');
    await newcomer.page.getByLabel('Archive file').setInputFiles(archivePath);
    await newcomer.page.getByLabel('Password of the account').fill('not the right password');
    await newcomer.page.getByRole('button', { name: 'Import', exact: true }).click();
    await newcomer.page.getByRole('alert').waitFor();
    await newcomer.shot('import-wrong-password');

    await newcomer.page.getByLabel('Password of the account').fill(PASSWORD);
    await newcomer.page.getByRole('button', { name: 'Import', exact: true }).click();
    await newcomer.page.getByRole('heading', { name: 'Imported @alice' }).waitFor();
    await newcomer.shot('imported');

    // Logging in restores her key from the imported backup; then she moves.
    await newcomer.page.getByRole('link', { name: 'Log in as alice' }).click();
    await newcomer.page.waitForLoadState('networkidle');
    await newcomer.page.getByLabel('Handle', { exact: true }).fill('alice');
    await newcomer.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await newcomer.page.getByRole('button', { name: 'Log in' }).click();
    await newcomer.page.getByRole('button', { name: 'Log out' }).waitFor();
    await newcomer.visit(b.url, '/settings', 'settings-on-b');
    await newcomer.page.getByRole('button', { name: `Move @alice@${a.domain} here` }).click();
    await newcomer.page.getByText(/^Moved:/).waitFor({ timeout: STEP_TIMEOUT_MS * 2 });
    await newcomer.shot('moved');
    expect(newcomer.errors).toEqual([]);
  });

  it("bob's view of alice's old profile shows her new address, and he follows her there", async () => {
    await bob.visit(b.url, `/@alice@${a.domain}`, 'old-profile');
    const note = bob.page.getByRole('note');
    await note.waitFor();
    expect(await note.textContent()).toContain(`has moved to @alice@${b.domain}`);
    await note.getByRole('link').click();
    await bob.page.waitForLoadState('networkidle');
    await bob.page.getByRole('button', { name: 'Unfollow', exact: true }).waitFor();
    await bob.shot('new-profile');
    // And A's own page for alice says so too.
    await alice.visit(a.url, '/@alice', 'old-profile-on-a');
    await alice.page
      .getByRole('note')
      .filter({ hasText: `@alice@${b.domain}` })
      .waitFor();
  });
});
