import {
  createPublicKey,
  createSign,
  createVerify,
  generateKeyPairSync,
  randomUUID,
  type KeyObject,
} from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { z } from 'zod';
import { base58btcEncode } from '@swarm/contract';

// A fake peer of the origin profile (docs/origin-profile.md), built from that fact
// sheet only: a real HTTP server on a free loopback port that reads, validates, signs and answers
// the way an origin node does, and records what it accepted and refused so tests can assert a
// receiver's effects exactly once and that nothing we send is refused by the origin's rules.
//
// Fact-sheet sections are cited as §n. Deliberately reproduced quirks: validation before the
// signature check (400 before 403), unknown members stripped and the signature checked over the
// parsed object, the signer key fetched from `GET /api/node` on every request (never pinned),
// deduplication by actor and object (not by interactionId), no replay protection at all.

// ---------------------------------------------------------------------------------------------
// §2 canonical JSON and node signatures

/** The origin's canonical JSON (§2): sorted keys, `undefined` members skipped, `[1,,2]` holes. */
export function originCanonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('cannot canonicalise a non-finite number');
    return value.toString();
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Date || value instanceof RegExp) {
    throw new TypeError('cannot canonicalise a Date or RegExp');
  }
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      items.push(item === undefined ? '' : originCanonicalJson(item));
    }
    return `[${items.join(',')}]`;
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${originCanonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  throw new TypeError(`cannot canonicalise a ${typeof value}`);
}

/** Standard base64 of the DER ECDSA P-256/SHA-256 signature over the canonical JSON (§2). */
export function originSign(privateKey: KeyObject | string, payload: unknown): string {
  return createSign('SHA256').update(originCanonicalJson(payload)).sign(privateKey, 'base64');
}

/** A PEM or a bare base64 SPKI DER key (§1), as the origin accepts both. */
function publicKeyFrom(text: string): KeyObject | undefined {
  try {
    if (text.includes('-----BEGIN')) return createPublicKey(text);
    return createPublicKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'spki' });
  } catch {
    return undefined;
  }
}

/** The origin's check (§2): `createVerify('SHA256')`, base64 DER; never throws. */
export function originVerify(publicKey: string, payload: unknown, signature: string): boolean {
  const key = publicKeyFrom(publicKey);
  if (!key) return false;
  try {
    return createVerify('SHA256')
      .update(originCanonicalJson(payload))
      .verify(key, signature, 'base64');
  } catch {
    return false;
  }
}

/** `body` plus a body `signature` made the origin's way (over the body without `signature`). */
export function originSignBody<T extends Record<string, unknown>>(
  privateKey: KeyObject | string,
  body: T,
): T & { signature: string } {
  const { signature: _ignored, ...unsigned } = body;
  return { ...(unsigned as T), signature: originSign(privateKey, unsigned) };
}

/** §1/§6: `http` when the domain contains `localhost`, else `https`. */
export function originSchemeFor(domain: string): 'http' | 'https' {
  return domain.includes('localhost') ? 'http' : 'https';
}

// ---------------------------------------------------------------------------------------------
// §3 validation rules

const handleRule = z.string().regex(/^[a-zA-Z0-9_]{3,20}$/);
const DNS_LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
const nodeDomainRule = z
  .string()
  .max(255)
  .regex(
    new RegExp(`^(?:localhost|127\\.0\\.0\\.1|${DNS_LABEL}(?:\\.${DNS_LABEL})+)(?::\\d{1,5})?$`),
  );
/** zod 4's `uuid()` is the RFC 9562 form (versions 1–8, variant 8–b, nil and max). */
const uuidRule = z.uuid();
const timestampRule = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/)
  .refine((v) => Number.isFinite(Date.parse(v)), 'not a date');
const urlRule = z.string().refine((v) => {
  try {
    new URL(v);
    return true;
  } catch {
    return false;
  }
}, 'Invalid URL');
const displayNameRule = z.string().min(1).max(50);
export const ORIGIN_CAPABILITIES = [
  'handles',
  'gossip',
  'relay',
  'search',
  'interactions',
] as const;
const capabilitiesRule = z.array(z.enum(ORIGIN_CAPABILITIES));
const blankToAbsent = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const actorFields = {
  actorHandle: handleRule,
  actorDisplayName: displayNameRule,
  actorAvatarUrl: urlRule.optional(),
  actorNodeDomain: nodeDomainRule,
  interactionId: uuidRule,
  timestamp: timestampRule,
};
const undoActorFields = {
  actorHandle: handleRule,
  actorNodeDomain: nodeDomainRule,
  interactionId: uuidRule,
  timestamp: timestampRule,
};

/** §4 bodies. `z.object` strips unknown members, as the origin's validation does. */
export const originSchemas = {
  announce: z.object({
    domain: z.string().min(1),
    name: z.string().optional(),
    description: z.string().optional(),
    publicKey: z.string().optional(),
    softwareVersion: z.string().optional(),
    timestamp: z.string().optional(),
    logoUrl: z.preprocess(blankToAbsent, urlRule.optional()),
    userCount: z.number().optional(),
    postCount: z.number().optional(),
    isNsfw: z.boolean().optional(),
    capabilities: capabilitiesRule.optional(),
    signature: z.string(),
  }),
  gossip: z.object({
    sender: z.string(),
    nodes: z.array(
      z.object({
        domain: z.string(),
        name: z.string().optional(),
        description: z.string().optional(),
        logoUrl: z.string().optional(),
        publicKey: z.string().optional(),
        softwareVersion: z.string().optional(),
        userCount: z.number().optional(),
        postCount: z.number().optional(),
        isNsfw: z.boolean().optional(),
        capabilities: capabilitiesRule.optional(),
        lastSeenAt: z.string().optional(),
      }),
    ),
    handles: z
      .array(
        z.object({
          handle: z.string(),
          did: z.string(),
          nodeDomain: z.string(),
          updatedAt: z.string().optional(),
        }),
      )
      .optional(),
    timestamp: z.string(),
    since: z.string().optional(),
    signature: z.string(),
  }),
  like: z.object({
    postId: uuidRule,
    like: z.object(actorFields),
    signature: z.string().min(1),
  }),
  unlike: z.object({ postId: uuidRule, unlike: z.object(undoActorFields), signature: z.string() }),
  repost: z.object({
    postId: uuidRule,
    repost: z.object({ ...actorFields, repostId: uuidRule }),
    signature: z.string().min(1),
  }),
  unrepost: z.object({
    postId: uuidRule,
    unrepost: z.object(undoActorFields),
    signature: z.string(),
  }),
  follow: z.object({
    targetHandle: handleRule,
    follow: z.object({
      followerHandle: handleRule,
      followerDisplayName: displayNameRule,
      followerAvatarUrl: urlRule.optional(),
      followerBio: z.string().max(500).optional(),
      followerNodeDomain: nodeDomainRule,
      interactionId: uuidRule,
      timestamp: timestampRule,
    }),
    signature: z.string().min(1),
  }),
  unfollow: z.object({
    targetHandle: handleRule,
    unfollow: z.object({
      followerHandle: handleRule,
      followerNodeDomain: nodeDomainRule,
      interactionId: uuidRule,
      timestamp: timestampRule,
    }),
    signature: z.string(),
  }),
  mention: z.object({
    mentionedHandle: handleRule,
    mention: z.object({
      ...actorFields,
      postId: uuidRule,
      postContent: z.string().max(10_000),
    }),
    signature: z.string(),
  }),
  replies: z.object({
    postId: uuidRule,
    reply: z.object({
      id: z.string(),
      content: z.string(),
      createdAt: z.string(),
      author: z.object({
        handle: z.string(),
        displayName: z.string().nullable().optional(),
        avatarUrl: z.string().optional(),
        did: z.string().optional(),
        publicKey: z.string().optional(),
      }),
      nodeDomain: z.string(),
      mediaUrls: z.array(z.string()).optional(),
    }),
  }),
} as const;

export type OriginInteractionKind =
  'like' | 'unlike' | 'repost' | 'unrepost' | 'follow' | 'unfollow' | 'mention';
export type OriginEndpoint = OriginInteractionKind | 'announce' | 'gossip' | 'replies';

/** §2 table: where the signer domain is read from. */
function signerDomainOf(kind: OriginInteractionKind, body: Record<string, unknown>): string {
  const inner = body[kind] as Record<string, string>;
  return kind === 'follow' || kind === 'unfollow'
    ? (inner.followerNodeDomain ?? '')
    : (inner.actorNodeDomain ?? '');
}

// ---------------------------------------------------------------------------------------------
// State

export interface OriginUser {
  handle: string;
  displayName: string;
  bio?: string;
  avatarUrl?: string;
  createdAt: string;
  /** Bare base64 SPKI of the user's (browser-made) key, as the origin publishes it. */
  publicKey: string;
  /** `did:key:z` + base58btc of the whole SPKI DER (§2), not the multicodec form. */
  did: string;
  /** Actor URL (`swarm://domain/handle`) or local handle → follower record. */
  followers: Map<string, { handle: string; nodeDomain: string; displayName: string }>;
  /** `handle@domain` of the remote people it follows (its follows sent with `interact`). */
  following: Set<string>;
}

export interface OriginPost {
  id: string;
  authorHandle: string;
  content: string;
  createdAt: string;
  /** `handle@domain` of actors. */
  likes: Set<string>;
  reposts: Set<string>;
  replies: OriginReply[];
  /** Its own reply to another node's post: served by id, not listed (§5 lists exclude replies). */
  isReply?: boolean;
}

export interface OriginReply {
  /** `swarm:{domain}:{reply.id}` */
  key: string;
  id: string;
  content: string;
  createdAt: string;
  authorHandle: string;
  authorDisplayName: string;
  nodeDomain: string;
}

export interface OriginNodeRecord {
  domain: string;
  name?: string;
  description?: string;
  publicKey?: string;
  capabilities?: string[];
  discoveredVia: string;
  lastSeenAt: string;
}

export interface OriginHandleRecord {
  handle: string;
  did: string;
  nodeDomain: string;
  updatedAt?: string;
}

/** One request the peer took (2xx), with the object as parsed by its rules. */
export interface OriginAccepted {
  endpoint: OriginEndpoint;
  signer: string;
  body: Record<string, unknown>;
  message: string;
}

/** One request the peer refused, with its answer. */
export interface OriginRefused {
  endpoint: OriginEndpoint | string;
  status: number;
  error: string;
  details?: unknown;
  raw: unknown;
}

export interface OriginNotification {
  kind: 'like' | 'repost' | 'follow' | 'mention' | 'reply';
  to: string;
  from: string;
}

export interface OriginPeerOptions {
  name?: string;
  /** Local users to create (handle, display name, optional avatar and bio). */
  users?: { handle: string; displayName?: string; avatarUrl?: string; bio?: string }[];
  /** The peer's clock (for its outbound `timestamp`s); default: the real clock. */
  now?: () => Date;
}

export interface OriginPeer {
  domain: string;
  url: string;
  port: number;
  name: string;
  publicKeyPem: string;
  users: Map<string, OriginUser>;
  posts: Map<string, OriginPost>;
  nodes: Map<string, OriginNodeRecord>;
  handles: Map<string, OriginHandleRecord>;
  accepted: OriginAccepted[];
  refused: OriginRefused[];
  notifications: OriginNotification[];
  /** Every `GET /api/node` it made to check a signature, by domain. */
  keyFetches: string[];
  /** Every GET it received (path and query), to count what a peer asked of it. */
  gets: string[];
  /**
   * Test control: while true every connection is cut before an answer (a node that is down, as
   * its peers see it: no HTTP answer at all). Its own outbound requests are unaffected.
   */
  down: boolean;
  /** A public post by a local user; returns it. */
  addPost(authorHandle: string, content: string, at?: Date): OriginPost;
  /** The node info it answers on `/api/swarm/info` and in announce answers (§4, §5). */
  info(): Record<string, unknown>;
  /** Signs `body` its way (body `signature`). */
  signBody<T extends Record<string, unknown>>(body: T): T & { signature: string };
  /** Signs anything with its node key (e.g. a reply body for `X-Swarm-Signature`). */
  sign(payload: unknown): string;
  /** POSTs JSON to `{scheme}://{domain}{path}` with extra headers; the body is sent as is. */
  post(
    domain: string,
    path: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: unknown }>;
  /** Announces itself to `domain` the origin's way (§6). */
  announceTo(domain: string): Promise<{ status: number; body: unknown }>;
  /** Gossips with `domain` the origin's way (§6). */
  gossipWith(domain: string, since?: string): Promise<{ status: number; body: unknown }>;
  /** Builds and sends a body-signed interaction by one of its users (bodies of §4). */
  interact(
    domain: string,
    kind: OriginInteractionKind,
    input: {
      actor: string;
      /** postId for like/unlike/repost/unrepost/mention (the post mentioning), handle for follow/unfollow/mention. */
      target: string;
      /** Mentions: the mentioning post; without it the peer first writes one of `postContent`. */
      postId?: string;
      postContent?: string;
      interactionId?: string;
      timestamp?: string;
      repostId?: string;
    },
  ): Promise<{ status: number; body: unknown; sent: Record<string, unknown> }>;
  /** Sends a reply the origin's way: header-signed, no timestamp or nonce headers (§4, §6). */
  reply(
    domain: string,
    input: { actor: string; postId: string; content: string; id?: string; createdAt?: string },
  ): Promise<{ status: number; body: unknown; sent: Record<string, unknown> }>;
  /** Accepted requests of one endpoint. */
  acceptedOf(endpoint: OriginEndpoint): OriginAccepted[];
  /**
   * Test control: endpoints answered with this status (`{error}` body) before validation, as a
   * node of a later origin version refusing what it no longer understands would.
   */
  refusing: Map<OriginEndpoint, number>;
  /** Its reads of a peer (§6, §7), judged by what its readers need; see `OriginRead`. */
  read: OriginReader;
  /** A new node key (published at `/api/node` from now on), as after a reinstall. */
  rotateKey(): void;
  close(): Promise<void>;
}

/** The outcome of one of its reads of a peer: the value its reader makes, or why it failed. */
export type OriginRead<T> = { ok: true; value: T } | { ok: false; status: number; error: string };

/**
 * Its reads of another node (§6, §7), with what each of its readers needs from the answer
 * (anything else is ignored). A failure is what its user would get: an error, or, for the
 * user-facing posts list, `200 {posts: [], nextCursor: null}` (the `ok: false` here).
 */
export interface OriginReader {
  /** `GET /api/swarm/users/{h}?limit=0`, mapped to its `{user}` of `GET /api/users/h@domain`. */
  user(domain: string, handle: string): Promise<OriginRead<Record<string, unknown>>>;
  /** `GET /api/users/{h}/posts?limit=` (user-facing!), ids re-mapped to `swarm:{domain}:{id}`. */
  userPosts(domain: string, handle: string, limit?: number): Promise<OriginRead<OriginReadPost[]>>;
  /** `GET /api/swarm/posts/{id}`: it reads `{ post, replies }`. */
  post(
    domain: string,
    id: string,
  ): Promise<OriginRead<{ post: OriginReadPost; replies: Record<string, unknown>[] }>>;
  /** `GET /api/swarm/timeline`. */
  timeline(domain: string): Promise<OriginRead<OriginReadPost[]>>;
}

/** What its readers dereference: `author` must be an object with a handle (a string crashes it). */
const readPostSchema = z.looseObject({
  id: z.string(),
  content: z.string(),
  createdAt: z.string(),
  author: z.looseObject({
    handle: z.string(),
    displayName: z.string().nullish(),
    avatarUrl: z.string().nullish(),
  }),
});
export type OriginReadPost = z.output<typeof readPostSchema>;

const readSchemas = {
  user: z.looseObject({
    profile: z.looseObject({
      handle: z.string(),
      displayName: z.string().nullish(),
      bio: z.string().nullish(),
      avatarUrl: z.string().nullish(),
      headerUrl: z.string().nullish(),
      website: z.string().nullish(),
      followersCount: z.number(),
      followingCount: z.number(),
      postsCount: z.number(),
      createdAt: z.string(),
      isBot: z.boolean().optional(),
      did: z.string().optional(),
      publicKey: z.string().optional(),
    }),
  }),
  userPosts: z.looseObject({ posts: z.array(readPostSchema) }),
  post: z.looseObject({ post: readPostSchema, replies: z.array(z.looseObject({})) }),
  timeline: z.looseObject({ posts: z.array(readPostSchema) }),
};

const KEY_FETCH_TIMEOUT_MS = 5_000;
const ORIGIN_VERSION = '0.1.0';

function userKeyMaterial(): { publicKey: string; did: string } {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return {
    publicKey: der.toString('base64'),
    did: `did:key:z${base58btcEncode(new Uint8Array(der))}`,
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function clampLimit(raw: string | null, fallback: number, max: number): number {
  const n = raw === null ? fallback : Number.parseInt(raw, 10);
  return Number.isFinite(n) ? Math.max(0, Math.min(n, max)) : fallback;
}

/** Starts a fake origin-profile node on a free loopback port (`localhost:<port>`). */
export async function startOriginPeer(options: OriginPeerOptions = {}): Promise<OriginPeer> {
  const now = options.now ?? (() => new Date());
  let { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  let publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
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

  const info = (): Record<string, unknown> => ({
    domain,
    name,
    description: 'A fake node of the origin profile',
    publicKey: publicKeyPem,
    softwareVersion: ORIGIN_VERSION,
    userCount: users.size,
    postCount: posts.size,
    isNsfw: false,
    capabilities: ['handles', 'gossip', 'interactions'],
    lastSeenAt: now().toISOString(),
  });

  const countLikes = (p: OriginPost) => p.likes.size;

  const profileOf = (u: OriginUser) => ({
    handle: u.handle,
    displayName: u.displayName,
    ...(u.bio ? { bio: u.bio } : {}),
    ...(u.avatarUrl ? { avatarUrl: u.avatarUrl } : {}),
    followersCount: u.followers.size,
    followingCount: 0,
    postsCount: [...posts.values()].filter((p) => p.authorHandle === u.handle).length,
    createdAt: u.createdAt,
    nodeDomain: domain,
    publicKey: u.publicKey,
    did: u.did,
    botOwnerHandle: null,
  });

  const authorOf = (handle: string) => {
    const u = users.get(handle);
    return { handle, displayName: u?.displayName ?? handle, avatarUrl: u?.avatarUrl ?? null };
  };

  const newestFirst = () =>
    [...posts.values()]
      .filter((p) => !p.isReply)
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));

  /** Post as the origin lists it in profiles (§5): no `media` when there is none. */
  const profilePost = (p: OriginPost) => ({
    id: p.id,
    content: p.content,
    createdAt: p.createdAt,
    isNsfw: false,
    likesCount: countLikes(p),
    repostsCount: p.reposts.size,
    repliesCount: p.replies.length,
    linkPreviewTitle: null,
    linkPreviewDescription: null,
    linkPreviewImage: null,
    originalPostId: null,
    nodeDomain: domain,
    author: { ...authorOf(p.authorHandle), isBot: false, nodeDomain: domain },
    repostOfId: null,
    repostOf: null,
  });

  const timelinePost = (p: OriginPost) => ({
    id: p.id,
    content: p.content,
    createdAt: p.createdAt,
    author: { ...authorOf(p.authorHandle), isNsfw: false, isBot: false },
    nodeDomain: domain,
    nodeIsNsfw: false,
    isNsfw: false,
    likeCount: countLikes(p),
    repostCount: p.reposts.size,
    replyCount: p.replies.length,
    isReply: false,
    replyToId: null,
    swarmReplyToId: null,
    repostOfId: null,
    repostOf: null,
    linkPreviewTitle: null,
    linkPreviewDescription: null,
    linkPreviewImage: null,
    linkPreviewType: null,
    linkPreviewVideoUrl: null,
    linkPreviewMedia: null,
  });

  const replyListItem = (r: OriginReply) => ({
    id: r.id,
    content: r.content,
    createdAt: r.createdAt,
    author: { handle: r.authorHandle, displayName: r.authorDisplayName },
    nodeDomain: r.nodeDomain,
    likeCount: 0,
    repostCount: 0,
    replyCount: 0,
  });

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

  function handleGet(res: ServerResponse, path: string, query: URLSearchParams) {
    if (path === '/api/node') {
      return send(res, 200, {
        id: randomUUID(),
        domain,
        name,
        description: 'A fake node of the origin profile',
        logoUrl: null,
        faviconUrl: null,
        isNsfw: false,
        publicKey: publicKeyPem,
        admins: [],
        createdAt,
        updatedAt: createdAt,
      });
    }
    if (path === '/api/swarm/info') return send(res, 200, info());
    if (path === '/.well-known/synapsis-swarm' || path === '/.well-known/synapsis-handles') {
      const limit = clampLimit(query.get('limit'), 50, 200);
      const list = [...nodes.values()].slice(0, limit);
      const i = info();
      return send(res, 200, {
        node: {
          domain,
          name,
          description: i.description,
          publicKey: publicKeyPem,
          softwareVersion: ORIGIN_VERSION,
          capabilities: i.capabilities,
        },
        swarm: {
          totalNodes: nodes.size + 1,
          activeNodes: nodes.size + 1,
          totalUsers: users.size,
          totalPosts: posts.size,
          seeds: [],
        },
        nodes: list.map((n) => ({
          domain: n.domain,
          name: n.name ?? n.domain,
          lastSeenAt: n.lastSeenAt,
        })),
      });
    }
    if (path === '/api/swarm/nodes') {
      return send(res, 200, {
        nodes: [...nodes.values()].map((n) => ({
          domain: n.domain,
          name: n.name ?? n.domain,
          description: n.description ?? '',
          logoUrl: '',
          publicKey: n.publicKey ?? '',
          softwareVersion: '',
          userCount: 0,
          postCount: 0,
          capabilities: n.capabilities ?? [],
          isNsfw: false,
          lastSeenAt: n.lastSeenAt,
        })),
      });
    }
    if (path === '/api/swarm/timeline') {
      const limit = clampLimit(query.get('limit'), 20, 50);
      return send(res, 200, {
        posts: newestFirst().slice(0, limit).map(timelinePost),
        nodeDomain: domain,
        nodeIsNsfw: false,
        timestamp: now().toISOString(),
      });
    }
    let m = /^\/api\/swarm\/users\/([^/]+)(\/followers|\/following)?$/.exec(path);
    if (m) {
      const user = users.get(decodeURIComponent(m[1] ?? '').toLowerCase());
      if (!user) return send(res, 404, { error: 'User not found' });
      if (m[2] === '/followers') {
        return send(res, 200, {
          followers: [...user.followers.values()].map((f) => ({
            handle: f.nodeDomain === domain ? f.handle : `${f.handle}@${f.nodeDomain}`,
            displayName: f.displayName,
            isRemote: f.nodeDomain !== domain,
          })),
          nodeDomain: domain,
          timestamp: now().toISOString(),
        });
      }
      if (m[2] === '/following') {
        // §5: limit default 50, max 100; remote entries `handle@domain`, newest first.
        const limit = clampLimit(query.get('limit'), 50, 100);
        return send(res, 200, {
          following: [...user.following]
            .reverse()
            .slice(0, limit)
            .map((address) => ({
              handle: address,
              displayName: address.split('@')[0] ?? address,
              isRemote: true,
            })),
          nodeDomain: domain,
          timestamp: now().toISOString(),
        });
      }
      const limit = clampLimit(query.get('limit'), 25, 50);
      return send(res, 200, {
        profile: profileOf(user),
        posts: newestFirst()
          .filter((p) => p.authorHandle === user.handle)
          .slice(0, limit)
          .map(profilePost),
        nodeDomain: domain,
        timestamp: now().toISOString(),
      });
    }
    m = /^\/api\/swarm\/posts\/([^/]+)(\/likes)?$/.exec(path);
    if (m) {
      const id = decodeURIComponent(m[1] ?? '');
      if (!uuidRule.safeParse(id).success) return send(res, 400, { error: 'Invalid post id' });
      const post = posts.get(id);
      if (!post) return send(res, 404, { error: 'Post not found' });
      if (m[2]) return send(res, 200, { postId: id, likesCount: countLikes(post) });
      // §5: `{post, replies}`; no nodeDomain, isNsfw, replyToId or author.isNsfw on `post`.
      return send(res, 200, {
        post: {
          id: post.id,
          apId: `https://${domain}/posts/${post.id}`,
          content: post.content,
          createdAt: post.createdAt,
          likesCount: countLikes(post),
          repostsCount: post.reposts.size,
          repliesCount: post.replies.length,
          author: authorOf(post.authorHandle),
          media: [],
          linkPreviewTitle: null,
          linkPreviewDescription: null,
          linkPreviewImage: null,
        },
        replies: post.replies.map(replyListItem),
      });
    }
    if (path === '/api/swarm/replies') {
      const postId = query.get('postId') ?? '';
      const post = posts.get(postId);
      if (!post) return send(res, 404, { error: 'Post not found' });
      return send(res, 200, {
        postId,
        replies: post.replies.map(replyListItem),
        nodeDomain: domain,
      });
    }
    m = /^\/api\/users\/([^/]+)(\/posts)?$/.exec(path);
    if (m) {
      const user = users.get(decodeURIComponent(m[1] ?? '').toLowerCase());
      if (!user) return send(res, 404, { error: 'User not found' });
      if (m[2]) {
        const limit = clampLimit(query.get('limit'), 20, 50);
        return send(res, 200, {
          posts: newestFirst()
            .filter((p) => p.authorHandle === user.handle)
            .slice(0, limit)
            .map((p) => ({
              id: p.id,
              content: p.content,
              createdAt: p.createdAt,
              likesCount: countLikes(p),
              repostsCount: p.reposts.size,
              repliesCount: p.replies.length,
              author: authorOf(p.authorHandle),
              media: [],
            })),
          nextCursor: null,
        });
      }
      const profile = profileOf(user);
      return send(res, 200, {
        user: {
          id: randomUUID(),
          handle: user.handle,
          displayName: user.displayName,
          bio: user.bio ?? null,
          avatarUrl: user.avatarUrl ?? null,
          headerUrl: null,
          website: null,
          followersCount: profile.followersCount,
          followingCount: 0,
          postsCount: profile.postsCount,
          createdAt: user.createdAt,
          isBot: false,
          publicKey: user.publicKey,
          did: user.did,
          dmPrivacy: 'everyone',
          canReceiveDms: true,
        },
      });
    }
    return send(res, 404, { error: 'Not found' });
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

  async function post(
    target: string,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    const answer = await fetch(`${originSchemeFor(target)}://${target}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await answer.text();
    let parsedBody: unknown = text;
    try {
      parsedBody = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: answer.status, body: parsedBody };
  }

  const signBody = <T extends Record<string, unknown>>(body: T) => originSignBody(privateKey, body);

  /** One GET of its readers (§6: localhost rule, 10 s), parsed with what the reader needs. */
  async function readJson<S extends z.ZodType>(
    target: string,
    path: string,
    schema: S,
  ): Promise<OriginRead<z.output<S>>> {
    let answer: Response;
    try {
      answer = await fetch(`${originSchemeFor(target)}://${target}${path}`, {
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      return { ok: false, status: 0, error: error instanceof Error ? error.message : 'fetch' };
    }
    if (!answer.ok) return { ok: false, status: answer.status, error: await answer.text() };
    const parsed = schema.safeParse(await answer.json().catch(() => undefined));
    return parsed.success
      ? { ok: true, value: parsed.data }
      : { ok: false, status: answer.status, error: JSON.stringify(parsed.error.issues) };
  }

  const read: OriginReader = {
    async user(target, handle) {
      const got = await readJson(
        target,
        `/api/swarm/users/${encodeURIComponent(handle)}?limit=0`,
        readSchemas.user,
      );
      if (!got.ok) return got;
      const p = got.value.profile;
      return {
        ok: true,
        value: {
          id: `swarm:${target}:${p.handle}`,
          handle: `${p.handle}@${target}`,
          displayName: p.displayName,
          bio: p.bio,
          avatarUrl: p.avatarUrl,
          headerUrl: p.headerUrl,
          followersCount: p.followersCount,
          followingCount: p.followingCount,
          postsCount: p.postsCount,
          website: p.website,
          createdAt: p.createdAt,
          isRemote: true,
          isSwarm: true,
          nodeDomain: target,
          isBot: p.isBot ?? false,
          did: p.did,
        },
      };
    },
    async userPosts(target, handle, limit = 20) {
      const got = await readJson(
        target,
        `/api/users/${encodeURIComponent(handle)}/posts?limit=${limit}`,
        readSchemas.userPosts,
      );
      if (!got.ok) return got;
      return {
        ok: true,
        value: got.value.posts.map((p) => ({ ...p, id: `swarm:${target}:${p.id}` })),
      };
    },
    post: (target, id) =>
      readJson(target, `/api/swarm/posts/${encodeURIComponent(id)}`, readSchemas.post),
    async timeline(target) {
      const got = await readJson(target, '/api/swarm/timeline?limit=20', readSchemas.timeline);
      return got.ok ? { ok: true, value: got.value.posts } : got;
    },
  };

  function actorFieldsFor(handle: string) {
    const user = users.get(handle);
    if (!user) throw new Error(`origin peer: no user ${handle}`);
    return {
      actorHandle: user.handle,
      actorDisplayName: user.displayName,
      ...(user.avatarUrl ? { actorAvatarUrl: user.avatarUrl } : {}),
      actorNodeDomain: domain,
    };
  }

  function newPost(
    authorHandle: string,
    content: string,
    at: Date,
    extra: { id?: string; isReply?: boolean } = {},
  ): OriginPost {
    const p: OriginPost = {
      id: extra.id ?? randomUUID(),
      authorHandle: authorHandle.toLowerCase(),
      content,
      createdAt: at.toISOString(),
      likes: new Set(),
      reposts: new Set(),
      replies: [],
      ...(extra.isReply ? { isReply: true } : {}),
    };
    posts.set(p.id, p);
    return p;
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
    signBody,
    sign: (payload) => originSign(privateKey, payload),
    post,
    announceTo(target) {
      const { lastSeenAt: _lastSeenAt, ...announcement } = info();
      return post(
        target,
        '/api/swarm/announce',
        signBody({ ...announcement, timestamp: now().toISOString() }),
      );
    },
    gossipWith(target, since) {
      return post(
        target,
        '/api/swarm/gossip',
        signBody({
          sender: domain,
          nodes: [
            info(),
            ...[...nodes.values()].map((n) => ({
              domain: n.domain,
              name: n.name ?? n.domain,
              lastSeenAt: n.lastSeenAt,
            })),
          ],
          handles: [...users.values()].map((u) => ({
            handle: u.handle,
            did: u.did,
            nodeDomain: domain,
            updatedAt: u.createdAt,
          })),
          timestamp: now().toISOString(),
          ...(since ? { since } : {}),
        }),
      );
    },
    async interact(target, kind, input) {
      const common = {
        interactionId: input.interactionId ?? randomUUID(),
        timestamp: input.timestamp ?? now().toISOString(),
      };
      const actor = actorFieldsFor(input.actor);
      let body: Record<string, unknown>;
      switch (kind) {
        case 'like':
          body = { postId: input.target, like: { ...actor, ...common } };
          break;
        case 'repost':
          body = {
            postId: input.target,
            repost: { ...actor, ...common, repostId: input.repostId ?? randomUUID() },
          };
          break;
        case 'unlike':
        case 'unrepost':
          body = {
            postId: input.target,
            [kind]: {
              actorHandle: actor.actorHandle,
              actorNodeDomain: actor.actorNodeDomain,
              ...common,
            },
          };
          break;
        case 'follow': {
          const user = users.get(input.actor);
          body = {
            targetHandle: input.target,
            follow: {
              followerHandle: actor.actorHandle,
              followerDisplayName: actor.actorDisplayName,
              ...(user?.avatarUrl ? { followerAvatarUrl: user.avatarUrl } : {}),
              ...(user?.bio ? { followerBio: user.bio } : {}),
              followerNodeDomain: domain,
              ...common,
            },
          };
          break;
        }
        case 'unfollow':
          body = {
            targetHandle: input.target,
            unfollow: { followerHandle: actor.actorHandle, followerNodeDomain: domain, ...common },
          };
          break;
        case 'mention':
          body = {
            mentionedHandle: input.target,
            mention: {
              ...actor,
              postId: input.postId ?? randomUUID(),
              postContent: input.postContent ?? `@${input.target}@${target}`,
              ...common,
            },
          };
          break;
      }
      // Its own rows first, as the origin writes them before telling the peer: the follow it
      // lists under `following`, the post that mentions (§5 serves both).
      const following = users.get(input.actor)?.following;
      if (kind === 'follow') following?.add(`${input.target}@${target}`.toLowerCase());
      if (kind === 'unfollow') following?.delete(`${input.target}@${target}`.toLowerCase());
      if (kind === 'mention' && !input.postId) {
        const mention = body.mention as { postId: string; postContent: string };
        newPost(input.actor, mention.postContent, now(), { id: mention.postId });
      }
      const sent = signBody(body);
      const answer = await post(target, `/api/swarm/interactions/${kind}`, sent);
      return { ...answer, sent };
    },
    async reply(target, input) {
      const user = users.get(input.actor);
      if (!user) throw new Error(`origin peer: no user ${input.actor}`);
      const body = {
        postId: input.postId,
        reply: {
          id: input.id ?? randomUUID(),
          content: input.content,
          createdAt: input.createdAt ?? now().toISOString(),
          author: {
            handle: user.handle,
            displayName: user.displayName,
            ...(user.avatarUrl ? { avatarUrl: user.avatarUrl } : {}),
            did: user.did,
            publicKey: user.publicKey,
          },
          nodeDomain: domain,
          mediaUrls: [],
        },
      };
      // The reply is its author's post on this node first (served by id, §5).
      if (!posts.has(body.reply.id)) {
        newPost(user.handle, input.content, new Date(body.reply.createdAt), {
          id: body.reply.id,
          isReply: true,
        });
      }
      const answer = await post(target, '/api/swarm/replies', body, {
        'X-Swarm-Source-Domain': domain,
        'X-Swarm-Signature': originSign(privateKey, body),
      });
      return { ...answer, sent: body };
    },
    acceptedOf: (endpoint) => accepted.filter((a) => a.endpoint === endpoint),
    refusing,
    read,
    rotateKey() {
      ({ privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }));
      publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
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
