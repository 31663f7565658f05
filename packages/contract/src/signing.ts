import { canonicalJson } from './canonical-json.ts';
import { sha256Base64url, signBytes, verifyBytes } from './crypto.ts';
import { base64urlDecode, base64urlEncode, randomBytes } from './encoding.ts';
import { LIMITS } from './limits.ts';
import { parseDomain } from './node-domain.ts';
import { formatTimestamp, timestampSchema } from './primitives.ts';
import type { Result } from './result.ts';
import { err, ok } from './result.ts';

/** Header names of node-signed requests (docs/protocol.md). */
export const SWARM_HEADERS = {
  sourceDomain: 'X-Swarm-Source-Domain',
  timestamp: 'X-Swarm-Timestamp',
  nonce: 'X-Swarm-Nonce',
  signature: 'X-Swarm-Signature',
} as const;

export interface NodeSignatureHeaders {
  'X-Swarm-Source-Domain': string;
  'X-Swarm-Timestamp': string;
  'X-Swarm-Nonce': string;
  'X-Swarm-Signature': string;
}

export interface NodeRequestSigningInput {
  method: string;
  /** Request path with its query string, e.g. `/api/swarm/gossip`. */
  path: string;
  sourceDomain: string;
  targetDomain: string;
  /** The `X-Swarm-Timestamp` header value, byte for byte. */
  timestamp: string;
  nonce: string;
  /** base64url (no padding) SHA-256 of the exact body bytes. */
  bodySha256: string;
}

/** `at least 16 random bytes, base64url`. */
export function createNonce(byteLength: number = LIMITS.nonceMinBytes): string {
  return base64urlEncode(randomBytes(Math.max(byteLength, LIMITS.nonceMinBytes)));
}

/** The exact string a node signs: canonical JSON of the seven members; method upper-cased. */
export function nodeRequestSigningPayload(input: NodeRequestSigningInput): string {
  return canonicalJson({
    method: input.method.toUpperCase(),
    path: input.path,
    sourceDomain: input.sourceDomain,
    targetDomain: input.targetDomain,
    timestamp: input.timestamp,
    nonce: input.nonce,
    bodySha256: input.bodySha256,
  });
}

export async function signNodeRequest(input: {
  privateKey: CryptoKey;
  method: string;
  path: string;
  sourceDomain: string;
  targetDomain: string;
  /** Exactly the bytes (or UTF-8 text) that will be sent; "" for no body. */
  body: Uint8Array | string;
  now?: Date;
  nonce?: string;
}): Promise<NodeSignatureHeaders> {
  const timestamp = formatTimestamp(input.now ?? new Date());
  const nonce = input.nonce ?? createNonce();
  const payload = nodeRequestSigningPayload({
    method: input.method,
    path: input.path,
    sourceDomain: input.sourceDomain,
    targetDomain: input.targetDomain,
    timestamp,
    nonce,
    bodySha256: await sha256Base64url(input.body),
  });
  return {
    'X-Swarm-Source-Domain': input.sourceDomain,
    'X-Swarm-Timestamp': timestamp,
    'X-Swarm-Nonce': nonce,
    'X-Swarm-Signature': await signBytes(input.privateKey, payload),
  };
}

/**
 * Reads and checks the form of the four headers (`get` is e.g. `(n) => request.headers.get(n)`).
 * Values are returned unchanged, because the signature covers them as sent. `ok: false` with
 * every header absent means "unsigned request" (allowed for announce and gossip).
 */
export function readNodeSignatureHeaders(
  get: (name: string) => string | null | undefined,
): Result<NodeSignatureHeaders> {
  const sourceDomain = get(SWARM_HEADERS.sourceDomain) ?? '';
  const timestamp = get(SWARM_HEADERS.timestamp) ?? '';
  const nonce = get(SWARM_HEADERS.nonce) ?? '';
  const signature = get(SWARM_HEADERS.signature) ?? '';
  if (!sourceDomain || !timestamp || !nonce || !signature) {
    return err(
      'missing X-Swarm-Source-Domain, X-Swarm-Timestamp, X-Swarm-Nonce or X-Swarm-Signature header',
    );
  }
  const domain = parseDomain(sourceDomain);
  if (!domain.ok) return err(`X-Swarm-Source-Domain: ${domain.reason}`);
  if (!timestampSchema.safeParse(timestamp).success)
    return err('X-Swarm-Timestamp is not an ISO 8601 timestamp');
  let nonceBytes: Uint8Array;
  try {
    nonceBytes = base64urlDecode(nonce);
  } catch {
    return err('X-Swarm-Nonce is not base64url');
  }
  if (nonceBytes.length < LIMITS.nonceMinBytes || nonce.length > 128) {
    return err(`X-Swarm-Nonce must carry ${LIMITS.nonceMinBytes} to 96 bytes`);
  }
  if (signature.length > 256) return err('X-Swarm-Signature is too long');
  return ok({
    'X-Swarm-Source-Domain': sourceDomain,
    'X-Swarm-Timestamp': timestamp,
    'X-Swarm-Nonce': nonce,
    'X-Swarm-Signature': signature,
  });
}

/**
 * Pure signature check of a node-signed request. The receiver separately checks the clock window
 * (`isWithinClockWindow`), nonce reuse and that the key is the one pinned for the source domain.
 */
export async function verifyNodeRequestSignature(input: {
  publicKey: CryptoKey;
  method: string;
  path: string;
  /** The receiver's own domain. */
  targetDomain: string;
  body: Uint8Array | string;
  headers: NodeSignatureHeaders;
}): Promise<boolean> {
  const payload = nodeRequestSigningPayload({
    method: input.method,
    path: input.path,
    sourceDomain: input.headers['X-Swarm-Source-Domain'],
    targetDomain: input.targetDomain,
    timestamp: input.headers['X-Swarm-Timestamp'],
    nonce: input.headers['X-Swarm-Nonce'],
    bodySha256: await sha256Base64url(input.body),
  });
  return verifyBytes(input.publicKey, payload, input.headers['X-Swarm-Signature']);
}

function toMillis(timestamp: string | Date): number {
  return typeof timestamp === 'string' ? new Date(timestamp).getTime() : timestamp.getTime();
}

/** |timestamp − now| ≤ windowMs (default ±5 min); unparseable timestamps are outside. */
export function isWithinClockWindow(
  timestamp: string | Date,
  now: Date,
  windowMs: number = LIMITS.clockWindowMs,
): boolean {
  const t = toMillis(timestamp);
  return Number.isFinite(t) && Math.abs(t - now.getTime()) <= windowMs;
}

/** Interaction `timestamp`: at most 7 days old (outbox retries) and 5 minutes ahead. */
export function isAcceptableInteractionTime(timestamp: string | Date, now: Date): boolean {
  const t = toMillis(timestamp);
  const n = now.getTime();
  return (
    Number.isFinite(t) &&
    t >= n - LIMITS.interactionMaxAgeMs &&
    t <= n + LIMITS.interactionMaxFutureMs
  );
}

/** `action` of a user signature: the endpoint's last path segment (`reply` for POST /api/swarm/replies). */
export const USER_ACTIONS = [
  'like',
  'unlike',
  'repost',
  'unrepost',
  'follow',
  'unfollow',
  'mention',
  'reply',
  // Direct messages: not endpoints' last segments, but the same signing scheme.
  'message',
  'receipt',
  'encryption-key',
  // Account ownership (docs/protocol.md): statements relayed to many nodes, signed once.
  'delete-post',
  'delete-account',
  'move',
  'export',
  'import',
  // A post pushed to the nodes of the author's followers (docs/protocol.md "Post delivery").
  'post',
  // A user's delegation to an app key (docs/protocol.md "App delegations").
  'delegate',
] as const;
export type UserAction = (typeof USER_ACTIONS)[number];

/** The exact string a user signs: canonical JSON of `{ action, targetDomain, body }`, body without `signature`. */
export function userSignaturePayload(input: {
  action: UserAction;
  targetDomain: string;
  body: Record<string, unknown>;
}): string {
  const { signature: _signature, ...body } = input.body;
  return canonicalJson({ action: input.action, targetDomain: input.targetDomain, body });
}

/** Signature for the body's `signature` member (any existing `signature` is ignored when signing). */
export async function signUserAction(input: {
  privateKey: CryptoKey;
  action: UserAction;
  targetDomain: string;
  body: Record<string, unknown>;
}): Promise<string> {
  return signBytes(input.privateKey, userSignaturePayload(input));
}

/**
 * Checks `body.signature` against the actor's key. Pass the raw JSON body as received (not a
 * zod-parsed copy, which drops unknown members and normalises values). No signature → false.
 */
export async function verifyUserAction(input: {
  publicKey: CryptoKey;
  action: UserAction;
  targetDomain: string;
  body: unknown;
}): Promise<boolean> {
  const { body } = input;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const signature = (body as Record<string, unknown>).signature;
  if (typeof signature !== 'string') return false;
  try {
    const payload = userSignaturePayload({
      action: input.action,
      targetDomain: input.targetDomain,
      body: body as Record<string, unknown>,
    });
    return await verifyBytes(input.publicKey, payload, signature);
  } catch {
    return false; // not canonicalisable (e.g. lone surrogate): cannot have been signed by us
  }
}
