import { z } from 'zod';

/**
 * Answers of the admin API (`/api/swarm/admin/*`, docs/protocol.md "Admin API"): the gateway
 * documents its routes with them (under OpenAPI names of its own) and the `swarm` CLI parses what
 * a node answers with them instead of trusting it.
 */

const timestamp = z.string().nullable();

export const adminSeedSchema = z.object({
  domain: z.string(),
  priority: z.int(),
  isEnabled: z.boolean(),
  lastContactAt: timestamp,
  consecutiveFailures: z.int(),
});
export const adminSeedListSchema = z.object({ seeds: z.array(adminSeedSchema) });

export const adminBlockSchema = z.object({
  domain: z.string(),
  reason: z.string().nullable(),
  createdAt: z.string(),
});
export const adminBlockListSchema = z.object({ blocks: z.array(adminBlockSchema) });

export const adminTokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: timestamp,
  expiresAt: timestamp,
  revokedAt: timestamp,
});
export const adminTokenListSchema = z.object({ tokens: z.array(adminTokenSchema) });
export const adminCreatedTokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  token: z.string(),
});

export const adminCreatedUserSchema = z.object({
  user: z.object({
    id: z.string(),
    handle: z.string(),
    displayName: z.string(),
    isAdmin: z.boolean(),
  }),
  /** Only when the node generated it: shown in this answer once, stored as an argon2id hash. */
  password: z.string().optional(),
});

export const adminCreatedPostSchema = z.object({
  post: z.object({
    id: z.string(),
    path: z.string(),
    content: z.string(),
    createdAt: z.string(),
  }),
  /** Deliveries to other nodes (a reply to a remote post, remote mentions), with their state. */
  deliveries: z.array(
    z.object({
      id: z.string(),
      kind: z.string(),
      targetDomain: z.string(),
      status: z.string(),
      summary: z.string(),
    }),
  ),
});

const reportedPostNowSchema = z.object({
  content: z.string(),
  createdAt: z.string(),
  deleted: z.boolean(),
  replyTo: z.string().nullable(),
});

export const adminReportSchema = z.object({
  id: z.string(),
  status: z.string(),
  category: z.string(),
  comment: z.string(),
  reporter: z.string(),
  sourceDomain: z.string().nullable(),
  targetAddress: z.string(),
  targetIsLocal: z.boolean(),
  targetState: z.object({ suspended: z.boolean(), silenced: z.boolean() }).nullable(),
  postId: z.string().nullable(),
  postApId: z.string().nullable(),
  postExcerpt: z.string().nullable(),
  postNow: reportedPostNowSchema.nullable(),
  /** Every post the report names, the first (`postId`) included, in the reporter's order. */
  posts: z.array(
    z.object({
      postId: z.string(),
      postApId: z.string().nullable(),
      postExcerpt: z.string().nullable(),
      postNow: reportedPostNowSchema.nullable(),
    }),
  ),
  targetDomain: z.string(),
  forwardState: z.string().nullable(),
  resolution: z.string().nullable(),
  resolutionReason: z.string().nullable(),
  resolvedBy: z.string().nullable(),
  resolvedAt: z.string().nullable(),
  createdAt: z.string(),
});
export const adminReportListSchema = z.object({ reports: z.array(adminReportSchema) });

export const adminAuditEntrySchema = z.object({
  id: z.string(),
  actor: z.string(),
  action: z.string(),
  target: z.string(),
  reason: z.string(),
  details: z.unknown(),
  createdAt: z.string(),
});
export const adminAuditPageSchema = z.object({
  entries: z.array(adminAuditEntrySchema),
  nextBefore: z.string().nullable(),
});
