import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb } from '@swarm/db/testing';
import { createMemoryLimits } from '@swarm/domain';
import type { Db } from '@swarm/db';
import {
  authServicesOf,
  createAuthServices,
  SESSION_TTL_MS,
  type AuthServices,
} from '../src/index.ts';
import { DAY, movableClock } from './helpers.ts';

describe('sessions', () => {
  let db: Db;
  let auth: AuthServices;
  const clock = movableClock();
  let userId: string;

  beforeAll(async () => {
    db = await createTestDb();
    auth = createAuthServices({ db, clock, limits: createMemoryLimits({ clock }) });
    const created = await auth.accounts.createUser({
      handle: 'alice',
      password: 'correct horse battery',
      isAdmin: false,
    });
    if (!created.ok) throw new Error(created.reason.message);
    userId = created.value.user.id;
  });
  afterAll(() => db.close());

  it('issues <id>.<secret> tokens and stores only a hash of the secret', async () => {
    const session = await auth.sessions.create(userId);
    const [id, secret] = session.token.split('.');
    expect(id).toBe(session.sessionId);
    expect(secret).toMatch(/^[a-z2-7]{32}$/);
    const row = await db.prisma.session.findUniqueOrThrow({ where: { id: session.sessionId } });
    expect(row.expiresAt.getTime()).toBe(clock.now().getTime() + SESSION_TTL_MS);
    expect(Buffer.from(row.secretHash).toString('utf8')).not.toContain(secret);
    expect(row.secretHash).toHaveLength(32);

    const validated = await auth.sessions.validate(session.token);
    expect(validated).toMatchObject({
      sessionId: session.sessionId,
      refreshed: false,
      user: { id: userId, handle: 'alice', isAdmin: false, did: null },
    });
  });

  it('rejects tampered, truncated and foreign tokens', async () => {
    const { token } = await auth.sessions.create(userId);
    const [id, secret] = token.split('.') as [string, string];
    const flipped = secret.slice(0, -1) + (secret.endsWith('a') ? 'b' : 'a');
    const other = await auth.sessions.create(userId);
    const otherSecret = other.token.split('.')[1]!;
    for (const bad of [
      `${id}.${flipped}`,
      `${id}.${otherSecret}`, // a real secret of another session
      `${id}.${secret}.x`,
      id,
      `${id}.`,
      `.${secret}`,
      `${id.toUpperCase()}.${secret}`,
      '',
    ]) {
      expect(await auth.sessions.validate(bad), bad).toBeNull();
    }
    expect(await auth.sessions.validate(token)).not.toBeNull();
  });

  it('slides the expiry forward once less than half is left, and expires after 30 idle days', async () => {
    const { token, sessionId, expiresAt } = await auth.sessions.create(userId);

    clock.advance(10 * DAY); // 20 days left: more than half, unchanged
    const early = await auth.sessions.validate(token);
    expect(early).toMatchObject({ refreshed: false, expiresAt });

    clock.advance(6 * DAY); // 14 days left: refreshed to a full 30 days from now
    const late = await auth.sessions.validate(token);
    expect(late?.refreshed).toBe(true);
    expect(late?.expiresAt.getTime()).toBe(clock.now().getTime() + SESSION_TTL_MS);
    const row = await db.prisma.session.findUniqueOrThrow({ where: { id: sessionId } });
    expect(row.expiresAt).toEqual(late?.expiresAt);

    clock.advance(SESSION_TTL_MS - 1);
    expect(await auth.sessions.validate(token)).toMatchObject({ refreshed: true });

    clock.advance(SESSION_TTL_MS); // idle for a whole period: gone, and the row deleted
    expect(await auth.sessions.validate(token)).toBeNull();
    expect(await db.prisma.session.count({ where: { id: sessionId } })).toBe(0);
  });

  it('invalidates one session, all but one, and deletes expired ones', async () => {
    await db.prisma.session.deleteMany();
    const a = await auth.sessions.create(userId);
    const b = await auth.sessions.create(userId);
    const c = await auth.sessions.create(userId);

    await auth.sessions.invalidate(a.sessionId);
    expect(await auth.sessions.validate(a.token)).toBeNull();
    expect(await auth.sessions.invalidateAllOfUser(userId, b.sessionId)).toBe(1);
    expect(await auth.sessions.validate(c.token)).toBeNull();
    expect(await auth.sessions.validate(b.token)).not.toBeNull();

    const old = await auth.sessions.create(userId);
    clock.advance(SESSION_TTL_MS - DAY);
    const fresh = await auth.sessions.create(userId);
    expect(await auth.sessions.validate(b.token)).not.toBeNull(); // refreshed: not expired
    clock.advance(2 * DAY);
    expect(await auth.sessions.deleteExpired()).toBe(1);
    expect(await db.prisma.session.count({ where: { id: old.sessionId } })).toBe(0);
    expect(await auth.sessions.validate(fresh.token)).not.toBeNull();
  });

  it('ends sessions when the user is deleted', async () => {
    const other = await auth.accounts.createUser({
      handle: 'bob_gone',
      password: 'correct horse battery',
      isAdmin: false,
    });
    if (!other.ok) throw new Error(other.reason.message);
    const { token } = await auth.sessions.create(other.value.user.id);
    await db.prisma.user.delete({ where: { id: other.value.user.id } });
    expect(await auth.sessions.validate(token)).toBeNull();
  });
});

describe('authServicesOf', () => {
  it("builds services on the node's limits and sign-up budget: two sets over one context count as one", async () => {
    const db = await createTestDb();
    try {
      const clock = movableClock();
      const node = {
        db,
        clock,
        limits: createMemoryLimits({ clock }),
        config: { signUpLimitPerHour: 1 },
      };
      // As the gateway and the web app of one process would, were each to build its own.
      const [one, other] = [authServicesOf(node), authServicesOf(node)];
      const signUp = (auth: AuthServices, handle: string) =>
        auth.accounts.signUp(
          { handle, displayName: '', password: 'correct horse battery' },
          { clientIp: '10.9.0.1' },
        );
      expect(await signUp(one, 'budget_one')).toMatchObject({ ok: true });
      expect(await signUp(other, 'budget_two')).toMatchObject({
        ok: false,
        reason: { code: 'RATE_LIMITED' },
      });
    } finally {
      await db.close();
    }
  });
});
