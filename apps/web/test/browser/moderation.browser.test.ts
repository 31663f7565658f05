import { describe, expect, it } from 'vitest';
import type { RestartableNode } from '@swarm/testnet';
import { twoNodeSuite, type Person } from './browser-harness.ts';

// Issue #15 in Chromium through the real process: a report naming two posts of one person
// (picked on the report form) goes to the admin queue, which shows both, and the admin acts on
// it (suspension: the user cannot log in, the audit log says who, what and why);
// registrations in each mode (open, approval with its queue, closed with an invite link); a mute
// hides a person from the muter's timeline, and their profile offers "Unmute". Needs `pnpm build`.

const PASSWORD = 'correct horse battery staple';

describe('moderation in a browser', () => {
  let a: RestartableNode;
  let admin: Person;
  let carol: Person;
  let dave: Person;

  twoNodeSuite(
    'moderation',
    { people: ['admin', 'carol', 'dave'], nodes: { env: { SWARM_SIGNUPS_PER_HOUR: '100' } } },
    (started) => {
      ({
        a,
        people: { admin, carol, dave },
      } = started);
    },
  );

  async function fillSignUp(p: Person, handle: string, extra: Record<string, string> = {}) {
    await p.page.getByLabel('Handle', { exact: true }).fill(handle);
    await p.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    for (const [label, value] of Object.entries(extra)) {
      await p.page.getByLabel(label, { exact: true }).fill(value);
    }
    await p.page.getByRole('button', { name: 'Create account' }).click();
  }

  async function signUp(p: Person, handle: string) {
    await p.visit(a.url, '/signup');
    await fillSignUp(p, handle);
    await p.page.getByRole('button', { name: 'Log out' }).waitFor();
  }

  async function logOut(p: Person) {
    await p.page.getByRole('button', { name: 'Log out' }).click();
    await p.page.getByRole('link', { name: 'Log in' }).first().waitFor();
  }

  async function logIn(p: Person, handle: string) {
    await p.visit(a.url, '/login');
    await p.page.getByLabel('Handle', { exact: true }).fill(handle);
    await p.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await p.page.getByRole('button', { name: 'Log in' }).click();
  }

  const card = (p: Person, text: string) => p.page.getByRole('article').filter({ hasText: text });
  /** carol's other post, named in the same report as her first. */
  const second = 'Second batch of cheap watches';

  it('open registrations: the admin, carol and dave sign up; sign-up links to the rules', async () => {
    await signUp(admin, 'root');
    await signUp(carol, 'carol');
    await dave.visit(a.url, '/signup');
    await dave.page.getByRole('link', { name: "this node's rules" }).click();
    await dave.page.getByRole('heading', { name: /^Rules of/ }).waitFor();
    await signUp(dave, 'dave');
  });

  it('a mute hides a person from the muter’s timeline', async () => {
    await carol.visit(a.url, '/');
    await carol.page.getByLabel('Write a post', { exact: true }).fill('Buy cheap watches here');
    await carol.page.getByRole('button', { name: 'Post', exact: true }).click();
    await card(carol, 'Buy cheap watches here').waitFor();
    await carol.page.getByLabel('Write a post', { exact: true }).fill(second);
    await carol.page.getByRole('button', { name: 'Post', exact: true }).click();
    await card(carol, second).waitFor();

    await dave.visit(a.url, '/public');
    await card(dave, 'Buy cheap watches here').waitFor();
    await dave.visit(a.url, '/@carol');
    await dave.page.getByRole('main').getByText('More', { exact: true }).click();
    await dave.page.getByRole('button', { name: 'Mute @carol' }).click();
    await dave.page.waitForURL(`${a.url}/@carol`);
    // Her profile says so and offers to undo it there (issue #22), not "Mute" again.
    await dave.page.getByText('You muted @carol').waitFor();
    await dave.page.getByRole('button', { name: 'Unmute', exact: true }).waitFor();
    expect(await dave.page.getByRole('button', { name: 'Mute @carol' }).count()).toBe(0);
    await dave.visit(a.url, '/public', 'muted');
    await dave.page.getByRole('heading', { level: 1 }).first().waitFor();
    expect(await card(dave, 'Buy cheap watches here').count()).toBe(0);
    await dave.visit(a.url, '/settings/safety');
    await dave.page.getByRole('button', { name: `Unmute carol@${a.domain}` }).waitFor();
  });

  it('report → admin queue → suspension, in the audit log', async () => {
    // dave reports carol's post from her profile's timeline, and ticks her other one too.
    await dave.visit(a.url, '/@carol');
    await card(dave, 'Buy cheap watches here')
      .getByRole('link', { name: /^Report/ })
      .click();
    await dave.page.getByRole('heading', { name: 'Report this post' }).waitFor();
    const posts = dave.page.getByRole('group', { name: 'Which posts?' });
    const first = posts.getByRole('checkbox', { name: /Buy cheap watches here/ });
    const other = posts.getByRole('checkbox', { name: new RegExp(second) });
    await other.waitFor();
    expect(await first.isChecked()).toBe(true);
    expect(await other.isChecked()).toBe(false);
    // On a phone too: each post a row wide enough to tap.
    await dave.page.setViewportSize({ width: 375, height: 740 });
    const row = await posts.locator('label').filter({ hasText: second }).boundingBox();
    expect(row?.height).toBeGreaterThanOrEqual(44);
    expect(row?.width).toBeLessThanOrEqual(375);
    await posts.getByText(second).click();
    expect(await other.isChecked()).toBe(true);
    await dave.shot('report-two-posts');
    await dave.page.setViewportSize({ width: 1100, height: 900 });
    await dave.page.getByLabel('Spam', { exact: true }).check();
    await dave.page.getByLabel('Comment (optional)').fill('watch spam everywhere');
    await dave.page.getByRole('button', { name: 'Send report' }).click();
    const thanks = dave.page.getByText('Thank you: the moderators');
    await thanks.waitFor();
    expect(await thanks.innerText()).toContain('about 2 posts');

    await admin.visit(a.url, '/admin/reports');
    const report = admin.page.getByRole('article').filter({ hasText: 'watch spam everywhere' });
    await report.getByText('Buy cheap watches here').waitFor();
    await report.getByText(second).waitFor();
    await report.getByText('2 posts by').waitFor();
    expect(await report.locator('.reporter').textContent()).toBe('dave');
    // A missing reason is refused clearly (the browser's own check is bypassed).
    await report.getByLabel('Action').selectOption('suspend-user');
    await report.getByLabel('Reason').evaluate((el) => el.removeAttribute('required'));
    await report.getByRole('button', { name: 'Apply' }).click();
    await report.getByText(/give a reason/i).waitFor();
    await report.getByLabel('Action').selectOption('suspend-user');
    await report.getByLabel('Reason').fill('commercial spam');
    await report.getByRole('button', { name: 'Apply' }).click();
    await admin.page.getByText('Done: suspend-user (resolved).').waitFor();

    await admin.visit(a.url, '/admin/audit?q=carol');
    const rows = admin.page.getByRole('row');
    await rows
      .filter({ hasText: 'report.suspend-user' })
      .filter({ hasText: 'commercial spam' })
      .waitFor();
    await rows.filter({ hasText: 'user.suspend' }).first().waitFor();

    // carol is signed out and cannot log in; her profile is gone for others.
    await carol.visit(a.url, '/');
    await carol.page.getByRole('link', { name: 'Log in' }).first().waitFor();
    await logIn(carol, 'carol');
    await carol.page.getByText('This account is suspended').waitFor();
    const profile = await dave.page.request.get(`${a.url}/api/swarm/users/carol`);
    expect(profile.status()).toBe(404);
  });

  it('approval registrations: a reason, the admin queue, then the account works', async () => {
    await admin.visit(a.url, '/admin/registrations');
    await admin.page.getByRole('radio', { name: /^Approval/ }).check();
    await admin.page.getByRole('button', { name: 'Save mode' }).click();
    await admin.page.getByText('Registrations are now: approval.').waitFor();

    await logOut(dave);
    await dave.visit(a.url, '/signup');
    await fillSignUp(dave, 'erin', { 'Why do you want to join?': 'I run the book club' });
    await dave.page.getByText('your sign-up is waiting for a moderator').waitFor();
    await logIn(dave, 'erin');
    await dave.page.getByText('waiting for a moderator’s approval').waitFor();

    await admin.visit(a.url, '/admin/registrations');
    await admin.page.getByText('I run the book club').waitFor();
    await admin.page.getByRole('button', { name: 'Approve @erin' }).click();
    await admin.page.getByText('@erin is approved.').waitFor();

    await logIn(dave, 'erin');
    await dave.page.getByRole('button', { name: 'Log out' }).waitFor();
    await logOut(dave);
  });

  it('closed registrations: refused without an invite, accepted with the link', async () => {
    await admin.visit(a.url, '/admin/registrations');
    await admin.page.getByRole('radio', { name: /^Closed/ }).check();
    await admin.page.getByRole('button', { name: 'Save mode' }).click();
    await admin.page.getByText('Registrations are now: invite.').waitFor();

    await dave.visit(a.url, '/signup');
    await dave.page.getByText('closed to new sign-ups').waitFor();
    await fillSignUp(dave, 'frank', { 'Invite code': 'not-a-real-code' });
    await dave.page.getByText('This invite link is not valid any more.').waitFor();

    await admin.visit(a.url, '/admin/registrations');
    await admin.page.getByRole('button', { name: 'Create invite' }).click();
    const link = await admin.page.getByLabel('New invite link').inputValue();
    expect(link).toContain('/signup?invite=');

    await dave.visit(a.url, link.slice(link.indexOf('/signup')));
    await fillSignUp(dave, 'frank');
    await dave.page.getByRole('button', { name: 'Log out' }).waitFor();
    await logOut(dave);
    // Used up: the same link does not work twice.
    await dave.visit(a.url, link.slice(link.indexOf('/signup')));
    await fillSignUp(dave, 'grace');
    await dave.page.getByText('This invite link is not valid any more.').waitFor();
  });
});
