-- Post search and hashtags (issue #14, docs/decisions.md "Search and tags").

-- Full-text search: the words of each post, kept by Postgres itself (a generated column), with
-- the simple text search configuration (words in lower case, no stemming and no stop words:
-- posts are in every language). Prisma knows the column as an unsupported type and never
-- writes it. (No quote characters in these comments: Prisma's migration engine reads them.)
-- AlterTable
ALTER TABLE "posts" ADD COLUMN     "search_vector" tsvector
  GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, "content")) STORED;

-- CreateIndex
CREATE INDEX "posts_search_vector_idx" ON "posts" USING GIN ("search_vector");

-- Hashtags: a hash sign and a tag, not inside a word, URL or entity (the rule of the post
-- renderer in apps/web/src/lib/format.ts and of packages/contract/src/hashtags.ts): ASCII
-- letters, digits and underscores, at least one letter or underscore, at most 64 characters;
-- in lower case, each once.
CREATE FUNCTION "post_hashtags"("body" text) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
    SELECT coalesce(array_agg(DISTINCT lower(m[2])) FILTER (WHERE length(m[2]) <= 64), '{}')
    FROM regexp_matches("body", '(^|[^A-Za-z0-9_/&#])#([A-Za-z0-9_]*[A-Za-z_][A-Za-z0-9_]*)', 'g') AS m
  $$;

-- A tag page reads post_hashtags(content) @> ARRAY[tag] through this index.
CREATE INDEX "posts_hashtags_idx" ON "posts" USING GIN ("post_hashtags"("content"));
