import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort, nodeOnPort, type RestartableNode } from '@swarm/testnet';
import { launchBrowser, signUp, type BrowserHarness, type Person } from './browser-harness.ts';

// Settings → Development in Chromium (docs/clients.md "Bots"): a person makes an application for
// their own account, sees its client key, secret and access token once, and the token opens the
// client API as that person (masto.js with such a token: packages/client-api/test/
// accounts.process.test.ts); the bot switch in Settings marks the account a bot for apps;
// deleting the application ends its token. One embedded node. Needs `pnpm build`.

describe('the Development page', () => {
  let dataDir: string;
  let node: RestartableNode;
  let harness: BrowserHarness;
  let robo: Person;
  let token = '';

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'swarm-browser-development-'));
    node = nodeOnPort({ dataDir, port: await freePort() });
    harness = await launchBrowser('development');
    await node.start();
    robo = await harness.person('robo');
  }, 300_000);

  afterAll(async () => {
    await harness?.close();
    await node?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  beforeEach(({ onTestFailed }) => {
    onTestFailed(async () => {
      await robo?.shot('failed').catch(() => undefined);
      console.error(`--- node output ---\n${node.output()}`);
    });
  });

  afterEach(() => {
    expect(harness.takeErrors(), 'console or page errors in the browser').toEqual([]);
  });

  it('makes an application and shows its secrets once', async () => {
    await signUp(robo, node, 'Robo');
    await robo.visit(node.url, '/settings', 'settings');
    await robo.page.getByRole('link', { name: 'Development' }).click();
    await robo.page.waitForURL(`${node.url}/settings/development`);
    await robo.page.getByRole('heading', { name: 'Development', level: 1 }).waitFor();
    await robo.page.getByText('You have made no application.').waitFor();
    await robo.page.getByLabel('Application name').fill('Weather bot');
    // read, write and follow are ticked; push is not.
    expect(await robo.page.getByLabel(/^write/).isChecked()).toBe(true);
    expect(await robo.page.getByLabel(/^push/).isChecked()).toBe(false);
    await robo.page.getByRole('button', { name: 'Create application' }).click();
    await robo.page.getByRole('heading', { name: 'Weather bot is ready' }).waitFor();
    token = (await robo.page.getByTestId('access-token').textContent()) ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(await robo.page.getByTestId('client-secret').textContent()).toMatch(/^\S{40,}$/);
    await robo.shot('created');
    // The form keeps its default scopes for the next application.
    expect(await robo.page.getByLabel(/^read/).isChecked()).toBe(true);
    // Listed without its secrets; a reload shows them no more.
    await robo.visit(node.url, '/settings/development', 'listed');
    const listed = robo.page.getByTestId('developer-apps');
    await listed.getByRole('heading', { name: 'Weather bot' }).waitFor();
    expect(await listed.textContent()).toContain('read write follow');
    expect(await robo.page.getByTestId('access-token').count()).toBe(0);
  }, 90_000);

  it('refuses a blank name on the page', async () => {
    await robo.visit(node.url, '/settings/development');
    await robo.page.getByLabel('Application name').fill('   ');
    await robo.page.getByRole('button', { name: 'Create application' }).click();
    await robo.page
      .getByRole('alert')
      .filter({ hasText: 'Give the application a name.' })
      .waitFor();
  });

  it('the token opens the client API; the bot switch shows as `bot`', async () => {
    const me = () =>
      fetch(`${node.url}/api/v1/accounts/verify_credentials`, {
        headers: { authorization: `Bearer ${token}` },
      }).then((r) => r.json() as Promise<{ username: string; bot: boolean }>);
    expect(await me()).toMatchObject({ username: 'robo', bot: false });
    await robo.visit(node.url, '/settings');
    await robo.page.getByLabel('This account is a bot').check();
    await robo.page.getByRole('button', { name: 'Save profile' }).click();
    await robo.page.getByRole('status').filter({ hasText: 'Profile saved.' }).waitFor();
    expect((await me()).bot).toBe(true);
    // An app's change shows on the page.
    const updated = await fetch(`${node.url}/api/v1/accounts/update_credentials`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ bot: false }),
    });
    expect(updated.status).toBe(200);
    await robo.visit(node.url, '/settings');
    expect(await robo.page.getByLabel('This account is a bot').isChecked()).toBe(false);
  }, 90_000);

  it('deleting the application ends its token', async () => {
    await robo.visit(node.url, '/settings/development');
    await robo.page.getByRole('button', { name: 'Delete and revoke' }).click();
    await robo.page.getByRole('status').filter({ hasText: 'Deleted: Weather bot' }).waitFor();
    await robo.page.getByText('You have made no application.').waitFor();
    const response = await fetch(`${node.url}/api/v1/accounts/verify_credentials`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(401);
  }, 60_000);
});
