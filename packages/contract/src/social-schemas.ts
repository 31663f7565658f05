import { z } from 'zod';
import { authorHandleSchema } from './ids.ts';
import { domainSchema } from './node-domain.ts';
import { flag, optionalText, optionalUrl, timestampSchema } from './primitives.ts';
import { limitQuery } from './query-schemas.ts';

/**
 * `GET /api/swarm/users/[handle]/followers` and `/following` (issue #14; the origin serves them
 * too, docs/origin-profile.md §5). One entry per accepted follow, newest first; a
 * person of another node is named `handle@domain` with `isRemote: true`. Paging is ours: the
 * answer's `nextCursor` (opaque, absent on the last page) is passed back as `cursor`.
 */
export const FOLLOW_LIST_LIMIT = { default: 50, max: 100 } as const;

/** Opaque to clients; base64url of `<createdAt ISO>|<id>` here. */
export const followListCursorSchema = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/, { message: 'not a cursor this node gave' });

export const followListQuerySchema = z.object({
  limit: limitQuery(FOLLOW_LIST_LIMIT),
  cursor: followListCursorSchema.optional(),
});
export type FollowListQuery = z.output<typeof followListQuerySchema>;

export const followListEntrySchema = z.object({
  /** Plain for a user of the answering node, `handle@domain` otherwise. */
  handle: authorHandleSchema,
  displayName: optionalText(),
  avatarUrl: optionalUrl(),
  bio: optionalText(),
  isBot: flag(),
  isRemote: flag(),
});
export type FollowListEntry = z.output<typeof followListEntrySchema>;

const listMeta = {
  nodeDomain: domainSchema,
  timestamp: timestampSchema,
  /** Our extra: the cursor of the next page; absent on the last one. */
  nextCursor: z.string().optional(),
};

export const followersResponseSchema = z.object({
  followers: z.array(followListEntrySchema),
  ...listMeta,
});
export const followingResponseSchema = z.object({
  following: z.array(followListEntrySchema),
  ...listMeta,
});
export type FollowersResponse = z.output<typeof followersResponseSchema>;
export type FollowingResponse = z.output<typeof followingResponseSchema>;

/**
 * Read from peers: bounded (a peer may not make us hold more than a page's maximum), and an
 * entry that does not parse is dropped rather than failing the whole list.
 */
const peerEntries = z
  .array(z.unknown())
  .max(FOLLOW_LIST_LIMIT.max * 2)
  .transform((items) => items.filter((item) => followListEntrySchema.safeParse(item).success))
  .pipe(z.array(followListEntrySchema));
const peerMeta = {
  nodeDomain: z.unknown().optional(),
  timestamp: z.unknown().optional(),
  nextCursor: z
    .unknown()
    .optional()
    .transform((value) =>
      typeof value === 'string' && followListCursorSchema.safeParse(value).success
        ? value
        : undefined,
    )
    .pipe(z.string().optional()),
};
export const peerFollowersResponseSchema = followersResponseSchema.extend({
  followers: peerEntries,
  ...peerMeta,
});
export const peerFollowingResponseSchema = followingResponseSchema.extend({
  following: peerEntries,
  ...peerMeta,
});
