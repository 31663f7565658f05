import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb } from '@swarm/db/testing';
import { createMemoryLimits } from '@swarm/domain';
import type { Db } from '@swarm/db';
import {
  createAuthServices,
  KEY_BACKUP_MAX_BYTES,
  PASSWORD_MIN_LENGTH,
  WRONG_CREDENTIALS_MESSAGE,
  type AuthServices,
} from '../src/index.ts';
import { browserKey, movableClock } from './helpers.ts';

const PASSWORD = 'correct horse battery';

describe('accounts', () => {
  let db: Db;
  let auth: AuthServices;
  const clock = movableClock();

  beforeAll(async () => {
    db = await createTestDb();
    auth = createAuthServices({
      db,
      clock,
      limits: createMemoryLimits({ clock }),
      loginLimits: { perHandle: { burst: 3, perMinute: 1 }, perIp: { burst: 100, perMinute: 100 } },
    });
  });
  afterAll(() => db.close());

  it('makes the first account that can log in admin; demo accounts do not count', async () => {
    // What SWARM_DEMO_CONTENT creates: bots with no usable password.
    await db.prisma.user.create({
      data: { handle: 'demo_ada', passwordHash: '!demo-account', isBot: true },
    });
    const first = await auth.accounts.signUp({
      handle: 'Alice',
      displayName: '  Alice A.  ',
      password: PASSWORD,
    });
    expect(first).toMatchObject({
      ok: true,
      value: { user: { handle: 'alice', displayName: 'Alice A.', isAdmin: true } },
    });
    const second = await auth.accounts.signUp({
      handle: 'bob',
      displayName: '',
      password: PASSWORD,
    });
    expect(second).toMatchObject({
      ok: true,
      value: { user: { handle: 'bob', displayName: 'bob', isAdmin: false } },
    });
    if (!second.ok) return;
    // Sign-up signs in.
    expect((await auth.sessions.validate(second.value.token))?.user.handle).toBe('bob');
  });

  it('refuses a taken handle (any case) and bad input, changing nothing', async () => {
    const before = await db.prisma.user.count();
    expect(
      await auth.accounts.signUp({ handle: 'ALICE', displayName: 'x', password: PASSWORD }),
    ).toEqual({
      ok: false,
      reason: { code: 'HANDLE_TAKEN', message: 'The handle "alice" is taken.', field: 'handle' },
    });
    for (const input of [
      { handle: 'al', displayName: '', password: PASSWORD },
      { handle: 'al ice', displayName: '', password: PASSWORD },
      { handle: 'carol', displayName: '', password: 'x'.repeat(PASSWORD_MIN_LENGTH - 1) },
      { handle: 'carol', displayName: '', password: 'x'.repeat(257) },
      { handle: 'carol', displayName: 'y'.repeat(65), password: PASSWORD },
      { handle: 'carol', displayName: 'a\nb', password: PASSWORD },
    ]) {
      const result = await auth.accounts.signUp(input);
      expect(result.ok, JSON.stringify(input)).toBe(false);
      if (!result.ok) expect(result.reason.code).toBe('INVALID_REQUEST');
    }
    expect(await db.prisma.user.count()).toBe(before);
  });

  it('stores a browser key at sign-up only when the did is that public key', async () => {
    const key = await browserKey();
    const other = await browserKey();
    const bad = [
      { ...key, did: other.did },
      { ...key, did: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' }, // Ed25519
      { ...key, publicKey: 'not a pem' },
      { ...key, encryptedBackup: 'not json' },
      { ...key, encryptedBackup: JSON.stringify({ ct: 'x'.repeat(KEY_BACKUP_MAX_BYTES) }) },
    ];
    for (const k of bad) {
      const result = await auth.accounts.signUp({
        handle: 'carol',
        displayName: 'Carol',
        password: PASSWORD,
        key: k,
      });
      expect(result).toMatchObject({ ok: false, reason: { code: 'INVALID_REQUEST' } });
    }
    expect(await db.prisma.user.count({ where: { handle: 'carol' } })).toBe(0);

    const carol = await auth.accounts.signUp({
      handle: 'carol',
      displayName: 'Carol',
      password: PASSWORD,
      key,
    });
    expect(carol).toMatchObject({ ok: true, value: { user: { did: key.did } } });
    if (!carol.ok) return;
    expect(await auth.accounts.keyBackup(carol.value.user.id)).toEqual(key);

    // The same key for another account: a conflict, no user made.
    const dave = await auth.accounts.signUp({
      handle: 'dave',
      displayName: '',
      password: PASSWORD,
      key,
    });
    expect(dave).toMatchObject({ ok: false, reason: { code: 'KEY_CONFLICT', field: 'did' } });
    expect(await db.prisma.user.count({ where: { handle: 'dave' } })).toBe(0);
  });

  it('logs in with the right password only, with one message for unknown handles', async () => {
    const right = await auth.accounts.logIn(
      { handle: ' Alice ', password: PASSWORD },
      { clientIp: '10.0.0.1' },
    );
    expect(right).toMatchObject({
      ok: true,
      value: { user: { handle: 'alice' }, keyBackup: null },
    });
    const wrong = await auth.accounts.logIn(
      { handle: 'alice', password: PASSWORD + '!' },
      { clientIp: '10.0.0.1' },
    );
    const unknown = await auth.accounts.logIn(
      { handle: 'nobody_here', password: PASSWORD },
      { clientIp: '10.0.0.1' },
    );
    const demo = await auth.accounts.logIn(
      { handle: 'demo_ada', password: '!demo-account' },
      { clientIp: '10.0.0.1' },
    );
    const expected = {
      ok: false,
      reason: { code: 'UNAUTHORIZED', message: WRONG_CREDENTIALS_MESSAGE, field: 'password' },
    };
    expect(wrong).toEqual(expected);
    expect(unknown).toEqual(expected);
    expect(demo).toEqual(expected);
  });

  it('throttles attempts per handle, refilling with time', async () => {
    const attempt = (password: string, clientIp: string) =>
      auth.accounts.logIn({ handle: 'bob', password }, { clientIp });
    for (let i = 0; i < 3; i++) {
      expect(await attempt('wrong password!', `10.1.0.${i}`)).toMatchObject({
        ok: false,
        reason: { code: 'UNAUTHORIZED' },
      });
    }
    // Spent: even the right password from a new address waits.
    expect(await attempt(PASSWORD, '10.1.0.9')).toMatchObject({
      ok: false,
      reason: { code: 'RATE_LIMITED', details: { retryAfterSec: 60 } },
    });
    clock.advance(60_000);
    expect(await attempt(PASSWORD, '10.1.0.9')).toMatchObject({ ok: true });
  });

  it('throttles attempts per client IP across handles', async () => {
    const tight = createAuthServices({
      db,
      clock,
      limits: createMemoryLimits({ clock }),
      loginLimits: { perHandle: { burst: 100, perMinute: 100 }, perIp: { burst: 2, perMinute: 1 } },
    });
    for (const handle of ['x_one', 'x_two']) {
      expect(
        await tight.accounts.logIn({ handle, password: PASSWORD }, { clientIp: '10.2.0.1' }),
      ).toMatchObject({ ok: false, reason: { code: 'UNAUTHORIZED' } });
    }
    expect(
      await tight.accounts.logIn({ handle: 'alice', password: PASSWORD }, { clientIp: '10.2.0.1' }),
    ).toMatchObject({ ok: false, reason: { code: 'RATE_LIMITED' } });
    expect(
      await tight.accounts.logIn({ handle: 'alice', password: PASSWORD }, { clientIp: '10.2.0.2' }),
    ).toMatchObject({ ok: true });
  });

  it('limits sign-ups per client IP; bad input does not spend the budget', async () => {
    const tight = createAuthServices({
      db,
      clock,
      limits: createMemoryLimits({ clock }),
      signUpLimits: { perIp: { perHour: 2 } },
    });
    const signUp = (handle: string, clientIp: string, password = PASSWORD) =>
      tight.accounts.signUp({ handle, displayName: '', password }, { clientIp });
    // Refused before hashing: free.
    expect(await signUp('su_short', '10.3.0.1', 'short')).toMatchObject({
      ok: false,
      reason: { code: 'INVALID_REQUEST' },
    });
    expect(await signUp('su_one', '10.3.0.1')).toMatchObject({ ok: true });
    expect(await signUp('su_two', '10.3.0.1')).toMatchObject({ ok: true });
    const users = await db.prisma.user.count();
    // 2 an hour: the next one in 30 minutes.
    expect(await signUp('su_three', '10.3.0.1')).toEqual({
      ok: false,
      reason: {
        code: 'RATE_LIMITED',
        message: 'Too many sign-ups from your address; try again in 30 minutes.',
        details: { retryAfterSec: 1800 },
      },
    });
    expect(await db.prisma.user.count()).toBe(users);
    expect(await signUp('su_three', '10.3.0.2')).toMatchObject({ ok: true });
    clock.advance(1_800_000);
    expect(await signUp('su_four', '10.3.0.1')).toMatchObject({ ok: true });
    // Operators and tests calling the service without a client address are not limited.
    for (const handle of ['su_op1', 'su_op2', 'su_op3']) {
      expect(
        await tight.accounts.signUp({ handle, displayName: '', password: PASSWORD }),
      ).toMatchObject({ ok: true });
    }
  });

  it('changes the password: checks the current one, ends the other sessions', async () => {
    const a = await auth.accounts.logIn({ handle: 'carol', password: PASSWORD }, { clientIp: 'c' });
    const b = await auth.accounts.logIn({ handle: 'carol', password: PASSWORD }, { clientIp: 'c' });
    if (!a.ok || !b.ok) throw new Error('login failed');
    expect(a.value.keyBackup?.did).toMatch(/^did:key:zDn/);
    const caller = { userId: a.value.user.id, sessionId: a.value.sessionId };

    expect(
      await auth.accounts.changePassword(caller, {
        currentPassword: 'not the password',
        newPassword: 'a brand new password',
        encryptedBackup: JSON.stringify({ v: 1, reencrypted: true }),
      }),
    ).toMatchObject({ ok: false, reason: { code: 'UNAUTHORIZED' } });
    expect(
      await auth.accounts.changePassword(caller, {
        currentPassword: PASSWORD,
        newPassword: 'short',
      }),
    ).toMatchObject({ ok: false, reason: { code: 'INVALID_REQUEST' } });
    expect(await auth.sessions.validate(b.value.token)).not.toBeNull();

    clock.advance(5 * 60_000); // this file's tight per-handle budget (3) is spent by now
    const backup = JSON.stringify({ v: 1, reencrypted: true });
    expect(
      await auth.accounts.changePassword(caller, {
        currentPassword: PASSWORD,
        newPassword: 'a brand new password',
        encryptedBackup: backup,
      }),
    ).toEqual({ ok: true, value: { endedSessions: 2 } }); // b and the sign-up session
    expect(await auth.sessions.validate(b.value.token)).toBeNull();
    expect(await auth.sessions.validate(a.value.token)).not.toBeNull();
    expect((await auth.accounts.keyBackup(caller.userId))?.encryptedBackup).toBe(backup);
    expect(
      await auth.accounts.logIn({ handle: 'carol', password: PASSWORD }, { clientIp: 'c' }),
    ).toMatchObject({ ok: false });
    expect(
      await auth.accounts.logIn(
        { handle: 'carol', password: 'a brand new password' },
        { clientIp: 'c' },
      ),
    ).toMatchObject({ ok: true });
  });

  it('registers a key once; the same key again is fine, another one a conflict', async () => {
    const user = await db.prisma.user.findUniqueOrThrow({ where: { handle: 'bob' } });
    expect(await auth.accounts.keyBackup(user.id)).toBeNull();
    const key = await browserKey();
    const register = (k: typeof key, currentPassword = PASSWORD) =>
      auth.accounts.registerKey(user.id, { ...k, currentPassword });
    expect(await register({ ...key, did: (await browserKey()).did })).toMatchObject({
      ok: false,
      reason: { code: 'INVALID_REQUEST' },
    });
    // The browser encrypted the backup with the typed password: a wrong one is refused.
    expect(await register(key, 'not the password at all')).toMatchObject({
      ok: false,
      reason: { code: 'UNAUTHORIZED' },
    });
    expect(await auth.accounts.keyBackup(user.id)).toBeNull();
    expect(await register(key)).toEqual({ ok: true, value: key });
    const again = { ...key, encryptedBackup: '{"v":2}' };
    expect(await register(again)).toEqual({ ok: true, value: again });
    expect(await register(await browserKey())).toMatchObject({
      ok: false,
      reason: { code: 'KEY_CONFLICT' },
    });
    expect(await auth.accounts.keyBackup(user.id)).toEqual(again);
  });

  it('creates accounts for operators: explicit admin flag, generated password returned once', async () => {
    const made = await auth.accounts.createUser({ handle: 'op_bot', isAdmin: true });
    expect(made).toMatchObject({ ok: true, value: { user: { handle: 'op_bot', isAdmin: true } } });
    if (!made.ok) return;
    const password = made.value.generatedPassword!;
    expect(password).toMatch(/^[a-z2-7]{24}$/);
    expect(
      await auth.accounts.logIn({ handle: 'op_bot', password }, { clientIp: 'op' }),
    ).toMatchObject({ ok: true });
    const given = await auth.accounts.createUser({
      handle: 'op_user',
      password: PASSWORD,
      isAdmin: false,
    });
    expect(given).toMatchObject({
      ok: true,
      value: { generatedPassword: null, user: { isAdmin: false } },
    });
  });
});
