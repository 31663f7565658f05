import { z } from 'zod';
import { remoteHandleSchema } from './ids.ts';
import { LIMITS } from './limits.ts';
import { domainSchema } from './node-domain.ts';
import {
  count,
  countSchema,
  didSchema,
  optionalText,
  optionalUrl,
  timestampSchema,
} from './primitives.ts';

/**
 * Capabilities named by the spec, plus `messages` (docs/protocol.md), `reports`, the account
 * ownership endpoints `deletions` and `moves` (issue #15, docs/protocol.md), `unrepost` (the
 * undoing of a repost, user-signed) and `posts` (new posts pushed to `POST /api/swarm/inbox`,
 * docs/protocol.md "Post delivery") and `delegations` (app-key signatures under a user's
 * delegation, docs/protocol.md "App delegations"). Unknown values from peers are kept.
 */
export const CAPABILITIES = [
  'handles',
  'gossip',
  'interactions',
  'messages',
  'reports',
  'deletions',
  'moves',
  'unrepost',
  'posts',
  'delegations',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** Swarm statistics (`GET /api/swarm/nodes`, `?stats=true` on info). */
export const swarmStatsSchema = z.object({
  totalNodes: count(),
  activeNodes: count(),
  totalUsers: count(),
  totalPosts: count(),
});
export type SwarmStats = z.output<typeof swarmStatsSchema>;

/**
 * Node info: `GET /api/swarm/info` and (with `timestamp`) the announce body. Optional extras
 * seen on other nodes are read when present: `logoUrl`, `isNsfw`, and `stats` (our answer to
 * `?stats=true`).
 */
export const nodeInfoSchema = z.object({
  domain: domainSchema,
  name: optionalText(),
  description: optionalText(),
  /** SPKI PEM; "" when a peer publishes none (it then cannot sign requests). */
  publicKey: optionalText(),
  softwareVersion: optionalText(),
  userCount: count(),
  postCount: count(),
  capabilities: z.array(z.string()).default([]),
  logoUrl: optionalUrl().optional(),
  isNsfw: z.boolean().optional(),
  stats: swarmStatsSchema.optional(),
  /** Our extra: `swarm-node` on nodes of our profile (docs/protocol.md "Peers of the origin profile"). */
  protocolProfile: z.string().optional(),
});
export type NodeInfo = z.output<typeof nodeInfoSchema>;

/** `GET /api/swarm/info` answer. */
export const infoResponseSchema = nodeInfoSchema;
export type InfoResponse = NodeInfo;

/** `POST /api/swarm/announce` body and answer: node info plus the sender's clock. */
export const announcementSchema = nodeInfoSchema.extend({ timestamp: timestampSchema });
export type Announcement = z.output<typeof announcementSchema>;

/** Node summary as carried in gossip and in the discovery document. */
export const nodeSummarySchema = z.object({
  domain: domainSchema,
  name: optionalText(),
  lastSeenAt: timestampSchema,
});
export type NodeSummary = z.output<typeof nodeSummarySchema>;

/** Entry of `GET /api/swarm/nodes`: the summary plus counts. */
export const nodeListEntrySchema = nodeSummarySchema.extend({
  userCount: count(),
  postCount: count(),
  /** Our extra: the profile the node speaks (`swarm` or `origin`), when detected. */
  protocolProfile: z.string().optional(),
});
export type NodeListEntry = z.output<typeof nodeListEntrySchema>;

/** `GET /api/swarm/nodes` answer; `stats` only when asked for (default true). */
export const nodeListResponseSchema = z.object({
  nodes: z.array(nodeListEntrySchema).default([]),
  stats: swarmStatsSchema.optional(),
});
export type NodeListResponse = z.output<typeof nodeListResponseSchema>;

/** `GET /.well-known/node-swarm`. */
export const discoveryDocumentSchema = z.object({
  node: nodeInfoSchema.pick({
    domain: true,
    name: true,
    description: true,
    publicKey: true,
    softwareVersion: true,
    capabilities: true,
  }),
  swarm: swarmStatsSchema.extend({ seeds: z.array(domainSchema).default([]) }),
  /** Empty (or absent, from peers) when asked with `nodes=false`. */
  nodes: z.array(nodeSummarySchema).default([]),
});
export type DiscoveryDocument = z.output<typeof discoveryDocumentSchema>;

/**
 * Handle-to-node mapping carried by gossip. We always send `updatedAt`; the origin treats it
 * as optional, so an entry without one is read (its receiver then has no time claim to compare:
 * see the gossip service).
 */
export const handleEntrySchema = z.object({
  handle: remoteHandleSchema,
  did: didSchema,
  nodeDomain: domainSchema,
  updatedAt: timestampSchema.optional(),
});
export type HandleEntry = z.output<typeof handleEntrySchema>;

/**
 * Our extra member of a gossip request: a Bloom filter of the domains the sender already holds,
 * so that the answer lists nodes it lacks (docs/protocol.md, Gossip). `bits` is standard base64
 * of the filter's bytes (bit i = byte ⌊i/8⌋, bit i mod 8, least significant first); `salt` is
 * hashed with every domain, new for each request, so a false positive of one request is not
 * one of the next. Peers of other implementations ignore it (and answer by `since`).
 */
export const gossipKnownSchema = z.object({
  bits: z
    .string()
    .min(4)
    .max(Math.ceil(LIMITS.gossipKnownMaxBytes / 3) * 4)
    .regex(/^[A-Za-z0-9+/]+={0,2}$/),
  hashes: z.int().min(1).max(LIMITS.gossipKnownMaxHashes),
  salt: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/),
});
export type GossipKnown = z.output<typeof gossipKnownSchema>;

/**
 * `POST /api/swarm/gossip` body. `since` is the responder's own clock from its previous answer
 * (docs/protocol.md, Gossip: clocks of two nodes are never compared); absent on a first exchange.
 * Array sizes are bounded by the body cap, not here: other implementations may send more than
 * our LIMITS.gossipMax* per exchange.
 */
export const gossipRequestSchema = z.object({
  sender: domainSchema,
  nodes: z.array(nodeSummarySchema).default([]),
  handles: z.array(handleEntrySchema).default([]),
  timestamp: timestampSchema,
  since: timestampSchema.optional(),
  known: gossipKnownSchema.optional(),
});
export type GossipRequest = z.output<typeof gossipRequestSchema>;

/**
 * `POST /api/swarm/gossip` answer. `timestamp` is our extra (the responder's clock, sent back as
 * the next `since`): we always send it, peers of other implementations may not.
 */
export const gossipResponseSchema = z.object({
  nodes: z.array(nodeSummarySchema).default([]),
  handles: z.array(handleEntrySchema).default([]),
  received: z
    .object({ nodes: countSchema, handles: countSchema })
    .default({ nodes: 0, handles: 0 }),
  timestamp: timestampSchema.optional(),
});
export type GossipResponse = z.output<typeof gossipResponseSchema>;

/** Node `trust_score`: integer 0–100. */
export const trustScoreSchema = z.int().min(LIMITS.trustScore.min).max(LIMITS.trustScore.max);

/** `POST /api/swarm/nodes` (admin) body. */
export const adminActionSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('announce'), domain: domainSchema.optional() }),
  z.object({ action: z.literal('discover'), domain: domainSchema }),
  z.object({ action: z.literal('gossip'), domain: domainSchema.optional() }),
  z.object({ action: z.literal('addSeed'), domain: domainSchema, priority: countSchema }),
]);
export type AdminAction = z.output<typeof adminActionSchema>;
