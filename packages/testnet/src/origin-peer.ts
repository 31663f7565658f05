// A fake peer of the origin profile (docs/origin-profile.md), built from that fact
// sheet only: a real HTTP server on a free loopback port that reads, validates, signs and answers
// the way an origin node does, and records what it accepted and refused so tests can assert a
// receiver's effects exactly once and that nothing we send is refused by the origin's rules.
//
// Fact-sheet sections are cited as §n. Deliberately reproduced quirks: validation before the
// signature check (400 before 403), unknown members stripped and the signature checked over the
// parsed object, the signer key fetched from `GET /api/node` on every request (never pinned),
// deduplication by actor and object (not by interactionId), no replay protection at all.
//
// By concern: its signatures (origin-signing.ts), validation rules (origin-schemas.ts), state and
// how it shows it (origin-state.ts), GET endpoints (origin-gets.ts), POST endpoints
// (origin-receive.ts), what it sends (origin-send.ts) and its reads of others (origin-reader.ts).

import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createOriginGets } from './origin-gets.ts';
import { readBody, send } from './origin-http.ts';
import { createOriginReader } from './origin-reader.ts';
import { createOriginReceivers } from './origin-receive.ts';
import {
  originSchemas,
  type OriginEndpoint,
  type OriginInteractionKind,
} from './origin-schemas.ts';
import { createOriginSender } from './origin-send.ts';
import { createOriginViews, userKeyMaterial, type OriginState } from './origin-state.ts';
import type {
  OriginAccepted,
  OriginHandleRecord,
  OriginNodeRecord,
  OriginNotification,
  OriginPeer,
  OriginPeerOptions,
  OriginPost,
  OriginRefused,
  OriginUser,
} from './origin-types.ts';

export * from './origin-reader.ts';
export * from './origin-schemas.ts';
export * from './origin-signing.ts';
export * from './origin-types.ts';

/** Starts a fake origin-profile node on a free loopback port (`localhost:<port>`). */
export async function startOriginPeer(options: OriginPeerOptions = {}): Promise<OriginPeer> {
  const now = options.now ?? (() => new Date());
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const users = new Map<string, OriginUser>();
  const posts = new Map<string, OriginPost>();
  const nodes = new Map<string, OriginNodeRecord>();
  const handles = new Map<string, OriginHandleRecord>();
  const accepted: OriginAccepted[] = [];
  const refused: OriginRefused[] = [];
  const notifications: OriginNotification[] = [];
  const keyFetches: string[] = [];
  const gets: string[] = [];
  const refusing = new Map<OriginEndpoint, number>();
  const createdAt = now().toISOString();

  for (const u of options.users ?? []) {
    users.set(u.handle.toLowerCase(), {
      handle: u.handle.toLowerCase(),
      displayName: u.displayName ?? u.handle,
      ...(u.bio ? { bio: u.bio } : {}),
      ...(u.avatarUrl ? { avatarUrl: u.avatarUrl } : {}),
      createdAt,
      ...userKeyMaterial(),
      followers: new Map(),
      following: new Set(),
    });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      send(res, 500, { error: error instanceof Error ? error.message : 'Internal error' });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('origin peer: no port');
  const port = address.port;
  const domain = `localhost:${port}`;
  const name = options.name ?? `Origin ${port}`;
  const state: OriginState = {
    domain,
    name,
    createdAt,
    now,
    keys: { privateKey, publicKeyPem },
    users,
    posts,
    nodes,
    handles,
    accepted,
    refused,
    notifications,
    keyFetches,
    gets,
    refusing,
  };
  const views = createOriginViews(state);
  const { info, newPost } = views;
  const handleGet = createOriginGets(state, views);
  const { refuse, receiveAnnounce, receiveGossip, receiveInteraction, receiveReply } =
    createOriginReceivers(state, views);
  const sender = createOriginSender(state, views);

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', `http://${domain}`);
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (method === 'GET') gets.push(`${path}${url.search}`);
    if (peer.down) {
      req.socket.destroy();
      return;
    }
    if (method === 'GET') return handleGet(res, path, url.searchParams);
    if (method === 'DELETE' && path === '/api/swarm/replies') {
      // Unsigned, as on the origin (§4); records the deletion.
      const body = JSON.parse(await readBody(req)) as Record<string, string>;
      for (const p of posts.values()) {
        p.replies = p.replies.filter((r) => r.key !== `swarm:${body.nodeDomain}:${body.replyId}`);
      }
      return send(res, 200, { success: true });
    }
    if (method !== 'POST') return send(res, 405, { error: 'Method not allowed' });
    if (path === '/api/swarm/inbox') return send(res, 410, { error: 'Gone' });
    let raw: unknown;
    try {
      raw = JSON.parse(await readBody(req));
    } catch {
      return refuse(res, path, 400, 'Invalid JSON', undefined);
    }
    const endpoint: OriginEndpoint | undefined =
      path === '/api/swarm/announce'
        ? 'announce'
        : path === '/api/swarm/gossip'
          ? 'gossip'
          : path === '/api/swarm/replies'
            ? 'replies'
            : (/^\/api\/swarm\/interactions\/([a-z]+)$/.exec(path)?.[1] as
                OriginInteractionKind | undefined);
    const refusal = endpoint && refusing.get(endpoint);
    if (endpoint && refusal) return refuse(res, endpoint, refusal, `Refused ${endpoint}`, raw);
    if (path === '/api/swarm/announce') return receiveAnnounce(res, raw);
    if (path === '/api/swarm/gossip') return receiveGossip(res, raw);
    if (path === '/api/swarm/replies') return receiveReply(req, res, raw);
    const match = /^\/api\/swarm\/interactions\/([a-z]+)$/.exec(path);
    const kind = match?.[1] as OriginInteractionKind | undefined;
    if (kind && kind in originSchemas) return receiveInteraction(res, kind, raw);
    return send(res, 404, { error: 'Not found' });
  }

  const peer: OriginPeer = {
    domain,
    url: `http://${domain}`,
    port,
    name,
    publicKeyPem,
    users,
    posts,
    nodes,
    handles,
    accepted,
    refused,
    notifications,
    keyFetches,
    gets,
    down: false,
    addPost: (authorHandle, content, at = now()) => newPost(authorHandle, content, at),
    info,
    ...sender,
    acceptedOf: (endpoint) => accepted.filter((a) => a.endpoint === endpoint),
    refusing,
    read: createOriginReader(),
    rotateKey() {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
      state.keys = { privateKey, publicKeyPem };
      peer.publicKeyPem = publicKeyPem;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
  return peer;
}
