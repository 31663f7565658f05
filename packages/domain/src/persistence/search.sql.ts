import { Prisma } from '@swarm/db';
import { sqlStatement } from './catalog.ts';
import { listedPostSql } from './visibility.sql.ts';

// Search and tags (search/): full-text search over `posts.search_vector` and tag lookups over
// the GIN expression index on `post_hashtags(content)` (migration *_post_search). Public,
// live, non-repost posts of listed authors only (visibility.sql.ts): the ones a search may show.

const LISTED = listedPostSql('posts');

/** Ids of the newest posts matching a `to_tsquery('simple', …)` text. */
export const postSearchSql = sqlStatement(
  'search.posts',
  ["'word':*", 20],
  (tsquery: string, limit: number) => Prisma.sql`
    SELECT "id"::text AS "id" FROM "posts"
    WHERE "search_vector" @@ to_tsquery('simple'::regconfig, ${tsquery})
      AND "deleted_at" IS NULL AND "visibility" = 'public' AND "repost_of_id" IS NULL
      AND ${LISTED}
    ORDER BY "created_at" DESC, "id" DESC
    LIMIT ${limit}`,
);

/** Posts per tag for several tags (each count capped by `cap`, rows read capped too). */
export const tagCountsSql = sqlStatement(
  'search.tagCounts',
  [['rust'], 1000],
  (tags: string[], cap: number) => Prisma.sql`
    SELECT "t" AS "tag", least(count(*), ${cap})::int AS "n"
    FROM (
      SELECT post_hashtags("content") AS "tags" FROM "posts"
      WHERE post_hashtags("content") && ${tags}::text[]
        AND "deleted_at" IS NULL AND "visibility" = 'public' AND "repost_of_id" IS NULL
        AND ${LISTED}
      LIMIT ${cap * tags.length}
    ) AS "p", unnest("p"."tags") AS "t"
    WHERE "t" = ANY(${tags}::text[])
    GROUP BY "t"`,
);

/** A page of a tag: ids and times of the newest posts with `tag`, older than `before`. */
export const tagPageSql = sqlStatement(
  'search.tagPage',
  ['rust', null as Date | null, 21],
  (tag: string, before: Date | null, limit: number) => Prisma.sql`
    SELECT "id"::text AS "id", "created_at" FROM "posts"
    WHERE post_hashtags("content") @> ARRAY[${tag}]::text[]
      AND "deleted_at" IS NULL AND "visibility" = 'public' AND "repost_of_id" IS NULL
      AND ${LISTED}
      AND (${before}::timestamptz IS NULL OR "created_at" < ${before}::timestamptz)
    ORDER BY "created_at" DESC, "id" DESC
    LIMIT ${limit}`,
);
