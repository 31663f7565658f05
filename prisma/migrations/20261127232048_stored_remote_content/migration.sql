-- AlterTable
ALTER TABLE "posts" ADD COLUMN     "fetched_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "remote_author_polls" (
    "remote_actor_id" UUID NOT NULL,
    "next_poll_at" TIMESTAMPTZ(3) NOT NULL,
    "last_polled_at" TIMESTAMPTZ(3),
    "interval_ms" INTEGER NOT NULL,
    "newest_post_at" TIMESTAMPTZ(3),
    "failures" INTEGER NOT NULL DEFAULT 0,
    "claimed_until" TIMESTAMPTZ(3),

    CONSTRAINT "remote_author_polls_pkey" PRIMARY KEY ("remote_actor_id")
);

-- CreateTable
CREATE TABLE "peer_crawls" (
    "domain" TEXT NOT NULL,
    "next_crawl_at" TIMESTAMPTZ(3) NOT NULL,
    "last_crawled_at" TIMESTAMPTZ(3),
    "newest_post_at" TIMESTAMPTZ(3),
    "last_new_posts" INTEGER NOT NULL DEFAULT 0,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "claimed_until" TIMESTAMPTZ(3),

    CONSTRAINT "peer_crawls_pkey" PRIMARY KEY ("domain")
);

-- CreateIndex
CREATE INDEX "remote_author_polls_next_poll_at_idx" ON "remote_author_polls"("next_poll_at");

-- CreateIndex
CREATE INDEX "peer_crawls_next_crawl_at_idx" ON "peer_crawls"("next_crawl_at");

-- CreateIndex
CREATE INDEX "posts_fetched_at_idx" ON "posts"("fetched_at");

-- AddForeignKey
ALTER TABLE "remote_author_polls" ADD CONSTRAINT "remote_author_polls_remote_actor_id_fkey" FOREIGN KEY ("remote_actor_id") REFERENCES "remote_actors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
