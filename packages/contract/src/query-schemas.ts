import { z } from 'zod';
import { LIMITS } from './limits.ts';
import { timestampSchema, uuidSchema } from './primitives.ts';

/**
 * `limit` per docs/protocol.md: absent → default; a non-negative integer (from the query string, or
 * a number from typed callers); above `max` → clamped to it; negative, fractional or not a number
 * → invalid (400). `limit=0` is allowed (e.g. a profile without posts).
 */
export function limitQuery(bounds: { default: number; max: number }) {
  return z
    .union([
      z.string().regex(/^[0-9]+$/, { message: 'limit must be a non-negative integer' }),
      z.int().nonnegative({ message: 'limit must be a non-negative integer' }),
    ])
    .optional()
    .transform((value) =>
      value === undefined ? bounds.default : Math.min(Number(value), bounds.max),
    )
    .pipe(z.int().min(0).max(bounds.max));
}

const BOOLEAN_TEXT = { true: true, '1': true, false: false, '0': false } as const;

/** Boolean query flag: `true`/`false`/`1`/`0` (or a boolean from typed callers); absent → default. */
export function booleanQuery(defaultValue: boolean) {
  return z
    .union([
      z.enum(['true', 'false', '1', '0'], { message: 'must be true, false, 1 or 0' }),
      z.boolean(),
    ])
    .optional()
    .transform((value) =>
      value === undefined ? defaultValue : typeof value === 'boolean' ? value : BOOLEAN_TEXT[value],
    )
    .pipe(z.boolean());
}

/**
 * `GET /api/swarm/users/[handle]`. `reposts`: list the user's reposts among their posts (readers
 * that can tell a repost entry from a post ask for them; docs/protocol.md "Public reads").
 */
export const swarmUserQuerySchema = z.object({
  limit: limitQuery(LIMITS.swarmUserPosts),
  reposts: booleanQuery(false),
});

/** `GET /api/swarm/timeline`; `before` pages back by `createdAt`. */
export const timelineQuerySchema = z.object({
  limit: limitQuery(LIMITS.timeline),
  before: timestampSchema.optional(),
});

/** `GET /.well-known/node-swarm`. */
export const discoveryQuerySchema = z.object({
  nodes: booleanQuery(true),
  limit: limitQuery(LIMITS.discoveryNodes),
});

/** `GET /api/swarm/info`: statistics only on request. */
export const infoQuerySchema = z.object({ stats: booleanQuery(false) });

/** `GET /api/swarm/nodes`: statistics by default. */
export const nodesQuerySchema = z.object({
  limit: limitQuery(LIMITS.nodeList),
  stats: booleanQuery(true),
});

/** `GET /api/swarm/replies`. */
export const repliesQuerySchema = z.object({
  postId: uuidSchema,
  before: timestampSchema.optional(),
});

export type SwarmUserQuery = z.output<typeof swarmUserQuerySchema>;
export type TimelineQuery = z.output<typeof timelineQuerySchema>;
export type DiscoveryQuery = z.output<typeof discoveryQuerySchema>;
export type InfoQuery = z.output<typeof infoQuerySchema>;
export type NodesQuery = z.output<typeof nodesQuerySchema>;
export type RepliesQuery = z.output<typeof repliesQuerySchema>;
