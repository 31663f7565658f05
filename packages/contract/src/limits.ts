/**
 * Numbers from the spec's Limits table and from docs/protocol.md, in one place so that the gateway,
 * the peer client and the tests agree.
 */
export const LIMITS = {
  /** `GET /api/swarm/users/[handle]` `limit` (posts returned). */
  swarmUserPosts: { default: 25, max: 50 },
  /** `GET /api/swarm/timeline` `limit`. */
  timeline: { default: 20, max: 50 },
  /** `GET /.well-known/node-swarm` `limit` (nodes returned). */
  discoveryNodes: { default: 50, max: 200 },
  /** `GET /api/swarm/nodes` `limit`. */
  nodeList: { default: 100, max: 500 },
  /** Requests from a node to a peer's swarm endpoints time out after this. */
  peerTimeoutMs: 5_000,
  /** Node `trust_score`, integer, inclusive. */
  trustScore: { min: 0, max: 100 },
  /** Body caps (bytes): interactions and replies, gossip. */
  interactionBodyBytes: 64 * 1024,
  replyBodyBytes: 64 * 1024,
  gossipBodyBytes: 256 * 1024,
  /** Entries at most in one gossip answer. */
  gossipMaxNodes: 200,
  gossipMaxHandles: 500,
  /**
   * A gossip request's `known` filter (docs/protocol.md, Gossip): at most this many bytes of
   * bits, and 1–16 hashes. 64 KiB hold ~54,000 domains at a 1 % false-positive rate.
   */
  gossipKnownMaxBytes: 64 * 1024,
  gossipKnownMaxHashes: 16,
  /** Accepted skew of `X-Swarm-Timestamp` against the receiver's clock (either direction). */
  clockWindowMs: 5 * 60 * 1000,
  /** Interaction `timestamp`: up to 7 days old (retries from outboxes), up to 5 minutes ahead. */
  interactionMaxAgeMs: 7 * 24 * 60 * 60 * 1000,
  interactionMaxFutureMs: 5 * 60 * 1000,
  /** `X-Swarm-Nonce` carries at least this many random bytes. */
  nonceMinBytes: 16,
  /** Direct messages: text length (UTF-16 code units), ciphertext (base64url chars), key entries. */
  messageTextMaxChars: 5_000,
  messageCiphertextMaxChars: 28_000,
  messageKeyEntriesMax: 4,
  /** Body cap (bytes) of `POST /api/swarm/messages` and `/messages/receipts` (the /api/swarm default). */
  messageBodyBytes: 64 * 1024,
  /** Envelope `createdAt` and receipt `at`: as interactions (outbox retries up to 7 days). */
  messageMaxAgeMs: 7 * 24 * 60 * 60 * 1000,
  messageMaxFutureMs: 5 * 60 * 1000,
} as const;

/** A byte count for people: `820 KB`, `2.4 MB`, `20 GB` (binary units, one decimal). */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${Math.round((bytes / 1024 ** 3) * 10) / 10} GB`;
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
  return `${Math.round(bytes / 1024)} KB`;
}
