-- Client API ids (docs/clients.md Ids): apps page and sort by ids, so posts and notifications
-- get a number made of their creation time in milliseconds shifted left 16 bits plus the low 16
-- bits of a sequence. Unique, stable once written, and in created_at order.
CREATE SEQUENCE "api_id_seq";

CREATE FUNCTION "api_snowflake"("at" timestamptz) RETURNS bigint
  LANGUAGE sql VOLATILE
  AS $$ SELECT (floor(extract(epoch FROM "at") * 1000)::bigint << 16) | (nextval('api_id_seq') % 65536) $$;

-- The column default satisfies the schema, and the trigger sets the id from created_at, which for a
-- copy of another node post is the time its author gave, so the id sorts where the post sorts.
-- Its body spells its semicolons as Unicode escapes: the Postgres driver adapter of Prisma splits
-- a migration at every semicolon character, quoted or not, when its engine applies it.
CREATE FUNCTION "set_api_id"() RETURNS trigger
  LANGUAGE plpgsql
  AS U&'BEGIN NEW."api_id" := "api_snowflake"(NEW."created_at")\003B RETURN NEW\003B END';

ALTER TABLE "posts" ADD COLUMN "api_id" BIGINT;
UPDATE "posts" SET "api_id" = "api_snowflake"("created_at");
ALTER TABLE "posts" ALTER COLUMN "api_id" SET NOT NULL,
  ALTER COLUMN "api_id" SET DEFAULT api_snowflake(now());
CREATE UNIQUE INDEX "posts_api_id_key" ON "posts"("api_id");
CREATE TRIGGER "posts_api_id" BEFORE INSERT ON "posts" FOR EACH ROW EXECUTE FUNCTION "set_api_id"();

ALTER TABLE "notifications" ADD COLUMN "api_id" BIGINT;
UPDATE "notifications" SET "api_id" = "api_snowflake"("created_at");
ALTER TABLE "notifications" ALTER COLUMN "api_id" SET NOT NULL,
  ALTER COLUMN "api_id" SET DEFAULT api_snowflake(now());
CREATE UNIQUE INDEX "notifications_api_id_key" ON "notifications"("api_id");
CREATE TRIGGER "notifications_api_id" BEFORE INSERT ON "notifications" FOR EACH ROW EXECUTE FUNCTION "set_api_id"();
