import { describe, expect, it } from 'vitest';
import { jsonLines, type RestartableNode } from '@swarm/testnet';
import { signUp, STEP_TIMEOUT_MS, twoNodeSuite, type Person } from './browser-harness.ts';

// The consent page signs the person's delegation to the app's key in their browser
// (docs/protocol.md "App delegations"): alice signs up on A (her key is made in this browser)
// and follows bob on B; an app with write and follow scopes is allowed on the consent page and
// exchanges its code. A then publishes the delegation as active, which it does only for one
// whose signature it checked against alice's registered did: only her browser could have made
// it. The app favourites bob's post through the client API, and the like reaches B signed by the
// app key under that delegation. With the same token, once bob follows alice: the app's
// followers-only post reaches B by its push (A serves no such post to peers' reads) under the
// delegation; its unfollow and follow of bob reach B, whose log names the delegation each was
// taken under (alice's own follow, from our pages, went unsigned); its deletion removes B's
// copy. Revoking the app in Settings revokes the delegation. Needs `pnpm build`.

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

  const bearer = () => ({ authorization: `Bearer ${accessToken}` });
  const appPost = 'From my app, for my followers only';
  /** The app's followers-only status: its client API id, and its post id on A. */
  const posted = { id: '', postId: '' };
  /** Bob's home on B showing the app's post. */
  const appPostOnB = () => bob.page.getByRole('article').filter({ hasText: appPost });
  /** Alice's deliveries on A of `label` to B that were delivered. */
  const deliveredToB = (label: string) =>
    alice.page
      .getByRole('listitem')
      // Case-sensitive: "Follow to" is not found in "Unfollow to".
      .filter({ hasText: new RegExp(`${label} to ${b.domain}`) })
      .filter({ hasText: 'Delivered' });

  it(
    'bob follows alice, so B gets her pushes',
    async () => {
      await bob.visit(b.url, `/@alice@${a.domain}`, 'profile-alice');
      await bob.page.getByRole('button', { name: 'Follow', exact: true }).click();
      await bob.page.getByRole('button', { name: /^(Unfollow|Requested)$/ }).waitFor();
      await bob.visitUntil(b.url, `/@alice@${a.domain}`, () =>
        bob.page.getByRole('button', { name: 'Unfollow', exact: true }),
      );
    },
    STEP_MS,
  );

  it(
    'the app posts for alice’s followers; B holds the copy A pushed, signed under the delegation',
    async () => {
      const written = await fetch(`${a.url}/api/v1/statuses`, {
        method: 'POST',
        headers: { ...bearer(), 'content-type': 'application/json' },
        body: JSON.stringify({ status: appPost, visibility: 'private' }),
      });
      expect(written.status, await written.clone().text()).toBe(200);
      const status = (await written.json()) as { id: string; url: string; visibility: string };
      expect(status.visibility).toBe('private');
      posted.id = status.id;
      posted.postId = /[0-9a-f-]{36}$/.exec(status.url)?.[0] ?? '';
      expect(posted.postId).not.toBe('');
      // A never serves a followers-only post to peers' reads, so only the push can bring it to
      // B; and B pinned alice's did when it took the app's like, so it takes her pushes only
      // signed: by her own key (which A does not hold) or by the app key under her delegation.
      await bob.visitUntil(b.url, '/', appPostOnB, 4 * STEP_TIMEOUT_MS);
      await bob.shot('app-post-pushed');
      // B's log of the push names the delegation it took the post under.
      const stored = b
        .output()
        .split('\n')
        .filter((line) => line.includes('pushed post stored') && line.includes(posted.postId));
      expect(stored).toHaveLength(1);
      expect(stored[0]).toContain(delegationId);
      await alice.visitUntil(a.url, '/deliveries', () => deliveredToB('Post to followers'));
    },
    STEP_MS,
  );

  it(
    'the app unfollows and follows bob again; B takes both, signed under the delegation',
    async () => {
      const followersOfBob = async () => {
        const answer = await fetch(`${b.url}/api/swarm/users/bob?limit=0`);
        return ((await answer.json()) as { profile: { followersCount: number } }).profile
          .followersCount;
      };
      const found = await fetch(
        `${a.url}/api/v1/accounts/lookup?acct=${encodeURIComponent(`bob@${b.domain}`)}`,
        { headers: bearer() },
      );
      expect(found.status, await found.clone().text()).toBe(200);
      const bobId = ((await found.json()) as { id: string }).id;
      expect(await followersOfBob()).toBe(1);

      const unfollowed = await fetch(`${a.url}/api/v1/accounts/${bobId}/unfollow`, {
        method: 'POST',
        headers: bearer(),
      });
      expect(unfollowed.status, await unfollowed.clone().text()).toBe(200);
      expect(await unfollowed.json()).toMatchObject({ following: false });
      await expect.poll(followersOfBob, { timeout: 60_000, interval: 1_000 }).toBe(0);

      const followed = await fetch(`${a.url}/api/v1/accounts/${bobId}/follow`, {
        method: 'POST',
        headers: bearer(),
      });
      expect(followed.status, await followed.clone().text()).toBe(200);
      await expect.poll(followersOfBob, { timeout: 60_000, interval: 1_000 }).toBe(1);
      // Both were sent (signed by the app key: B lists `delegations`, the app may follow) and
      // B answered them with success.
      await alice.visitUntil(a.url, '/deliveries', () => deliveredToB('Unfollow'));
      await alice.visitUntil(
        a.url,
        '/deliveries',
        () => deliveredToB('Follow').nth(1),
        4 * STEP_TIMEOUT_MS,
      );
      // B's log says what vouched for each of alice's follows it took: her first, from our
      // pages, nothing but A; the app's unfollow and follow, the app key under her delegation.
      const accepted = (msg: string) =>
        jsonLines(b.output())
          .filter((line) => line.msg === msg && line.actor === `alice@${a.domain}`)
          .map(({ target, signedBy, delegation }) => ({ target, signedBy, delegation }));
      await expect
        .poll(() => accepted('follow accepted'))
        .toEqual([
          { target: 'bob', signedBy: 'unsigned', delegation: undefined },
          { target: 'bob', signedBy: 'delegation', delegation: delegationId },
        ]);
      expect(accepted('unfollow accepted')).toEqual([
        { target: 'bob', signedBy: 'delegation', delegation: delegationId },
      ]);
    },
    STEP_MS,
  );

  it(
    'the app deletes its status; B removes its copy on the deletion signed under the delegation',
    async () => {
      const deleted = await fetch(`${a.url}/api/v1/statuses/${posted.id}`, {
        method: 'DELETE',
        headers: bearer(),
      });
      expect(deleted.status, await deleted.clone().text()).toBe(200);
      // Without a delegation A would delete it here only: B's copy goes only on a deletion
      // statement the app key signed and alice's did vouches for.
      await expect
        .poll(
          async () => {
            await bob.visit(b.url, '/');
            return appPostOnB().count();
          },
          { timeout: 4 * STEP_TIMEOUT_MS, interval: 1_000 },
        )
        .toBe(0);
      await bob.shot('app-post-deleted');
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
