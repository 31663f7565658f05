import { describe, expect, it } from 'vitest';
import type { RestartableNode } from '@swarm/testnet';
import { signUp, twoNodeSuite, type Person } from './browser-harness.ts';

// The consent page signs the person's delegation to the app's key in their browser
// (docs/protocol.md "App delegations"): alice signs up on A (her key is made in this browser)
// and follows bob on B; an app with write and follow scopes is allowed on the consent page and
// exchanges its code. A then publishes the delegation as active, which it does only for one
// whose signature it checked against alice's registered did: only her browser could have made
// it. The app favourites bob's post through the client API, and the like reaches B signed by the
// app key under that delegation. Revoking the app in Settings revokes the delegation. Needs
// `pnpm build`.

const OOB = 'urn:ietf:wg:oauth:2.0:oob';
/** Each step on a busy machine: two nodes and a browser share it. */
const STEP_MS = 180_000;

describe('the consent page signs a delegation to the app key', () => {
  let a: RestartableNode;
  let b: RestartableNode;
  let alice: Person;
  let bob: Person;
  let accessToken = '';
  const text = 'Like me from an app';
  let app: { client_id: string; client_secret: string };
  let delegationId = '';

  twoNodeSuite('app-delegation', { people: ['alice', 'bob'] }, (started) => {
    ({
      a,
      b,
      people: { alice, bob },
    } = started);
  });

  const stateOf = async (id: string) => {
    const answer = await fetch(`${a.url}/api/swarm/delegations/${id}`);
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };

  it(
    'signs up alice on A and bob on B; alice follows bob, who posts',
    async () => {
      await signUp(alice, a, 'Alice');
      await signUp(bob, b, 'Bob');
      await alice.visit(a.url, `/@bob@${b.domain}`, 'profile-bob');
      await alice.page.getByRole('button', { name: 'Follow', exact: true }).click();
      await alice.page.getByRole('button', { name: /^(Unfollow|Requested)$/ }).waitFor();
      await bob.visit(b.url, '/');
      await bob.page.getByLabel('Write a post', { exact: true }).fill(text);
      await bob.page.getByRole('button', { name: 'Post', exact: true }).click();
      await bob.page.getByRole('article').filter({ hasText: text }).first().waitFor();
    },
    STEP_MS,
  );

  it(
    'registers an app that writes and follows',
    async () => {
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
    },
    STEP_MS,
  );

  it(
    'the consent page shows what the app key may do; Allow signs it in this browser',
    async () => {
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
      accessToken = ((await token.json()) as { access_token: string }).access_token;
      expect(await stateOf(delegationId)).toMatchObject({
        status: 200,
        body: { id: delegationId, state: 'active' },
      });
    },
    STEP_MS,
  );

  it(
    'the app favourites bob’s post; the like reaches B signed by the app key',
    async () => {
      const bearer = { authorization: `Bearer ${accessToken}` };
      let statusId = '';
      // Bob's post reaches A by its push (A's outbox worker), then the app's home timeline.
      await expect
        .poll(
          async () => {
            const home = await fetch(`${a.url}/api/v1/timelines/home?limit=40`, {
              headers: bearer,
            });
            const statuses = (await home.json()) as { id: string; content: string }[];
            statusId = statuses.find((s) => s.content.includes(text))?.id ?? '';
            return statusId;
          },
          { timeout: 60_000, interval: 1_000 },
        )
        .not.toBe('');
      const liked = await fetch(`${a.url}/api/v1/statuses/${statusId}/favourite`, {
        method: 'POST',
        headers: bearer,
      });
      expect(liked.status, await liked.clone().text()).toBe(200);
      expect(await liked.json()).toMatchObject({ favourited: true });
      // B counts it: it took the app key's signature under alice's delegation.
      await expect
        .poll(
          async () => {
            const timeline = await fetch(`${b.url}/api/swarm/timeline?limit=20`);
            const { posts } = (await timeline.json()) as {
              posts: { content: string; likeCount: number }[];
            };
            return posts.find((p) => p.content.includes(text))?.likeCount;
          },
          { timeout: 30_000, interval: 1_000 },
        )
        .toBe(1);
    },
    STEP_MS,
  );

  it(
    'revoking the app in Settings revokes its delegation',
    async () => {
      await alice.visit(a.url, '/settings/apps', 'authorized-apps');
      await alice.page.getByRole('button', { name: 'Revoke' }).first().click();
      await expect.poll(() => alice.page.getByRole('status').innerText()).toContain('Revoked');
      expect(await stateOf(delegationId)).toMatchObject({
        status: 200,
        body: { state: 'revoked' },
      });
    },
    STEP_MS,
  );
});
