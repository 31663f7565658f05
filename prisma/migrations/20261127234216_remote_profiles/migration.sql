-- CreateTable
CREATE TABLE "remote_profiles" (
    "remote_actor_id" UUID NOT NULL,
    "header_url" TEXT,
    "website" TEXT,
    "followers_count" INTEGER NOT NULL DEFAULT 0,
    "following_count" INTEGER NOT NULL DEFAULT 0,
    "posts_count" INTEGER NOT NULL DEFAULT 0,
    "is_bot" BOOLEAN NOT NULL DEFAULT false,
    "joined_at" TIMESTAMPTZ(3) NOT NULL,
    "read_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "remote_profiles_pkey" PRIMARY KEY ("remote_actor_id")
);

-- AddForeignKey
ALTER TABLE "remote_profiles" ADD CONSTRAINT "remote_profiles_remote_actor_id_fkey" FOREIGN KEY ("remote_actor_id") REFERENCES "remote_actors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
