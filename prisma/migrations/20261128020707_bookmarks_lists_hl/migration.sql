-- CreateEnum
CREATE TYPE "list_replies_policy" AS ENUM ('followed', 'list', 'none');

-- CreateTable
CREATE TABLE "bookmarks" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "user_id" UUID NOT NULL,
    "post_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bookmarks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "lists" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "user_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "replies_policy" "list_replies_policy" NOT NULL DEFAULT 'list',
    "exclusive" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "lists_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "list_members" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "list_id" UUID NOT NULL,
    "member_key" TEXT NOT NULL,
    "member_user_id" UUID,
    "member_remote_actor_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "list_members_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "bookmarks_user_id_created_at_id_idx" ON "bookmarks"("user_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "bookmarks_post_id_idx" ON "bookmarks"("post_id");

-- CreateIndex
CREATE UNIQUE INDEX "bookmarks_user_id_post_id_key" ON "bookmarks"("user_id", "post_id");

-- CreateIndex
CREATE INDEX "lists_user_id_created_at_idx" ON "lists"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "list_members_member_key_idx" ON "list_members"("member_key");

-- CreateIndex
CREATE INDEX "list_members_member_user_id_idx" ON "list_members"("member_user_id");

-- CreateIndex
CREATE INDEX "list_members_member_remote_actor_id_idx" ON "list_members"("member_remote_actor_id");

-- CreateIndex
CREATE UNIQUE INDEX "list_members_list_id_member_key_key" ON "list_members"("list_id", "member_key");

-- AddForeignKey
ALTER TABLE "bookmarks" ADD CONSTRAINT "bookmarks_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bookmarks" ADD CONSTRAINT "bookmarks_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "lists" ADD CONSTRAINT "lists_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "list_members" ADD CONSTRAINT "list_members_list_id_fkey" FOREIGN KEY ("list_id") REFERENCES "lists"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "list_members" ADD CONSTRAINT "list_members_member_user_id_fkey" FOREIGN KEY ("member_user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "list_members" ADD CONSTRAINT "list_members_member_remote_actor_id_fkey" FOREIGN KEY ("member_remote_actor_id") REFERENCES "remote_actors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A member is one person: a local user or a remote actor, never both or neither.
ALTER TABLE "list_members" ADD CONSTRAINT "list_members_one_person_check"
  CHECK (("member_user_id" IS NULL) <> ("member_remote_actor_id" IS NULL));

-- The domain refuses longer titles with a clear message, and the table holds to it too.
ALTER TABLE "lists" ADD CONSTRAINT "lists_title_length_check"
  CHECK (char_length("title") BETWEEN 1 AND 100);
