import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TEST_NETWORK_ADMIN_TOKEN,
  BETA as B,
  createTwoNodes,
  type NetworkNode,
  type TestNetwork,
} from './harness.ts';

// The operator's side of the outbox: `POST /api/swarm/admin/posts` (posting as a local user,
// e.g. a bot or `pnpm swarm posts create`), and the delivery service's admin operations
// (list, get, counts, retry now) that the admin area is built on.

let net: TestNetwork;
let alpha: NetworkNode;
let beta: NetworkNode;

beforeAll(async () => {
  ({ net, alpha, beta } = await createTwoNodes({
    alpha: { handles: ['alice'] },
    beta: { handles: ['bob'] },
  }));
});
afterAll(() => net.close());

function adminPost(body: unknown, token: string | null = TEST_NETWORK_ADMIN_TOKEN) {
  return alpha.request('/api/swarm/admin/posts', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
}

const postCount = () => alpha.node.db.prisma.post.count();
const mentionsOfBob = () =>
  beta.node.db.prisma.notification.count({ where: { type: 'mention', actorHandle: 'alice' } });

describe('POST /api/swarm/admin/posts', () => {
  it('publishes as a local user and delivers its mentions', async () => {
    const before = await mentionsOfBob();
    const res = await adminPost({ handle: 'Alice', content: `Good morning @bob@${B}` });
    expect(res.status).toBe(201);
    const body = (await res.json()) as {
      post: { id: string; path: string; content: string };
      deliveries: { kind: string; targetDomain: string; status: string; summary: string }[];
    };
    expect(body.post).toMatchObject({
      path: `/posts/${body.post.id}`,
      content: `Good morning @bob@${B}`,
    });
    expect(body.deliveries).toEqual([
      expect.objectContaining({ kind: 'mention', targetDomain: B, summary: 'delivered' }),
    ]);
    expect(await mentionsOfBob()).toBe(before + 1);
    const peerView = await alpha.request(`/api/swarm/posts/${body.post.id}`);
    expect(await peerView.json()).toMatchObject({ author: { handle: 'alice' } });
  });

  it('refuses without a token, for unknown users and for bad bodies, creating nothing', async () => {
    const before = await postCount();
    expect((await adminPost({ handle: 'alice', content: 'x' }, null)).status).toBe(401);
    const unknown = await adminPost({ handle: 'nobody', content: 'x' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'USER_NOT_FOUND' });
    for (const bad of [
      { handle: 'alice', content: '' },
      { handle: 'alice', content: 'x'.repeat(5001) },
      { handle: 'alice', content: 'x', extra: true },
      { handle: 'alice', content: 'x', media: [{ url: 'data:,x' }] },
      { content: 'no handle' },
    ]) {
      const res = await adminPost(bad);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'INVALID_REQUEST' });
    }
    const reply = await adminPost({
      handle: 'alice',
      content: 'x',
      replyToId: '5c3b4f7e-0000-4000-8000-000000000000',
    });
    expect(reply.status).toBe(404);
    expect(await postCount()).toBe(before);
  });

  it('is documented in the OpenAPI description', async () => {
    const doc = (await (await alpha.request('/api/swarm/openapi.json')).json()) as {
      paths: Record<string, { post?: unknown }>;
    };
    expect(doc.paths['/api/swarm/admin/posts']?.post).toBeDefined();
  });
});

describe('delivery administration (list, get, counts, retry now)', () => {
  it('retries a pending delivery now, and a failed one after the cause is fixed', async () => {
    const delivery = alpha.node.delivery;
    const base = await delivery.counts();
    net.network.drop(B);
    const queued = (
      (await (
        await adminPost({ handle: 'alice', content: `@bob@${B} are you there?` })
      ).json()) as {
        deliveries: { id: string }[];
      }
    ).deliveries[0]!;
    expect(await delivery.counts()).toEqual({ ...base, pending: base.pending + 1 });
    expect((await delivery.list({ status: 'pending' })).map((d) => d.id)).toContain(queued.id);

    // Retry now while beta is still down: one more attempt, still pending.
    const stillDown = await delivery.retryNow(queued.id);
    expect(stillDown.ok && stillDown.value).toMatchObject({ status: 'pending', attempts: 2 });
    net.network.heal(B);
    const done = await delivery.retryNow(queued.id);
    expect(done.ok && done.value).toMatchObject({ status: 'delivered', summary: 'delivered' });
    expect(await delivery.counts()).toEqual({ ...base, delivered: base.delivered + 1 });

    // A delivered one has nothing to retry; an unknown id is not found.
    const again = await delivery.retryNow(queued.id);
    expect(!again.ok && again.reason.code).toBe('DELIVERY_CONFLICT');
    const unknown = await delivery.retryNow('5c3b4f7e-0000-4000-8000-000000000001');
    expect(!unknown.ok && unknown.reason.code).toBe('NOT_FOUND');
    expect(await delivery.get('not-a-uuid')).toBeNull();

    // Final failure (no such user on beta), then the user appears: retry delivers it.
    const refused = (
      (await (await adminPost({ handle: 'alice', content: `hi @carl@${B}` })).json()) as {
        deliveries: { id: string; summary: string }[];
      }
    ).deliveries[0]!;
    expect(refused.summary).toBe('failed: user not found');
    expect((await delivery.list({ status: 'failed' })).map((d) => d.id)).toContain(refused.id);
    await beta.node.db.prisma.user.create({ data: { handle: 'carl', passwordHash: 'x' } });
    const retried = await delivery.retryNow(refused.id);
    expect(retried.ok && retried.value).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(
      await beta.node.db.prisma.notification.count({ where: { recipient: { handle: 'carl' } } }),
    ).toBe(1);
  });
});
