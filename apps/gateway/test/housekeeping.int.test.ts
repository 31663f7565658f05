import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authServicesOf, SESSION_TTL_MS } from '@swarm/auth';
import { UPLOADS } from '@swarm/domain';
import { createTestNode, smallPng, type TestNode } from './harness.ts';
import { createHousekeeping } from '../src/housekeeping.ts';

describe('housekeeping', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await createTestNode();
  });
  afterAll(() => t.close());

  /** The id of a new person `handle`. */
  async function person(handle: string): Promise<string> {
    const created = await authServicesOf(t.node).accounts.createUser({
      handle,
      password: 'correct horse battery',
      isAdmin: false,
    });
    if (!created.ok) throw new Error(created.reason.message);
    return created.value.user.id;
  }

  it('removes expired sessions and keeps live ones', async () => {
    const auth = authServicesOf(t.node);
    const userId = await person('alice');
    const old = await auth.sessions.create(userId);
    t.clock.advance(SESSION_TTL_MS + 1);
    const fresh = await auth.sessions.create(userId);

    const housekeeping = createHousekeeping({ node: t.node, sessions: auth.sessions });
    expect(await housekeeping.runOnce()).toMatchObject({ expiredSessions: 1, uploads: 0 });
    expect(await t.node.db.prisma.session.count()).toBe(1);
    expect(await auth.sessions.validate(fresh.token)).not.toBeNull();
    expect(await auth.sessions.validate(old.token)).toBeNull();
    expect(await housekeeping.runOnce()).toMatchObject({ expiredSessions: 0, uploads: 0 });
  });

  it('removes apps’ idempotency keys of posts past the hour, and keeps younger ones', async () => {
    const auth = authServicesOf(t.node);
    const userId = await person('erin');
    const { postKeys } = t.node.actions;
    const post = (text: string) => async () => {
      const made = await t.node.actions.posts.create(userId, { content: text });
      return made.ok ? { ok: true as const, value: made.value.post.id } : made;
    };
    const first = await postKeys.once(userId, 'old', post('an old one'));
    t.clock.advance(59 * 60_000);
    await postKeys.once(userId, 'young', post('a young one'));
    t.clock.advance(2 * 60_000);

    const housekeeping = createHousekeeping({ node: t.node, sessions: auth.sessions });
    expect((await housekeeping.runOnce()).postKeys).toBe(1);
    const left = await t.node.db.prisma.postIdempotencyKey.findMany({ where: { userId } });
    expect(left.map((k) => k.key)).toEqual(['young']);
    // The post stays; only its key is gone (a retry now would post again).
    expect(first.ok && (await t.node.db.prisma.post.count({ where: { id: first.value } }))).toBe(1);
  });

  it('gathers the embedded database’s planner statistics (Postgres does so by itself)', async () => {
    const auth = authServicesOf(t.node);
    const authorId = await person('dora');
    await t.node.db.prisma.post.createMany({
      data: Array.from({ length: 300 }, (_, i) => ({ authorId, content: `post ${i}` })),
    });
    const estimate = async () => {
      const rows = await t.node.db.prisma.$queryRaw<{ reltuples: number }[]>`
        SELECT reltuples::float8 AS reltuples FROM pg_class WHERE relname = 'posts'`;
      return Number(rows[0]!.reltuples);
    };
    const housekeeping = createHousekeeping({ node: t.node, sessions: auth.sessions });
    const { statistics } = await housekeeping.runOnce();
    expect(statistics).toBe(t.node.db.kind === 'pglite');
    if (statistics) expect(await estimate()).toBeGreaterThanOrEqual(300);
  });

  it('removes photos never posted after a day, and those of deleted posts', async () => {
    const auth = authServicesOf(t.node);
    const ownerId = await person('bob');
    const { uploads } = t.node;
    const upload = async () => {
      const result = await uploads.accept({
        ownerId,
        purpose: 'post',
        declaredLength: null,
        body: new Blob([await smallPng()]).stream(),
      });
      if (!result.ok) throw new Error(result.reason.message);
      return result.value;
    };
    const files = async (id: string) =>
      (
        await Promise.all([`${id}.webp`, `${id}-thumb.webp`].map((k) => uploads.storage.get(k)))
      ).filter(Boolean).length;

    const unused = await upload();
    const posted = await upload();
    const post = await t.node.actions.posts.create(ownerId, {
      content: 'a photo',
      media: [{ uploadId: posted.id, altText: 'a blue square' }],
    });
    if (!post.ok) throw new Error(post.reason.message);
    expect(post.value.post.media).toEqual([
      expect.objectContaining({ url: posted.url, altText: 'a blue square' }),
    ]);
    const housekeeping = createHousekeeping({ node: t.node, sessions: auth.sessions });

    // Not yet a day: both stay.
    t.clock.advance(UPLOADS.unattachedTtlMs - 60_000);
    expect((await housekeeping.runOnce()).uploads).toBe(0);
    expect(await files(unused.id)).toBe(2);

    t.clock.advance(2 * 60_000);
    expect((await housekeeping.runOnce()).uploads).toBe(1);
    expect(await files(unused.id)).toBe(0);
    expect(await t.node.db.prisma.upload.findUnique({ where: { id: unused.id } })).toBeNull();
    // The posted one is the post's: it stays as long as the post.
    expect(await files(posted.id)).toBe(2);

    const deleted = await t.node.actions.posts.delete(ownerId, post.value.post.id);
    expect(deleted.ok).toBe(true);
    await housekeeping.runOnce();
    expect(await files(posted.id)).toBe(0);
    expect(await t.node.db.prisma.upload.count({ where: { ownerId } })).toBe(0);
  });

  it('removes a replaced avatar even when more than a page of current ones come before it', async () => {
    const auth = authServicesOf(t.node);
    const { uploads, db } = t.node;
    const carol = await person('carol');
    const accepted = await uploads.accept({
      ownerId: carol,
      purpose: 'avatar',
      declaredLength: null,
      body: new Blob([await smallPng()]).stream(),
    });
    if (!accepted.ok) throw new Error(accepted.reason.message);
    const base = accepted.value.url.slice(0, -`${accepted.value.id}.webp`.length);
    // More current avatars than one page of the sweep, all set before carol's.
    const earlier = new Date(t.clock.now().getTime() - 60 * 60_000);
    const people = Array.from({ length: UPLOADS.sweepBatch + 5 }, (_, i) => ({
      userId: randomUUID(),
      uploadId: randomUUID(),
      handle: `avatar${i}`,
    }));
    await db.prisma.user.createMany({
      data: people.map((p) => ({
        id: p.userId,
        handle: p.handle,
        displayName: p.handle,
        passwordHash: 'x',
        avatarUrl: `${base}${p.uploadId}.webp`,
      })),
    });
    await db.prisma.upload.createMany({
      data: people.map((p) => ({
        id: p.uploadId,
        ownerId: p.userId,
        purpose: 'avatar',
        mimeType: 'image/webp',
        width: 1,
        height: 1,
        blurhash: '',
        bytes: 1,
        attachedAt: earlier,
        createdAt: earlier,
      })),
    });
    // carol sets another avatar (an address elsewhere): her upload is no longer on her profile.
    await db.prisma.user.update({
      where: { id: carol },
      data: { avatarUrl: 'https://elsewhere.example/me.png' },
    });
    t.clock.advance(2 * 60_000);

    const housekeeping = createHousekeeping({ node: t.node, sessions: auth.sessions });
    expect((await housekeeping.runOnce()).uploads).toBe(1);
    expect(await db.prisma.upload.findUnique({ where: { id: accepted.value.id } })).toBeNull();
    expect(await uploads.storage.get(`${accepted.value.id}.webp`)).toBeFalsy();
    // The current ones all stay.
    expect(await db.prisma.upload.count({ where: { purpose: 'avatar' } })).toBe(people.length);
  });
});
