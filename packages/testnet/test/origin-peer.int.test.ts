import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  originCanonicalJson,
  originVerify,
  startOriginPeer,
  type OriginPeer,
} from '../src/origin-peer.ts';

// The fake origin peer itself (built from the fact sheet): two of them talk over real HTTP, so
// its rules are checked before other tests rely on it to judge what our node sends.

describe('origin canonical JSON (docs/origin-profile.md §2)', () => {
  it('sorts keys, skips undefined members, writes array holes as empty text', () => {
    expect(originCanonicalJson({ b: 1, a: [1, undefined, 'x'], c: undefined, d: null })).toBe(
      '{"a":[1,,"x"],"b":1,"d":null}',
    );
    expect(originCanonicalJson({ é: 1, z: { y: true, a: 2.5 } })).toBe(
      '{"z":{"a":2.5,"y":true},"é":1}',
    );
    expect(() => originCanonicalJson({ a: Number.NaN })).toThrow();
    expect(() => originCanonicalJson({ a: new Date() })).toThrow();
  });
});

describe('fake origin peer', () => {
  let alpha: OriginPeer;
  let beta: OriginPeer;

  beforeAll(async () => {
    alpha = await startOriginPeer({ users: [{ handle: 'alice' }] });
    beta = await startOriginPeer({ users: [{ handle: 'bob', avatarUrl: 'https://x.test/b.png' }] });
  });
  afterAll(async () => {
    await alpha?.close();
    await beta?.close();
  });

  it('serves its key at /api/node and signs DER base64 over canonical JSON', async () => {
    const node = (await (await fetch(`${alpha.url}/api/node`)).json()) as { publicKey: string };
    expect(node.publicKey).toBe(alpha.publicKeyPem);
    const sig = alpha.sign({ b: 2, a: 1 });
    expect(Buffer.from(sig, 'base64')[0]).toBe(0x30); // ASN.1 SEQUENCE, not P1363
    expect(originVerify(node.publicKey, { a: 1, b: 2 }, sig)).toBe(true);
    expect(originVerify(node.publicKey, { a: 1, b: 3 }, sig)).toBe(false);
    expect(originVerify(node.publicKey, { a: 1 }, beta.sign({ a: 1 }))).toBe(false);
  });

  it('reads the way the origin answers', async () => {
    const p = beta.addPost('bob', 'hello from bob');
    const single = (await (await fetch(`${beta.url}/api/swarm/posts/${p.id}`)).json()) as {
      post: Record<string, unknown>;
      replies: unknown[];
    };
    expect(single.post.id).toBe(p.id);
    expect(single.post).not.toHaveProperty('nodeDomain');
    expect(single.replies).toEqual([]);
    expect((await fetch(`${beta.url}/api/swarm/posts/not-a-uuid`)).status).toBe(400);
    const user = (await (await fetch(`${beta.url}/api/swarm/users/bob`)).json()) as {
      profile: Record<string, unknown>;
      posts: Record<string, unknown>[];
    };
    expect(user.profile.did).toMatch(/^did:key:z/);
    expect(user.profile).not.toHaveProperty('bio');
    expect(user.posts[0]).not.toHaveProperty('media');
    expect((await fetch(`${beta.url}/.well-known/synapsis-swarm`)).status).toBe(200);
    expect((await fetch(`${beta.url}/.well-known/node-swarm`)).status).toBe(404);
  });

  it('accepts body-signed announce, gossip and interactions from a peer, once each', async () => {
    expect((await alpha.announceTo(beta.domain)).status).toBe(200);
    expect(beta.nodes.get(alpha.domain)?.discoveredVia).toBe('announcement');
    const gossip = await alpha.gossipWith(beta.domain);
    expect(gossip.status).toBe(200);
    expect(beta.handles.get('alice')?.nodeDomain).toBe(alpha.domain);

    const p = beta.addPost('bob', 'like me');
    const fetchesBefore = beta.keyFetches.length;
    const like = await alpha.interact(beta.domain, 'like', { actor: 'alice', target: p.id });
    expect(like).toMatchObject({ status: 200, body: { message: 'Like received' } });
    // A replay is accepted again by the origin (no replay protection), without a second effect.
    expect((await alpha.post(beta.domain, '/api/swarm/interactions/like', like.sent)).body).toEqual(
      { success: true, message: 'Already liked' },
    );
    expect(p.likes.size).toBe(1);
    expect(beta.keyFetches.length - fetchesBefore).toBe(2); // fetched on every request
    const follow = await alpha.interact(beta.domain, 'follow', { actor: 'alice', target: 'bob' });
    expect(follow.status).toBe(200);
    expect(beta.users.get('bob')?.followers.size).toBe(1);
    const reply = await alpha.reply(beta.domain, { actor: 'alice', postId: p.id, content: 'hi' });
    expect(reply).toMatchObject({ status: 200, body: { message: 'Reply received' } });
    expect(p.replies).toHaveLength(1);
  });

  it('refuses what the origin rules refuse', async () => {
    const p = beta.addPost('bob', 'strict');
    const body = (like: Record<string, unknown>) => ({
      postId: p.id,
      like: {
        actorHandle: 'alice',
        actorDisplayName: 'Alice',
        actorNodeDomain: alpha.domain,
        interactionId: randomUUID(),
        timestamp: new Date().toISOString(),
        ...like,
      },
    });
    const send = (b: Record<string, unknown>) =>
      alpha.post(beta.domain, '/api/swarm/interactions/like', b);
    expect((await send(alpha.signBody(body({ actorAvatarUrl: '' })))).status).toBe(400);
    expect((await send(alpha.signBody(body({ actorAvatarUrl: null })))).status).toBe(400);
    expect(
      (await send(alpha.signBody(body({ timestamp: '2026-01-01T00:00:00+00:00' })))).status,
    ).toBe(400);
    expect((await send(alpha.signBody(body({ actorHandle: 'a-b' })))).status).toBe(400);
    // Signed over a member the schema drops: the parsed object no longer matches.
    expect((await send(alpha.signBody(body({ extra: 'x' })))).status).toBe(403);
    // Signed by beta's key but claiming alpha.
    const forged = { ...body({}), signature: beta.sign(body({})) };
    expect((await send(forged)).status).toBe(403);
    const announce = alpha.signBody({ domain: alpha.domain, capabilities: ['messages'] });
    expect((await alpha.post(beta.domain, '/api/swarm/announce', announce)).status).toBe(400);
    // Replies signed only in the body are refused: the origin wants the two headers.
    expect(
      (
        await alpha.post(beta.domain, '/api/swarm/replies', {
          postId: p.id,
          reply: {
            id: '1',
            content: 'x',
            createdAt: 'now',
            author: { handle: 'alice' },
            nodeDomain: alpha.domain,
          },
        })
      ).status,
    ).toBe(401);
    expect(p.likes.size).toBe(0);
    expect(beta.refused.length).toBeGreaterThanOrEqual(7);
  });
});
