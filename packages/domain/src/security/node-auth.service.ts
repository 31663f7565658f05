import {
  LIMITS,
  SWARM_PATHS,
  err,
  isWithinClockWindow,
  nodeInfoSchema,
  ok,
  originKeyAsPem,
  originNodeKeySchema,
  verifyOriginPayload,
  parseDomain,
  readNodeSignatureHeaders,
  verifyNodeRequestSignature,
  type NodeSignatureHeaders,
  type Result,
} from '@swarm/contract';
import { describePeerError, type PeerProfiles } from '../peers/index.ts';
import { createBatchedStatement } from '../persistence/batched-statement.ts';
import { driverQuery } from '../persistence/driver-query.ts';
import {
  blockedAndPinnedSql,
  insertNonceSql,
  pinNodeKeySql,
  recordNonceOnPinnedKeySql,
} from '../persistence/node-keys.sql.ts';
import { importNodeKey } from '../peers/key-cache.ts';
import type { PeerServiceDeps } from '../peers/service-deps.ts';

// Inbound node-signed requests (docs/protocol.md "Node authentication"): the sender's
// key is fetched from its /api/swarm/info once and pinned; every later request must verify
// against the pinned key. Nothing is written unless the request verifies.

export type NodeAuthFailureCode =
  'INVALID_SIGNATURE' | 'KEY_CONFLICT' | 'NODE_BLOCKED' | 'PROFILE_MISMATCH';

export interface NodeAuthFailure {
  code: NodeAuthFailureCode;
  message: string;
}

export interface NodeRequestToVerify {
  /** HTTP method as received. */
  method: string;
  /** Request path with its query string, as the sender signed it. */
  pathWithQuery: string;
  headers: { get(name: string): string | null | undefined };
  /** The exact body bytes received (empty for no body). */
  rawBody: Uint8Array;
}

/** An origin-profile signature (docs/protocol.md "Peers of the origin profile"). */
export interface OriginRequestToVerify {
  /** The domain whose node key must have signed (docs/origin-profile.md §2: body or header). */
  signerDomain: string;
  /** What was signed: the body without `signature` (replies: the whole body). */
  payload: unknown;
  /** Standard base64 DER ECDSA signature. */
  signature: string;
}

export interface NodeAuthService {
  verifyNodeRequest(
    request: NodeRequestToVerify,
  ): Promise<Result<{ sourceDomain: string }, NodeAuthFailure>>;
  /**
   * Verifies a body (or reply header) signature of the origin profile with the signer's pinned
   * key; a first contact fetches the key from `GET /api/node` and pins it (the same pin as our
   * profile's). No nonce: the caller's timestamp window and id deduplication stop replays.
   * A peer known to speak our profile (recorded, or its info shows our marker) is refused with
   * `PROFILE_MISMATCH`: it has user signatures to send, and this format has no place for them.
   */
  verifyOriginRequest(
    request: OriginRequestToVerify,
  ): Promise<Result<{ sourceDomain: string }, NodeAuthFailure>>;
  /**
   * Admin action after a node legitimately changed its key (or its software): forget the pinned
   * key and the recorded profile, so the next contact learns both again. False when no such
   * node is known.
   */
  resetPinnedKey(domain: string): Promise<boolean>;
}

export interface NodeAuthDeps extends PeerServiceDeps {
  /** The peers' profiles: what a verified request showed, and the origin format's gate (optional in unit tests). */
  profiles?: Pick<PeerProfiles, 'record' | 'known' | 'detect' | 'forget'>;
}

/** How long a fetched key is reused when a pinned key fails (bounds outbound fetches per sender). */
const KEY_RECHECK_MS = 60_000;
/** Expired nonce rows are deleted at most this often. */
const NONCE_PRUNE_EVERY_MS = 60_000;
const RECHECK_CACHE_MAX = 10_000;

/** Thrown inside the pinning transaction to roll the nonce back; never leaves this module. */
class PinConflict extends Error {}

export function createNodeAuthService(deps: NodeAuthDeps): NodeAuthService {
  const { prisma } = deps.db;
  const { clock, logger } = deps;
  const self = deps.config.domain;
  /** Keys fetched to explain a failing pinned key, per domain (in memory, per process). */
  const rechecked = new Map<string, { at: number; pem: string | undefined }>();
  let lastPrune = 0;
  /**
   * The key text last read as pinned, per domain: only a guess of which key to verify with
   * first; the database confirms it in the statement that records the nonce.
   */
  const pinnedHints = new Map<string, string>();
  const rememberPinned = (domain: string, pem: string) => {
    if (pinnedHints.size >= RECHECK_CACHE_MAX) pinnedHints.clear();
    pinnedHints.set(domain, pem);
  };

  const fail = (code: NodeAuthFailureCode, message: string) =>
    err<NodeAuthFailure>({ code, message });

  /** The key a node publishes now, canonical PEM; a failure sentence otherwise. */
  async function fetchPublishedKey(
    domain: string,
  ): Promise<Result<{ pem: string; key: CryptoKey; name: string }, string>> {
    const answer = await deps.peers.getJson(domain, SWARM_PATHS.info, nodeInfoSchema);
    if (!answer.ok) return err(describePeerError(answer.reason));
    const info = answer.value;
    if (info.domain !== domain) {
      return err(`${domain} describes itself as ${info.domain} in its node info`);
    }
    if (!info.publicKey) return err(`${domain} publishes no public key`);
    const key = await importNodeKey(info.publicKey);
    if (!key.ok) return err(`the public key published by ${domain} is unusable: ${key.reason}`);
    return ok({ ...key.value, name: info.name });
  }

  async function pruneNonces(now: Date) {
    if (now.getTime() - lastPrune < NONCE_PRUNE_EVERY_MS) return;
    lastPrune = now.getTime();
    await prisma.requestNonce.deleteMany({ where: { expiresAt: { lt: now } } });
  }

  /** A nonce is kept until the request's clock window is over (a replay after it is stale). */
  function nonceExpiry(headers: NodeSignatureHeaders): Date {
    return new Date(new Date(headers['X-Swarm-Timestamp']).getTime() + LIMITS.clockWindowMs);
  }

  function insertNonceFor(domain: string, headers: NodeSignatureHeaders) {
    return insertNonceSql(domain, headers['X-Swarm-Nonce'], nonceExpiry(headers));
  }

  /** Nonces recorded on the key still pinned, shared by concurrent requests (`recordNonceOnPinnedKeySql`). */
  const recordOnPinnedKey = createBatchedStatement<
    { domain: string; pem: string; headers: NodeSignatureHeaders },
    { confirmed: boolean; fresh: boolean }
  >({
    db: deps.db,
    ...recordNonceOnPinnedKeySql,
    row: ({ domain, pem, headers }) => ({
      domain,
      pem,
      nonce: headers['X-Swarm-Nonce'],
      expires_at: nonceExpiry(headers).toISOString(),
    }),
    result: (row) => ({ confirmed: row.confirmed === true, fresh: row.fresh === true }),
  });

  async function nonceRecorded(
    domain: string,
    fresh: boolean,
  ): Promise<Result<{ sourceDomain: string }, NodeAuthFailure>> {
    if (!fresh) return fail('INVALID_SIGNATURE', 'The nonce was already used (replayed request).');
    await pruneNonces(clock.now());
    return ok({ sourceDomain: domain });
  }

  /**
   * Records the nonce and, for a first contact, pins the key: one transaction then, so a replay
   * or a pin race leaves nothing behind.
   */
  async function accept(
    domain: string,
    headers: NodeSignatureHeaders,
    pin: { pem: string; name: string } | undefined,
  ): Promise<Result<{ sourceDomain: string }, NodeAuthFailure>> {
    const now = clock.now();
    const insertNonce = insertNonceFor(domain, headers);
    let fresh: boolean;
    if (!pin) {
      // The usual case: a single statement, atomic on its own.
      fresh = (await driverQuery(deps.db, insertNonce)).length === 1;
    } else {
      try {
        fresh = await prisma.$transaction(async (tx) => {
          if ((await tx.$queryRaw<unknown[]>(insertNonce)).length === 0) return false;
          // Create the row if the registry does not know the node yet; otherwise touch only
          // the key-pinning columns (the registry owns the rest).
          const pinned = await tx.$queryRaw<{ public_key: string | null }[]>(
            pinNodeKeySql({ domain, name: pin.name, pem: pin.pem, now, origin: false }),
          );
          if (pinned.length === 0) {
            // Pinned meanwhile (another request, another replica): same key is fine.
            const row = await tx.swarmNode.findUnique({
              where: { domain },
              select: { publicKey: true },
            });
            const current = row?.publicKey ? await importNodeKey(row.publicKey) : undefined;
            if (!current?.ok || current.value.pem !== pin.pem) throw new PinConflict();
          }
          return true;
        });
      } catch (error) {
        if (error instanceof PinConflict) {
          return fail('KEY_CONFLICT', keyConflictMessage(domain));
        }
        throw error;
      }
    }
    return nonceRecorded(domain, fresh);
  }

  /**
   * The usual request, in one (shared) round trip: verified with the key this process saw pinned
   * last time, then `recordOnPinnedKey` records the nonce only if that key is still the pinned
   * one and the node is not blocked. Undefined when that cannot be shown (signature, key
   * changed, blocked): the full check decides then.
   */
  /** The key `domain` publishes (as `fetchKey` reads it), if the signature verifies with it. */
  async function publishedKeyVerifying(
    domain: string,
    fetchKey: typeof fetchPublishedKey,
    verify: (key: CryptoKey) => Promise<boolean>,
  ): Promise<Result<{ pem: string; key: CryptoKey; name: string }, NodeAuthFailure>> {
    const published = await fetchKey(domain);
    if (!published.ok) {
      return fail(
        'INVALID_SIGNATURE',
        `The key of ${domain} is unknown here and could not be fetched: ${published.reason}`,
      );
    }
    if (!(await verify(published.value.key))) {
      return fail(
        'INVALID_SIGNATURE',
        `The signature does not verify with the key ${domain} publishes.`,
      );
    }
    return published;
  }

  async function acceptOnPinnedHint(
    domain: string,
    headers: NodeSignatureHeaders,
    hint: string,
    verify: (key: CryptoKey) => Promise<boolean>,
  ): Promise<Result<{ sourceDomain: string }, NodeAuthFailure> | undefined> {
    const key = await importNodeKey(hint);
    if (!key.ok || !(await verify(key.value.key))) return undefined;
    const row = await recordOnPinnedKey({ domain, pem: hint, headers });
    if (!row.confirmed) {
      pinnedHints.delete(domain);
      return undefined;
    }
    return nonceRecorded(domain, row.fresh);
  }

  function keyConflictMessage(domain: string) {
    return `${domain} now presents a key other than the one pinned for it; an admin of this node must reset the pinned key.`;
  }

  /** A pinned key failed: is it a forgery, or did the node change its key? */
  async function explainPinnedFailure(
    domain: string,
    pinnedPem: string,
    verify: (key: CryptoKey) => Promise<boolean>,
    fetchKey: typeof fetchPublishedKey = fetchPublishedKey,
  ): Promise<Result<never, NodeAuthFailure>> {
    const nowMs = clock.now().getTime();
    let entry = rechecked.get(domain);
    if (!entry || nowMs - entry.at >= KEY_RECHECK_MS) {
      const published = await fetchKey(domain);
      entry = { at: nowMs, pem: published.ok ? published.value.pem : undefined };
      if (rechecked.size >= RECHECK_CACHE_MAX) rechecked.clear();
      rechecked.set(domain, entry);
    }
    if (entry.pem && entry.pem !== pinnedPem) {
      const key = await importNodeKey(entry.pem);
      if (key.ok && (await verify(key.value.key))) {
        logger.warn({ peer: domain }, 'node presents a key other than its pinned key');
        return fail('KEY_CONFLICT', keyConflictMessage(domain));
      }
    }
    return fail(
      'INVALID_SIGNATURE',
      `The signature does not verify with the key pinned for ${domain}.`,
    );
  }

  async function verifyNodeRequest(
    request: NodeRequestToVerify,
  ): Promise<Result<{ sourceDomain: string }, NodeAuthFailure>> {
    const verified = await verifyHeaders(request);
    // A header-signed request shows the sender speaks our profile (recorded once, never relabelling).
    if (verified.ok) await deps.profiles?.record(verified.value.sourceDomain, 'swarm');
    return verified;
  }

  async function verifyHeaders(
    request: NodeRequestToVerify,
  ): Promise<Result<{ sourceDomain: string }, NodeAuthFailure>> {
    const read = readNodeSignatureHeaders((name) => request.headers.get(name));
    if (!read.ok) return fail('INVALID_SIGNATURE', read.reason);
    const headers = read.value;
    const parsed = parseDomain(headers['X-Swarm-Source-Domain']);
    if (!parsed.ok) return fail('INVALID_SIGNATURE', parsed.reason);
    const domain = parsed.value;
    if (domain === self) {
      return fail('INVALID_SIGNATURE', 'The request claims to come from this node itself.');
    }
    const withinWindow = isWithinClockWindow(headers['X-Swarm-Timestamp'], clock.now());
    const verify = (publicKey: CryptoKey) =>
      verifyNodeRequestSignature({
        publicKey,
        method: request.method,
        path: request.pathWithQuery,
        targetDomain: self,
        body: request.rawBody,
        headers,
      });

    const hint = pinnedHints.get(domain);
    if (hint && withinWindow) {
      const accepted = await acceptOnPinnedHint(domain, headers, hint, verify);
      if (accepted) return accepted;
    }

    // Block and pinned key in one round trip.
    const [known] = await driverQuery<{ blocked: boolean; pinned: string | null }>(
      deps.db,
      blockedAndPinnedSql(domain),
    );
    if (known?.blocked) {
      return fail('NODE_BLOCKED', `${domain} is blocked on this node.`);
    }
    if (!withinWindow) {
      return fail(
        'INVALID_SIGNATURE',
        'X-Swarm-Timestamp is more than 5 minutes away from this node’s clock.',
      );
    }

    if (known?.pinned) rememberPinned(domain, known.pinned);
    const pinned = known?.pinned ? await importNodeKey(known.pinned) : undefined;
    if (pinned?.ok) {
      if (await verify(pinned.value.key)) return accept(domain, headers, undefined);
      return explainPinnedFailure(domain, pinned.value.pem, verify);
    }

    // First signed contact (or after an admin reset): fetch the key the node publishes.
    const published = await publishedKeyVerifying(domain, fetchPublishedKey, verify);
    if (!published.ok) return published;
    const pin = { pem: published.value.pem, name: published.value.name };
    const accepted = await accept(domain, headers, pin);
    if (accepted.ok) rememberPinned(domain, pin.pem);
    return accepted;
  }

  /** The key an origin-profile node publishes at `GET /api/node` (PEM or bare base64 SPKI). */
  async function fetchOriginKey(
    domain: string,
  ): Promise<Result<{ pem: string; key: CryptoKey; name: string }, string>> {
    const answer = await deps.peers.getJson(domain, '/api/node', originNodeKeySchema);
    if (!answer.ok) return err(describePeerError(answer.reason));
    const key = await importNodeKey(originKeyAsPem(answer.value.publicKey));
    if (!key.ok) return err(`the public key published by ${domain} is unusable: ${key.reason}`);
    return ok({ ...key.value, name: answer.value.name ?? '' });
  }

  /** Pins a first-contact key (no nonce); a different key pinned meanwhile is a conflict. */
  async function pinOriginKey(
    domain: string,
    pin: { pem: string; name: string },
  ): Promise<Result<{ sourceDomain: string }, NodeAuthFailure>> {
    const now = clock.now();
    const pinned = await prisma.$queryRaw<{ public_key: string | null }[]>(
      pinNodeKeySql({ domain, name: pin.name, pem: pin.pem, now, origin: true }),
    );
    if (pinned.length === 0) {
      const row = await prisma.swarmNode.findUnique({
        where: { domain },
        select: { publicKey: true },
      });
      const current = row?.publicKey ? await importNodeKey(row.publicKey) : undefined;
      if (!current?.ok || current.value.pem !== pin.pem) {
        return fail('KEY_CONFLICT', keyConflictMessage(domain));
      }
    }
    rememberPinned(domain, pin.pem);
    return ok({ sourceDomain: domain });
  }

  async function verifyOriginRequest(
    request: OriginRequestToVerify,
  ): Promise<Result<{ sourceDomain: string }, NodeAuthFailure>> {
    const parsed = parseDomain(request.signerDomain);
    if (!parsed.ok) return fail('INVALID_SIGNATURE', `signer domain: ${parsed.reason}`);
    const domain = parsed.value;
    if (domain === self) {
      return fail('INVALID_SIGNATURE', 'The request claims to come from this node itself.');
    }
    const verify = (publicKey: CryptoKey) =>
      verifyOriginPayload(publicKey, request.payload, request.signature);
    const [known] = await driverQuery<{
      blocked: boolean;
      pinned: string | null;
      profile: string | null;
    }>(deps.db, blockedAndPinnedSql(domain));
    if (known?.blocked) return fail('NODE_BLOCKED', `${domain} is blocked on this node.`);
    if ((await profileOf(domain, known?.profile ?? null)) === 'swarm') {
      return fail(
        'PROFILE_MISMATCH',
        `${domain} speaks this node's profile: its requests must be signed with the X-Swarm-* headers (and its users' signatures), not the origin profile's body signature.`,
      );
    }
    const pinned = known?.pinned ? await importNodeKey(known.pinned) : undefined;
    if (pinned?.ok) {
      if (await verify(pinned.value.key)) {
        await deps.profiles?.record(domain, 'origin');
        return ok({ sourceDomain: domain });
      }
      return explainPinnedFailure(domain, pinned.value.pem, verify, fetchOriginKey);
    }
    const published = await publishedKeyVerifying(domain, fetchOriginKey, verify);
    if (!published.ok) return published;
    const accepted = await pinOriginKey(domain, published.value);
    if (accepted.ok) await deps.profiles?.record(domain, 'origin');
    return accepted;
  }

  /**
   * The profile the origin format's gate goes by: the registry's, else what this process learnt
   * (a POST of ours it accepted before it had a row), else what the peer serves now (our marker
   * in its info means ours). Nothing a request carries decides it.
   */
  async function profileOf(domain: string, recorded: string | null) {
    if (recorded === 'swarm' || recorded === 'origin') return recorded;
    if (!deps.profiles) return undefined;
    return (await deps.profiles.known(domain)) ?? (await deps.profiles.detect(domain));
  }

  async function resetPinnedKey(domain: string): Promise<boolean> {
    const parsed = parseDomain(domain);
    if (!parsed.ok) return false;
    const reset = await prisma.swarmNode.updateMany({
      where: { domain: parsed.value },
      data: { publicKey: null, keyPinnedAt: null, protocolProfile: null },
    });
    rechecked.delete(parsed.value);
    pinnedHints.delete(parsed.value);
    deps.profiles?.forget(parsed.value);
    if (reset.count > 0) logger.info({ peer: parsed.value }, 'pinned node key reset');
    return reset.count > 0;
  }

  return { verifyNodeRequest, verifyOriginRequest, resetPinnedKey };
}
