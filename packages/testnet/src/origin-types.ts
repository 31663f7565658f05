import type { OriginEndpoint, OriginInteractionKind } from './origin-schemas.ts';
import type { OriginReader } from './origin-reader.ts';

// What a fake origin peer holds and what a test sees of it.

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
  /** A repost (content ""): the reposted post as it names it (its id, or `swarm:{domain}:{id}`). */
  repostOfId?: string;
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
  /**
   * Pushes one of its posts the origin's way (§6 `POST /api/swarm/inbox`): the post as its node
   * holds it (a new one of `content` by `author` without `postId`), author, nodeDomain,
   * timestamp and the body `signature`; absent values left out. `extra` adds post members
   * (media, replyToId, repostOfId, link preview).
   */
  pushPost(
    domain: string,
    input: {
      author: string;
      postId?: string;
      content?: string;
      isNsfw?: boolean;
      timestamp?: string;
      extra?: Record<string, unknown>;
    },
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
