-- Post search and hashtags (issue #14, docs/decisions.md "Search and tags").

-- Full-text search: the words of each post, kept by Postgres itself (a generated column), with
-- the 'simple' configuration (lower-cased words, no stemming and no stop words: posts are in
-- every language). Prisma knows the column as Unsupported("tsvector") and never writes it.
-- AlterTable
ALTER TABLE "posts" ADD COLUMN     "search_vector" tsvector
  GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, "content")) STORED;

-- CreateIndex
CREATE INDEX "posts_search_vector_idx" ON "posts" USING GIN ("search_vector");

-- Hashtags: `#tag` not inside a word, URL or entity (the rule of the web app's post renderer,
-- apps/web/src/lib/format.ts, and of packages/domain/src/search/hashtags.ts): ASCII letters,
-- digits and `_`, at least one letter or `_`, at most 64 characters; lower-cased, each once.
CREATE FUNCTION "post_hashtags"("body" text) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
    SELECT coalesce(array_agg(DISTINCT lower(m[2])) FILTER (WHERE length(m[2]) <= 64), '{}')
    FROM regexp_matches("body", '(^|[^A-Za-z0-9_/&#])#([A-Za-z0-9_]*[A-Za-z_][A-Za-z0-9_]*)', 'g') AS m
  $$;

-- A tag page reads `post_hashtags(content) @> ARRAY[tag]` through this index.
CREATE INDEX "posts_hashtags_idx" ON "posts" USING GIN ("post_hashtags"("content"));
