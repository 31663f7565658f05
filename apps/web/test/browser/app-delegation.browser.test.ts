import { describe, expect, it } from 'vitest';
import type { RestartableNode } from '@swarm/testnet';
import { signUp, twoNodeSuite, type Person } from './browser-harness.ts';

// The consent page signs the person's delegation to the app's key in their browser
// (docs/protocol.md "App delegations"): alice signs up on A (her key is made in this browser),
// registers an app with write and follow scopes, allows it on the consent page, and the app
// exchanges its code. A then publishes the delegation as active, which it does only for one
// whose signature it checked against alice's registered did: only her browser could have made
// it. Revoking the app in Settings revokes the delegation. Needs `pnpm build`.

const OOB = 'urn:ietf:wg:oauth:2.0:oob';

describe('the consent page signs a delegation to the app key', () => {
  let a: RestartableNode;
  let alice: Person;
  let app: { client_id: string; client_secret: string };
  let delegationId = '';

  twoNodeSuite('app-delegation', { people: ['alice'] }, (started) => {
    ({
      a,
      people: { alice },
    } = started);
  });

  const stateOf = async (id: string) => {
    const answer = await fetch(`${a.url}/api/swarm/delegations/${id}`);
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };

  it('signs up alice on A and registers an app that writes and follows', async () => {
    await signUp(alice, a, 'Alice');
    const registered = await fetch(`${a.url}/api/v1/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Delegated app',
        redirect_uris: OOB,
        scopes: 'read write follow',
      }),
    });
    expect(registered.status).toBe(200);
    app = (await registered.json()) as typeof app;
  });

  it('the consent page shows what the app key may do; Allow signs it in this browser', async () => {
    const url = new URL('/oauth/authorize', a.url);
    for (const [key, value] of Object.entries({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: OOB,
      scope: 'read write follow',
    })) {
      url.searchParams.set(key, value);
    }
    await alice.visit(a.url, url.pathname + url.search, 'consent');
    const note = alice.page.getByTestId('oauth-delegation');
    await expect.poll(() => note.innerText()).toContain('like');
    expect(await note.innerText()).toContain('follow');
    delegationId = (await note.getAttribute('data-delegation-id')) ?? '';
    expect(delegationId).toMatch(/^[0-9a-f-]{36}$/);
    // Not published before the person signs it.
    expect((await stateOf(delegationId)).status).toBe(404);

    await alice.page.getByRole('button', { name: 'Allow' }).click();
    const code = await alice.page.getByTestId('oauth-code').innerText();
    await alice.shot('allowed');

    const token = await fetch(`${a.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'authorization_code',
        client_id: app.client_id,
        client_secret: app.client_secret,
        redirect_uri: OOB,
        code,
      }),
    });
    expect(token.status).toBe(200);
    expect(await stateOf(delegationId)).toMatchObject({
      status: 200,
      body: { id: delegationId, state: 'active' },
    });
  });

  it('revoking the app in Settings revokes its delegation', async () => {
    await alice.visit(a.url, '/settings/apps', 'authorized-apps');
    await alice.page.getByRole('button', { name: 'Revoke' }).first().click();
    await expect.poll(() => alice.page.getByRole('status').innerText()).toContain('Revoked');
    expect(await stateOf(delegationId)).toMatchObject({
      status: 200,
      body: { state: 'revoked' },
    });
  });
});
