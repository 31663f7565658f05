import type { IncomingMessage, ServerResponse } from 'node:http';
import { send } from './origin-http.ts';
import { originSchemas, signerDomainOf, type OriginInteractionKind } from './origin-schemas.ts';
import { originSchemeFor, originVerify } from './origin-signing.ts';
import type { OriginState, OriginViews } from './origin-state.ts';

const KEY_FETCH_TIMEOUT_MS = 5_000;

/** Its POST endpoints (§4): announce, gossip, interactions and replies, checked its way. */
export function createOriginReceivers(state: OriginState, views: OriginViews) {
  const {
    domain,
    now,
    users,
    posts,
    nodes,
    handles,
    accepted,
    refused,
    notifications,
    keyFetches,
  } = state;
  const { info } = views;

  function refuse(
    res: ServerResponse,
    endpoint: string,
    status: number,
    error: string,
    raw: unknown,
    details?: unknown,
  ) {
    refused.push({ endpoint, status, error, ...(details ? { details } : {}), raw });
    send(res, status, details ? { error, details } : { error });
  }

  /** Fetches the signer's key from `GET /api/node`, every time (§1). */
  async function fetchKey(signer: string): Promise<string | undefined> {
    keyFetches.push(signer);
    try {
      const answer = await fetch(`${originSchemeFor(signer)}://${signer}/api/node`, {
        signal: AbortSignal.timeout(KEY_FETCH_TIMEOUT_MS),
      });
      if (!answer.ok) return undefined;
      const body = (await answer.json()) as { publicKey?: unknown };
      return typeof body.publicKey === 'string' && body.publicKey ? body.publicKey : undefined;
    } catch {
      return undefined;
    }
  }

  async function verifiedBy(signer: string, payload: unknown, signature: string): Promise<boolean> {
    const key = await fetchKey(signer);
    return key !== undefined && originVerify(key, payload, signature);
  }

  async function receiveAnnounce(res: ServerResponse, raw: unknown) {
    const parsed = originSchemas.announce.safeParse(raw);
    if (!parsed.success) {
      return refuse(res, 'announce', 400, 'Invalid announcement', raw, parsed.error.issues);
    }
    const { signature, ...body } = parsed.data;
    if (body.domain === domain) return refuse(res, 'announce', 400, 'Cannot announce to self', raw);
    if (!(await verifiedBy(body.domain, body, signature))) {
      return refuse(res, 'announce', 403, 'Invalid signature', raw);
    }
    nodes.set(body.domain, {
      domain: body.domain,
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.publicKey !== undefined ? { publicKey: body.publicKey } : {}),
      ...(body.capabilities ? { capabilities: body.capabilities } : {}),
      discoveredVia: 'announcement',
      lastSeenAt: now().toISOString(),
    });
    accepted.push({ endpoint: 'announce', signer: body.domain, body, message: 'announced' });
    return send(res, 200, info());
  }

  async function receiveGossip(res: ServerResponse, raw: unknown) {
    const parsed = originSchemas.gossip.safeParse(raw);
    if (!parsed.success) {
      return refuse(res, 'gossip', 400, 'Invalid gossip', raw, parsed.error.issues);
    }
    const { signature, ...body } = parsed.data;
    if (body.sender === domain) return refuse(res, 'gossip', 400, 'Cannot gossip with self', raw);
    if (!(await verifiedBy(body.sender, body, signature))) {
      return refuse(res, 'gossip', 403, 'Invalid signature', raw);
    }
    let nodesReceived = 0;
    for (const n of body.nodes) {
      if (n.domain === domain) continue;
      if (!nodes.has(n.domain)) nodesReceived++;
      nodes.set(n.domain, {
        ...nodes.get(n.domain),
        domain: n.domain,
        ...(n.name !== undefined ? { name: n.name } : {}),
        ...(n.publicKey !== undefined ? { publicKey: n.publicKey } : {}),
        ...(n.capabilities ? { capabilities: n.capabilities } : {}),
        discoveredVia: nodes.get(n.domain)?.discoveredVia ?? `gossip:${body.sender}`,
        lastSeenAt: n.lastSeenAt ?? now().toISOString(),
      });
    }
    let handlesReceived = 0;
    for (const h of body.handles ?? []) {
      if (!h.handle || !h.did || !h.nodeDomain) continue;
      const stored = handles.get(h.handle);
      if (stored && stored.updatedAt && h.updatedAt && stored.updatedAt >= h.updatedAt) continue;
      handles.set(h.handle, { ...h });
      handlesReceived++;
    }
    accepted.push({ endpoint: 'gossip', signer: body.sender, body, message: 'gossip' });
    const own = [...users.values()].map((u) => ({
      handle: u.handle,
      did: u.did,
      nodeDomain: domain,
      updatedAt: u.createdAt,
    }));
    return send(res, 200, {
      nodes: [
        info(),
        ...[...nodes.values()].slice(0, 100).map((n) => ({
          domain: n.domain,
          name: n.name ?? n.domain,
          lastSeenAt: n.lastSeenAt,
        })),
      ],
      handles: [...own, ...handles.values()].slice(0, 500),
      received: { nodes: nodesReceived, handles: handlesReceived },
    });
  }

  async function receiveInteraction(
    res: ServerResponse,
    kind: OriginInteractionKind,
    raw: unknown,
  ) {
    const parsed = originSchemas[kind].safeParse(raw);
    if (!parsed.success) {
      return refuse(res, kind, 400, `Invalid ${kind} request`, raw, parsed.error.issues);
    }
    const { signature, ...body } = parsed.data as Record<string, unknown> & { signature: string };
    const signer = signerDomainOf(kind, body);
    if (!(await verifiedBy(signer, body, signature))) {
      return refuse(res, kind, 403, 'Invalid signature', raw);
    }
    const ok = (message: string) => {
      accepted.push({ endpoint: kind, signer, body, message });
      return send(res, 200, { success: true, message });
    };
    const inner = body[kind] as Record<string, string>;
    if (kind === 'follow' || kind === 'unfollow') {
      const user = users.get(String(body.targetHandle).toLowerCase());
      if (!user) return refuse(res, kind, 404, 'User not found', raw);
      const actorUrl = `swarm://${inner.followerNodeDomain}/${inner.followerHandle}`;
      if (kind === 'follow') {
        if (user.followers.has(actorUrl)) return ok('Already following');
        user.followers.set(actorUrl, {
          handle: inner.followerHandle ?? '',
          nodeDomain: inner.followerNodeDomain ?? '',
          displayName: inner.followerDisplayName ?? '',
        });
        notifications.push({ kind: 'follow', to: user.handle, from: actorOf(inner, kind) });
        return ok('Follow received');
      }
      if (!user.followers.delete(actorUrl)) return ok('Not following');
      return ok('Unfollow received');
    }
    if (kind === 'mention') {
      const user = users.get(String(body.mentionedHandle).toLowerCase());
      if (!user) return refuse(res, kind, 404, 'User not found', raw);
      notifications.push({ kind: 'mention', to: user.handle, from: actorOf(inner, kind) });
      return ok('Mention received');
    }
    const post = posts.get(String(body.postId));
    if (!post) return refuse(res, kind, 404, 'Post not found', raw);
    const actor = actorOf(inner, kind);
    switch (kind) {
      case 'like':
        if (post.likes.has(actor)) return ok('Already liked');
        post.likes.add(actor);
        notifications.push({ kind: 'like', to: post.authorHandle, from: actor });
        return ok('Like received');
      case 'unlike':
        post.likes.delete(actor);
        return ok('Unlike received');
      case 'repost':
        if (post.reposts.has(actor)) return ok('Repost already recorded');
        post.reposts.add(actor);
        notifications.push({ kind: 'repost', to: post.authorHandle, from: actor });
        return ok('Repost received');
      case 'unrepost':
        if (!post.reposts.delete(actor)) return ok('Repost already removed');
        return ok('Unrepost received');
    }
  }

  function actorOf(inner: Record<string, string>, kind: OriginInteractionKind): string {
    return kind === 'follow' || kind === 'unfollow'
      ? `${inner.followerHandle}@${inner.followerNodeDomain}`
      : `${inner.actorHandle}@${inner.actorNodeDomain}`;
  }

  async function receiveReply(req: IncomingMessage, res: ServerResponse, raw: unknown) {
    const parsed = originSchemas.replies.safeParse(raw);
    if (!parsed.success) {
      return refuse(res, 'replies', 400, 'Invalid reply', raw, parsed.error.issues);
    }
    const source = req.headers['x-swarm-source-domain'];
    const signature = req.headers['x-swarm-signature'];
    if (typeof source !== 'string' || typeof signature !== 'string' || !source || !signature) {
      return refuse(res, 'replies', 401, 'Missing swarm signature headers', raw);
    }
    const body = parsed.data;
    if (!(await verifiedBy(source, body, signature))) {
      return refuse(res, 'replies', 403, 'Invalid node signature', raw);
    }
    if (body.reply.nodeDomain !== source) {
      return refuse(res, 'replies', 400, 'Source domain mismatch', raw);
    }
    const post = posts.get(body.postId);
    if (!post) return refuse(res, 'replies', 404, 'Post not found', raw);
    const key = `swarm:${source}:${body.reply.id}`;
    const ok = (message: string) => {
      accepted.push({ endpoint: 'replies', signer: source, body, message });
      return send(res, 200, { success: true, message });
    };
    if (post.replies.some((r) => r.key === key)) return ok('Reply already received');
    post.replies.push({
      key,
      id: body.reply.id,
      content: body.reply.content,
      createdAt: body.reply.createdAt,
      authorHandle: `${body.reply.author.handle}@${source}`,
      authorDisplayName: body.reply.author.displayName ?? body.reply.author.handle,
      nodeDomain: source,
    });
    notifications.push({
      kind: 'reply',
      to: post.authorHandle,
      from: `${body.reply.author.handle}@${source}`,
    });
    return ok('Reply received');
  }

  return { refuse, receiveAnnounce, receiveGossip, receiveInteraction, receiveReply };
}
