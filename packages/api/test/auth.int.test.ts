import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LOGIN_LIMITS, WRONG_CREDENTIALS_MESSAGE, type AuthServices } from '@swarm/auth';
import {
  browserKey,
  createNodeWithAuth,
  tokenCaller,
  trpcFailure,
  type TestNode,
} from './harness.ts';

// Accounts and settings through the front door (createCaller) on a real node with its own
// database. Sessions come from tokens exactly as the web hook makes them: validate, then call.

const PASSWORD = 'correct horse battery';
let t: TestNode;
let auth: AuthServices;

beforeAll(async () => {
  ({ t, auth } = await createNodeWithAuth());
});
afterAll(() => t.close());

/** A caller as the browser holding `token` (or none) from `clientIp`. */
const caller = (token?: string, clientIp = '192.0.2.1') =>
  tokenCaller(t.node, auth, token, clientIp);

/** The TRPCError a call fails with (the test fails when it succeeds). */
const failure = trpcFailure;

describe('auth procedures', () => {
  let aliceToken: string;

  it('signs up: the first account is admin, the next is not; me() shows who is signed in', async () => {
    const anonymous = await caller();
    expect(await anonymous.auth.me()).toBeNull();
    const key = await browserKey();
    const alice = await anonymous.auth.signUp({
      handle: 'Alice',
      displayName: 'Alice',
      password: PASSWORD,
      key,
    });
    if (alice.pending) throw new Error('alice waits for approval');
    expect(alice.user).toMatchObject({ handle: 'alice', isAdmin: true, did: key.did });
    expect(alice.expiresAt.getTime()).toBeGreaterThan(t.clock.now().getTime());
    aliceToken = alice.token;
    expect(await (await caller(alice.token)).auth.me()).toMatchObject({ handle: 'alice' });

    const bob = await anonymous.auth.signUp({
      handle: 'bob',
      displayName: 'Bob',
      password: PASSWORD,
    });
    expect(bob.user).toMatchObject({ handle: 'bob', isAdmin: false, did: null });
  });

  it('refuses a taken handle with CONFLICT and bad input with BAD_REQUEST, creating nobody', async () => {
    const before = await t.node.db.prisma.user.count();
    const anonymous = await caller();
    expect(
      await failure(
        anonymous.auth.signUp({ handle: 'ALICE', displayName: '', password: PASSWORD }),
      ),
    ).toEqual({ code: 'CONFLICT', message: 'The handle "alice" is taken.', field: 'handle' });
    const bad = [
      { handle: 'a', displayName: '', password: PASSWORD },
      { handle: 'no/slash', displayName: '', password: PASSWORD },
      { handle: 'carol', displayName: '', password: 'short' },
      { handle: 'carol', displayName: 'x'.repeat(5000), password: PASSWORD },
      { handle: 42, displayName: '', password: PASSWORD },
    ];
    for (const input of bad) {
      const { code, message } = await failure(anonymous.auth.signUp(input as never));
      expect(code, JSON.stringify(input)).toBe('BAD_REQUEST');
      expect(message).not.toMatch(/^\[|\{/); // a sentence, not a JSON dump
    }
    const { message } = await failure(
      anonymous.auth.signUp({ handle: 'carol', displayName: '', password: 'short' }),
    );
    expect(message).toBe('Password needs at least 10 characters.');
    expect(await t.node.db.prisma.user.count()).toBe(before);
  });

  it('logs in with the right password (returning the key backup), refuses a wrong one generically', async () => {
    const anonymous = await caller();
    const ok = await anonymous.auth.logIn({ handle: 'alice', password: PASSWORD });
    expect(ok.user.handle).toBe('alice');
    expect(ok.keyBackup?.did).toMatch(/^did:key:zDn/);
    expect(await (await caller(ok.token)).auth.me()).toMatchObject({ handle: 'alice' });

    const wrong = await failure(
      anonymous.auth.logIn({ handle: 'alice', password: 'nope nope nope' }),
    );
    const unknown = await failure(anonymous.auth.logIn({ handle: 'zed', password: PASSWORD }));
    expect(wrong).toEqual({
      code: 'UNAUTHORIZED',
      message: WRONG_CREDENTIALS_MESSAGE,
      field: 'password',
    });
    expect(unknown).toEqual(wrong);
  });

  it('throttles a handle after repeated failures with TOO_MANY_REQUESTS, then lets it in again', async () => {
    const { burst } = DEFAULT_LOGIN_LIMITS.perHandle;
    for (let i = 0; i < burst; i++) {
      // Different addresses: the per-handle budget is what runs out.
      const c = await caller(undefined, `198.51.100.${i}`);
      expect((await failure(c.auth.logIn({ handle: 'bob', password: 'guess ' + i }))).code).toBe(
        'UNAUTHORIZED',
      );
    }
    const c = await caller(undefined, '198.51.100.200');
    const throttled = await failure(c.auth.logIn({ handle: 'bob', password: PASSWORD }));
    expect(throttled.code).toBe('TOO_MANY_REQUESTS');
    expect(throttled.message).toMatch(/try again in \d+ s/);
    t.clock.advance(60_000);
    expect((await c.auth.logIn({ handle: 'bob', password: PASSWORD })).user.handle).toBe('bob');
  });

  it('logs out: the session ends, the token no longer works', async () => {
    const { token } = await (await caller()).auth.logIn({ handle: 'alice', password: PASSWORD });
    const signedIn = await caller(token);
    await signedIn.auth.logOut();
    expect(await auth.sessions.validate(token)).toBeNull();
    expect(await (await caller(token)).auth.me()).toBeNull();
    // Signed out already: still fine.
    expect(await (await caller()).auth.logOut()).toEqual({ ok: true });
  });

  it('changes the password: wrong current one refused, other sessions end, this one stays', async () => {
    const backup = JSON.stringify({ v: 1, reencrypted: true });
    const other = await (await caller()).auth.logIn({ handle: 'alice', password: PASSWORD });
    const me = await caller(aliceToken);
    expect(
      await failure(
        me.auth.changePassword({
          currentPassword: 'not it at all',
          newPassword: 'new password 123',
          encryptedBackup: backup,
        }),
      ),
    ).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(
      await failure(
        me.auth.changePassword({
          currentPassword: PASSWORD,
          newPassword: 'short',
          encryptedBackup: backup,
        }),
      ),
    ).toMatchObject({ code: 'BAD_REQUEST' });
    // The rule lives in the service, not in a form: over /trpc a change without the
    // re-encrypted backup is refused too, and the old password still works.
    for (const encryptedBackup of [null, undefined]) {
      expect(
        await failure(
          me.auth.changePassword({
            currentPassword: PASSWORD,
            newPassword: 'new password 123',
            encryptedBackup,
          }),
        ),
      ).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/key backup/) });
    }
    await (await caller()).auth.logIn({ handle: 'alice', password: PASSWORD });
    expect(await auth.sessions.validate(other.token)).not.toBeNull();

    await me.auth.changePassword({
      currentPassword: PASSWORD,
      newPassword: 'new password 123',
      encryptedBackup: backup,
    });
    expect(await auth.sessions.validate(other.token)).toBeNull();
    expect(await (await caller(aliceToken)).auth.keyBackup()).toMatchObject({
      encryptedBackup: backup,
    });
    expect(
      (await failure((await caller()).auth.logIn({ handle: 'alice', password: PASSWORD }))).code,
    ).toBe('UNAUTHORIZED');
    await (await caller()).auth.logIn({ handle: 'alice', password: 'new password 123' });
    expect(
      (
        await failure(
          (await caller()).auth.changePassword({ currentPassword: 'a', newPassword: 'b' }),
        )
      ).code,
    ).toBe('UNAUTHORIZED');
  });

  it('registers a key once: CONFLICT for a different one; the handle is then published for gossip', async () => {
    const { token } = await (await caller()).auth.logIn({ handle: 'bob', password: PASSWORD });
    const bob = await caller(token);
    expect(await bob.auth.keyBackup()).toBeNull();
    const key = await browserKey();
    const mismatched = await failure(
      bob.auth.registerKey({ ...key, did: (await browserKey()).did, currentPassword: PASSWORD }),
    );
    expect(mismatched).toEqual({
      code: 'BAD_REQUEST',
      message: 'The did does not belong to the public key.',
      field: 'did',
    });
    expect(
      (await failure(bob.auth.registerKey({ ...key, currentPassword: 'wrong password!' }))).code,
    ).toBe('UNAUTHORIZED');
    expect(await bob.auth.registerKey({ ...key, currentPassword: PASSWORD })).toEqual(key);
    expect(await (await caller(token)).auth.me()).toMatchObject({ did: key.did });
    expect(await bob.auth.keyBackup()).toEqual(key);
    expect(
      await failure(bob.auth.registerKey({ ...(await browserKey()), currentPassword: PASSWORD })),
    ).toMatchObject({
      code: 'CONFLICT',
    });
    // Alice's key for bob: taken by another account.
    const alicesKey = await (await caller(aliceToken)).auth.keyBackup();
    expect(
      (await failure(bob.auth.registerKey({ ...alicesKey!, currentPassword: PASSWORD }))).code,
    ).toBe('CONFLICT');

    // The node publishes local users with a did as its own handle entries.
    await t.node.gossip.syncLocalHandles();
    const entry = await t.node.db.prisma.handleRegistryEntry.findUnique({
      where: { handle_nodeDomain: { handle: 'bob', nodeDomain: 'alpha.test' } },
    });
    expect(entry).toMatchObject({ did: key.did, source: 'local' });
  });

  it('needs a session for the signed-in procedures', async () => {
    const anonymous = await caller();
    const key = await browserKey();
    for (const call of [
      () => anonymous.auth.keyBackup(),
      () => anonymous.auth.registerKey({ ...key, currentPassword: PASSWORD }),
      () => anonymous.auth.changePassword({ currentPassword: PASSWORD, newPassword: PASSWORD }),
      () => anonymous.settings.get(),
    ]) {
      expect((await failure(call())).code).toBe('UNAUTHORIZED');
    }
  });
});

describe('settings procedures', () => {
  it('reads and updates the profile; bad URLs and lengths are refused, nothing changed', async () => {
    const { token } = await (await caller()).auth.logIn({ handle: 'bob', password: PASSWORD });
    const bob = await caller(token);
    expect(await bob.settings.get()).toEqual({
      handle: 'bob',
      displayName: 'Bob',
      bio: '',
      avatarUrl: null,
      headerUrl: null,
      website: null,
      isNsfw: false,
      showNsfw: false,
      isBot: false,
    });
    const update = {
      displayName: ' Bob B. ',
      bio: 'Hello from the swarm.',
      avatarUrl: 'https://img.example/bob.png',
      headerUrl: '',
      website: 'http://bob.example/',
      isNsfw: false,
      showNsfw: true,
      isBot: true,
    };
    const updated = await bob.settings.update(update);
    expect(updated).toEqual({
      handle: 'bob',
      displayName: 'Bob B.',
      bio: 'Hello from the swarm.',
      avatarUrl: 'https://img.example/bob.png',
      headerUrl: null,
      website: 'http://bob.example/',
      isNsfw: false,
      showNsfw: true,
      isBot: true,
    });
    // Left as it is when a form does not show the switch.
    const { isBot: _omitted, ...withoutBot } = update;
    expect((await bob.settings.update(withoutBot)).isBot).toBe(true);
    expect(await bob.settings.get()).toEqual(updated);
    expect(await (await caller(token)).auth.me()).toMatchObject({
      displayName: 'Bob B.',
      showNsfw: true,
      avatarUrl: 'https://img.example/bob.png',
    });

    for (const [change, message] of [
      [
        { website: 'javascript:alert(1)' },
        'Website must be an http(s) URL of at most 2048 characters.',
      ],
      [
        { avatarUrl: 'ftp://img.example/a.png' },
        'Avatar URL must be an http(s) URL of at most 2048 characters.',
      ],
      [
        { headerUrl: '/relative.png' },
        'Header URL must be an http(s) URL of at most 2048 characters.',
      ],
      [{ bio: 'x'.repeat(501) }, 'Bio may have at most 500 characters.'],
      [{ displayName: 'y'.repeat(65) }, 'Display name may have at most 64 characters.'],
    ] as const) {
      expect(await failure(bob.settings.update({ ...update, ...change }))).toEqual({
        code: 'BAD_REQUEST',
        message,
        field: Object.keys(change)[0],
      });
    }
    expect(await bob.settings.get()).toEqual(updated);
  });
});
