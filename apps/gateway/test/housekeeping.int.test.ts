import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authServicesOf, SESSION_TTL_MS } from '@swarm/auth';
import { createTestNode, type TestNode } from './harness.ts';
import { createHousekeeping } from '../src/housekeeping.ts';

describe('housekeeping', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await createTestNode();
  });
  afterAll(() => t.close());

  it('removes expired sessions and keeps live ones', async () => {
    const auth = authServicesOf(t.node);
    const created = await auth.accounts.createUser({
      handle: 'alice',
      password: 'correct horse battery',
      isAdmin: false,
    });
    if (!created.ok) throw new Error(created.reason.message);
    const userId = created.value.user.id;
    const old = await auth.sessions.create(userId);
    t.clock.advance(SESSION_TTL_MS + 1);
    const fresh = await auth.sessions.create(userId);

    const housekeeping = createHousekeeping({ node: t.node, sessions: auth.sessions });
    expect(await housekeeping.runOnce()).toEqual({ expiredSessions: 1 });
    expect(await t.node.db.prisma.session.count()).toBe(1);
    expect(await auth.sessions.validate(fresh.token)).not.toBeNull();
    expect(await auth.sessions.validate(old.token)).toBeNull();
    expect(await housekeeping.runOnce()).toEqual({ expiredSessions: 0 });
  });
});
