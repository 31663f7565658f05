import { Prisma } from '@swarm/db';
import { sqlStatement } from './catalog.ts';
import { listedPostSql } from './visibility.sql.ts';

// The client API's tag timeline (client-reads/): the posts of a tag as the tag page reads them
// (search.sql.ts), paged by `api_id` as apps page (docs/clients.md "Ids").

const LISTED = listedPostSql('posts');

/** Which posts: all, this node's, other nodes' copies. */
export type TagScope = 'all' | 'local' | 'remote';

/**
 * Row ids of a tag's posts with `api_id` in (`above`, `below`), newest first, or oldest first
 * when `ascending` (Mastodon's `min_id`).
 */
export const clientTagPageSql = sqlStatement(
  'clientReads.tagPage',
  ['rust', null as bigint | null, null as bigint | null, false, 'all' as TagScope, false, 21],
  (
    tag: string,
    below: bigint | null,
    above: bigint | null,
    ascending: boolean,
    scope: TagScope,
    onlyMedia: boolean,
    limit: number,
  ) => Prisma.sql`
    SELECT "id"::text AS "id" FROM "posts"
    WHERE post_hashtags("content") @> ARRAY[${tag}]::text[]
      AND "deleted_at" IS NULL AND "visibility" = 'public' AND "repost_of_id" IS NULL
      AND ${LISTED}
      AND (${below}::bigint IS NULL OR "api_id" < ${below}::bigint)
      AND (${above}::bigint IS NULL OR "api_id" > ${above}::bigint)
      AND (${scope}::text = 'all' OR ("ap_id" IS NULL) = (${scope}::text = 'local'))
      AND (NOT ${onlyMedia}::boolean
        OR EXISTS (SELECT 1 FROM "media_items" "m" WHERE "m"."post_id" = "posts"."id"))
    ORDER BY ${ascending ? Prisma.sql`"api_id" ASC` : Prisma.sql`"api_id" DESC`}
    LIMIT ${limit}`,
);
