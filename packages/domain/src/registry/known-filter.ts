import { createHash, randomBytes } from 'node:crypto';
import { LIMITS, type GossipKnown } from '@swarm/contract';

/**
 * The `known` filter of a gossip request (docs/protocol.md, Gossip): a Bloom filter of the
 * domains the requester holds, so an answer lists the nodes it lacks instead of the same oldest
 * page to every new partner. A false positive only leaves a node out of one answer (the salt
 * changes every request); the filter is never trusted for anything else.
 */
export const KNOWN_FILTER = {
  /** Filter bits per domain held: with 7 hashes, ~0.8 % false positives. */
  bitsPerDomain: 10,
  hashes: 7,
  /** The smallest filter sent (bytes): a node holding a few domains still has few false positives. */
  minBytes: 64,
  /** Nodes at most in an answer to a request with a filter (the nodes it lacks). */
  answerNodes: 1_000,
  /** Verified active nodes at most checked against one filter, newest change first. */
  scanMax: 50_000,
} as const;

/** Bit positions of `domain` in a filter of `bits` bits: double hashing of SHA-256(salt, domain). */
function positions(domain: string, salt: string, bits: number, hashes: number): number[] {
  const digest = createHash('sha256').update(`${salt}\n${domain}`, 'utf8').digest();
  const h1 = digest.readUInt32BE(0);
  const h2 = digest.readUInt32BE(4);
  // h1 + i·h2 < 2^37: exact in a double.
  return Array.from({ length: hashes }, (_, i) => (h1 + i * h2) % bits);
}

/** Bytes of our filter for `count` domains: past the cap, false positives grow. */
export function knownFilterBytes(count: number): number {
  return Math.min(
    LIMITS.gossipKnownMaxBytes,
    Math.max(KNOWN_FILTER.minBytes, Math.ceil((count * KNOWN_FILTER.bitsPerDomain) / 8)),
  );
}

/** The filter of `domains`, sized for them (at most LIMITS.gossipKnownMaxBytes), new salt. */
export function buildKnownFilter(domains: Iterable<string>, salt?: string): GossipKnown {
  const list = [...new Set(domains)];
  const bytes = knownFilterBytes(list.length);
  const filter = new Uint8Array(bytes);
  const usedSalt = salt ?? randomBytes(12).toString('base64url');
  for (const domain of list) {
    for (const p of positions(domain, usedSalt, bytes * 8, KNOWN_FILTER.hashes)) {
      filter[p >> 3]! |= 1 << (p & 7);
    }
  }
  return {
    bits: Buffer.from(filter).toString('base64'),
    hashes: KNOWN_FILTER.hashes,
    salt: usedSalt,
  };
}

/** Whether a peer's filter (schema-checked) holds `domain`; a false positive now and then. */
export function knownFilterReader(known: GossipKnown): (domain: string) => boolean {
  const filter = Buffer.from(known.bits, 'base64');
  const bits = filter.length * 8;
  return (domain) =>
    bits > 0 &&
    positions(domain, known.salt, bits, known.hashes).every(
      (p) => (filter[p >> 3]! & (1 << (p & 7))) !== 0,
    );
}

/** The expected false-positive rate of our filter holding `count` domains (the simulation uses it). */
export function knownFilterFalsePositiveRate(count: number): number {
  const bits = 8 * knownFilterBytes(count);
  return (1 - Math.exp((-KNOWN_FILTER.hashes * count) / bits)) ** KNOWN_FILTER.hashes;
}
