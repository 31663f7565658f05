import { z } from 'zod';
import { canonicalJson } from './canonical-json.ts';
import { signBytes, verifyBytes } from './crypto.ts';
import { base64Decode, base64Encode, base64urlDecode, base64urlEncode } from './encoding.ts';
import { remoteHandleSchema } from './ids.ts';
import { domainSchema } from './node-domain.ts';
import { interactionIdSchema, signatureSchema, timestampSchema, uuidSchema } from './primitives.ts';

// Peers of the origin profile (docs/protocol.md "Peers of the origin profile"): nodes of the
// implementation the interface came from. They sign request bodies, not headers: the body's
// `signature` is standard base64 of the DER ECDSA P-256/SHA-256 signature over the canonical JSON
// of the body without `signature`, made with the node key published at `GET /api/node`. Replies
// carry the same kind of signature over the body in `X-Swarm-Signature`, with no timestamp or
// nonce header. There are no user signatures. For every JSON value that can arrive over the wire
// their canonical JSON is RFC 8785, so `canonicalJson` serves both profiles.

/** The profiles a peer may speak; null/absent in the registry until detected. */
export const PROTOCOL_PROFILES = ['swarm', 'origin'] as const;
export type ProtocolProfile = (typeof PROTOCOL_PROFILES)[number];

/**
 * Our marker: node info (`GET /api/swarm/info`, announce bodies to peers of our profile) carries
 * `protocolProfile: "swarm-node"`. An info member, not a capability: origin nodes refuse a body
 * whose capabilities hold a value outside their list, and they relay the capabilities they store.
 */
export const SWARM_PROFILE_MARKER = 'swarm-node';

/** The capabilities an origin node accepts; any other value makes it refuse the whole body. */
export const ORIGIN_CAPABILITIES = [
  'handles',
  'gossip',
  'relay',
  'search',
  'interactions',
] as const;

/** `GET /api/node` of an origin node (and ours): only the key matters. */
export const originNodeKeySchema = z.object({
  publicKey: z.string().min(1),
  domain: z.string().optional(),
  name: z.string().nullish(),
});

// ---- DER ⇄ IEEE-P1363 ------------------------------------------------------------------------

function derInteger(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  const pad = (trimmed[0] ?? 0) & 0x80 ? 1 : 0;
  const out = new Uint8Array(2 + pad + trimmed.length);
  out[0] = 0x02;
  out[1] = pad + trimmed.length;
  out.set(trimmed, 2 + pad);
  return out;
}

/** ASN.1 DER `SEQUENCE { r INTEGER, s INTEGER }` of a 64-byte r‖s signature. */
export function p1363ToDer(signature: Uint8Array): Uint8Array {
  if (signature.length !== 64) throw new RangeError('a P-256 signature has 64 bytes');
  const r = derInteger(signature.subarray(0, 32));
  const s = derInteger(signature.subarray(32));
  const out = new Uint8Array(2 + r.length + s.length);
  out[0] = 0x30;
  out[1] = r.length + s.length;
  out.set(r, 2);
  out.set(s, 2 + r.length);
  return out;
}

/** r‖s (64 bytes) of a DER signature; undefined when it is not a well-formed P-256 one. */
export function derToP1363(der: Uint8Array): Uint8Array | undefined {
  if (der.length < 8 || der[0] !== 0x30 || der[1] !== der.length - 2) return undefined;
  const out = new Uint8Array(64);
  let at = 2;
  for (const offset of [0, 32]) {
    if (der[at] !== 0x02) return undefined;
    const len = der[at + 1] ?? 0;
    if (len < 1 || len > 33 || at + 2 + len > der.length) return undefined;
    let value = der.subarray(at + 2, at + 2 + len);
    while (value.length > 1 && value[0] === 0) value = value.subarray(1);
    if (value.length > 32) return undefined;
    out.set(value, offset + 32 - value.length);
    at += 2 + len;
  }
  return at === der.length ? out : undefined;
}

// ---- signatures ------------------------------------------------------------------------------

/** `body` without its `signature` member: what the origin profile signs. */
export function withoutSignature(body: Record<string, unknown>): Record<string, unknown> {
  const { signature: _signature, ...rest } = body;
  return rest;
}

/** Standard base64 DER signature over the canonical JSON of `payload`, with our node key. */
export async function signOriginPayload(privateKey: CryptoKey, payload: unknown): Promise<string> {
  const p1363 = base64urlDecode(await signBytes(privateKey, canonicalJson(payload)));
  return base64Encode(p1363ToDer(p1363));
}

/** `body` (minus any `signature`) plus the origin profile's body `signature`. */
export async function signOriginBody(
  privateKey: CryptoKey,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const unsigned = withoutSignature(body);
  return { ...unsigned, signature: await signOriginPayload(privateKey, unsigned) };
}

/**
 * Checks an origin-profile signature (base64 DER; `-`/`_` tolerated as Node's decoder does)
 * over the canonical JSON of `payload`. Never throws.
 */
export async function verifyOriginPayload(
  publicKey: CryptoKey,
  payload: unknown,
  signature: string,
): Promise<boolean> {
  if (typeof signature !== 'string' || signature.length === 0 || signature.length > 200) {
    return false;
  }
  try {
    const der = base64Decode(
      signature
        .replace(/-/g, '+')
        .replace(/_/g, '/')
        .replace(/=+$/, '')
        .padEnd(Math.ceil(signature.replace(/=+$/, '').length / 4) * 4, '='),
    );
    const p1363 = derToP1363(der);
    if (!p1363) return false;
    return await verifyBytes(publicKey, canonicalJson(payload), base64urlEncode(p1363));
  } catch {
    return false; // not base64, or not canonicalisable (a lone surrogate)
  }
}

/** A key published as PEM or as bare base64 SPKI DER, as PEM. */
export function originKeyAsPem(text: string): string {
  if (text.includes('-----BEGIN')) return text;
  const body = text.replace(/\s+/g, '').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PUBLIC KEY-----\n${body.join('\n')}\n-----END PUBLIC KEY-----\n`;
}

// ---- the signer of an inbound origin-profile request (docs/origin-profile.md §2) ----------------

/** Interactions an origin node sends (ours plus `unrepost`). */
export const ORIGIN_INTERACTION_KINDS = [
  'like',
  'unlike',
  'repost',
  'unrepost',
  'follow',
  'unfollow',
  'mention',
] as const;
export type OriginInteractionKind = (typeof ORIGIN_INTERACTION_KINDS)[number];

/** The domain whose node key signs a body-signed request to `path`; undefined when none. */
export function originSignerOf(path: string, body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const member = (object: unknown, key: string) =>
    typeof object === 'object' && object !== null
      ? text((object as Record<string, unknown>)[key])
      : undefined;
  if (path === '/api/swarm/announce') return text(b.domain);
  if (path === '/api/swarm/gossip') return text(b.sender);
  if (path === '/api/swarm/inbox') return text(b.nodeDomain);
  const kind = /^\/api\/swarm\/interactions\/([a-z]+)$/.exec(path)?.[1];
  if (!kind || !(ORIGIN_INTERACTION_KINDS as readonly string[]).includes(kind)) return undefined;
  return kind === 'follow' || kind === 'unfollow'
    ? member(b[kind], 'followerNodeDomain')
    : member(b[kind], 'actorNodeDomain');
}

/** `POST /api/swarm/interactions/unrepost` (the origin's endpoint, not in the spec). */
export const unrepostBodySchema = z.object({
  postId: uuidSchema,
  unrepost: z.object({
    actorHandle: remoteHandleSchema,
    actorNodeDomain: domainSchema,
    interactionId: interactionIdSchema,
    timestamp: timestampSchema,
  }),
  signature: signatureSchema.optional(),
});
export type UnrepostBody = z.output<typeof unrepostBodySchema>;

// ---- outbound shapes: only what the origin's rules accept (docs/origin-profile.md §3, §4) ------

type Shape =
  'text' | 'url' | 'number' | 'boolean' | 'capabilities' | { [key: string]: Shape } | [Shape];

const ORIGIN_DISPLAY_NAME_MAX = 50;
const ORIGIN_BIO_MAX = 500;
const ORIGIN_CONTENT_MAX = 10_000;

function isAbsoluteUrl(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/** Keeps the members `shape` names, with the right types; drops null, `""` URLs and the rest. */
function shapeValue(value: unknown, shape: Shape): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return undefined;
    return value.map((item) => shapeValue(item, shape[0])).filter((item) => item !== undefined);
  }
  if (typeof shape === 'object') {
    if (typeof value !== 'object' || Array.isArray(value)) return undefined;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(shape)) {
      const shaped = shapeValue((value as Record<string, unknown>)[key], inner);
      if (shaped !== undefined) out[key] = shaped;
    }
    return out;
  }
  switch (shape) {
    case 'text':
      return typeof value === 'string' ? value : undefined;
    case 'url':
      return typeof value === 'string' && value.trim() !== '' && isAbsoluteUrl(value)
        ? value
        : undefined;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'capabilities':
      return Array.isArray(value)
        ? value.filter((c): c is string =>
            (ORIGIN_CAPABILITIES as readonly string[]).includes(c as string),
          )
        : undefined;
  }
}

const ACTOR: Record<string, Shape> = {
  actorHandle: 'text',
  actorDisplayName: 'text',
  actorAvatarUrl: 'url',
  actorNodeDomain: 'text',
  interactionId: 'text',
  timestamp: 'text',
};
const UNDO: Record<string, Shape> = {
  actorHandle: 'text',
  actorNodeDomain: 'text',
  interactionId: 'text',
  timestamp: 'text',
};
const NODE_INFO: Record<string, Shape> = {
  domain: 'text',
  name: 'text',
  description: 'text',
  logoUrl: 'url',
  publicKey: 'text',
  softwareVersion: 'text',
  userCount: 'number',
  postCount: 'number',
  isNsfw: 'boolean',
  capabilities: 'capabilities',
};

const ORIGIN_SHAPES: Record<string, Shape> = {
  '/api/swarm/announce': { ...NODE_INFO, timestamp: 'text' },
  '/api/swarm/gossip': {
    sender: 'text',
    nodes: [{ ...NODE_INFO, lastSeenAt: 'text' }],
    handles: [{ handle: 'text', did: 'text', nodeDomain: 'text', updatedAt: 'text' }],
    timestamp: 'text',
    since: 'text',
  },
  '/api/swarm/interactions/like': { postId: 'text', like: ACTOR },
  '/api/swarm/interactions/unlike': { postId: 'text', unlike: UNDO },
  '/api/swarm/interactions/repost': { postId: 'text', repost: { ...ACTOR, repostId: 'text' } },
  '/api/swarm/interactions/unrepost': { postId: 'text', unrepost: UNDO },
  '/api/swarm/interactions/follow': {
    targetHandle: 'text',
    follow: {
      followerHandle: 'text',
      followerDisplayName: 'text',
      followerAvatarUrl: 'url',
      followerBio: 'text',
      followerNodeDomain: 'text',
      interactionId: 'text',
      timestamp: 'text',
    },
  },
  '/api/swarm/interactions/unfollow': {
    targetHandle: 'text',
    unfollow: {
      followerHandle: 'text',
      followerNodeDomain: 'text',
      interactionId: 'text',
      timestamp: 'text',
    },
  },
  '/api/swarm/interactions/mention': {
    mentionedHandle: 'text',
    mention: { ...ACTOR, postId: 'text', postContent: 'text' },
  },
  '/api/swarm/replies': {
    postId: 'text',
    reply: {
      id: 'text',
      content: 'text',
      createdAt: 'text',
      author: { handle: 'text', displayName: 'text', avatarUrl: 'url', did: 'text' },
      nodeDomain: 'text',
      mediaUrls: ['url'],
    },
  },
};

/** The paths an origin-profile peer accepts a POST of ours on. */
export function isOriginWritePath(path: string): boolean {
  return path in ORIGIN_SHAPES;
}

/** The display name an origin node requires: 1–50 characters, the handle when we have none. */
function displayName(value: unknown, handle: unknown): string {
  const text = typeof value === 'string' ? value.trim() : '';
  return (text || (typeof handle === 'string' ? handle : '') || '?').slice(
    0,
    ORIGIN_DISPLAY_NAME_MAX,
  );
}

/** Fits the members with lengths to the origin's limits (display names, bio, mention text). */
function fitLengths(path: string, body: Record<string, unknown>): void {
  const kind = path.slice(path.lastIndexOf('/') + 1);
  const inner = body[kind];
  if (typeof inner !== 'object' || inner === null) return;
  const record = inner as Record<string, unknown>;
  if (kind === 'like' || kind === 'repost' || kind === 'mention') {
    record.actorDisplayName = displayName(record.actorDisplayName, record.actorHandle);
  }
  if (kind === 'follow') {
    record.followerDisplayName = displayName(record.followerDisplayName, record.followerHandle);
    if (typeof record.followerBio === 'string') {
      if (record.followerBio === '') delete record.followerBio;
      else record.followerBio = record.followerBio.slice(0, ORIGIN_BIO_MAX);
    }
  }
  if (kind === 'mention' && typeof record.postContent === 'string') {
    record.postContent = record.postContent.slice(0, ORIGIN_CONTENT_MAX);
  }
}

/**
 * Our request body as an origin-profile peer accepts it at `path`: only the members its schema
 * knows, no `null`, no empty or relative URLs, capabilities from its list, display names within
 * its limits, and no `signature` (the caller signs the result its way). Unknown paths: undefined.
 */
export function toOriginBody(path: string, body: unknown): Record<string, unknown> | undefined {
  const shape = ORIGIN_SHAPES[path];
  if (!shape) return undefined;
  const shaped = (shapeValue(body, shape) ?? {}) as Record<string, unknown>;
  fitLengths(path, shaped);
  return shaped;
}
