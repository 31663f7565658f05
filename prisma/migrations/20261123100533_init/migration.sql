-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "sync_direction" AS ENUM ('push', 'pull');

-- CreateEnum
CREATE TYPE "outbox_status" AS ENUM ('pending', 'delivered', 'failed', 'cancelled');

-- CreateEnum
CREATE TYPE "post_visibility" AS ENUM ('public', 'unlisted', 'followers');

-- CreateEnum
CREATE TYPE "follow_state" AS ENUM ('pending', 'accepted');

-- CreateEnum
CREATE TYPE "notification_type" AS ENUM ('like', 'repost', 'follow', 'mention', 'reply');

-- CreateTable
CREATE TABLE "swarm_nodes" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "domain" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL DEFAULT '',
    "logo_url" TEXT,
    "public_key" TEXT,
    "software_version" TEXT,
    "user_count" INTEGER NOT NULL DEFAULT 0,
    "post_count" INTEGER NOT NULL DEFAULT 0,
    "discovered_via" TEXT NOT NULL,
    "discovered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3),
    "last_sync_at" TIMESTAMPTZ(3),
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "is_active" BOOLEAN NOT NULL DEFAULT false,
    "trust_score" INTEGER NOT NULL DEFAULT 0,
    "capabilities" TEXT NOT NULL DEFAULT '[]',
    "is_verified" BOOLEAN NOT NULL DEFAULT false,
    "is_nsfw" BOOLEAN NOT NULL DEFAULT false,
    "key_pinned_at" TIMESTAMPTZ(3),
    "next_probe_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "swarm_nodes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "swarm_seeds" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "domain" TEXT NOT NULL,
    "priority" INTEGER NOT NULL DEFAULT 100,
    "is_enabled" BOOLEAN NOT NULL DEFAULT true,
    "last_contact_at" TIMESTAMPTZ(3),
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "swarm_seeds_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "swarm_sync_logs" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "remote_domain" TEXT NOT NULL,
    "direction" "sync_direction" NOT NULL,
    "nodes_received" INTEGER NOT NULL DEFAULT 0,
    "nodes_sent" INTEGER NOT NULL DEFAULT 0,
    "handles_received" INTEGER NOT NULL DEFAULT 0,
    "handles_sent" INTEGER NOT NULL DEFAULT 0,
    "success" BOOLEAN NOT NULL,
    "error_message" TEXT,
    "duration_ms" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "swarm_sync_logs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "handle_registry" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "handle" TEXT NOT NULL,
    "did" TEXT NOT NULL,
    "node_domain" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "source" TEXT NOT NULL,
    "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "handle_registry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "node_blocks" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "domain" TEXT NOT NULL,
    "reason" TEXT,
    "created_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "node_blocks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "node_key" (
    "id" TEXT NOT NULL DEFAULT 'node',
    "public_key_pem" TEXT NOT NULL,
    "private_key_pem" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "node_key_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inbound_interactions" (
    "actor_node_domain" TEXT NOT NULL,
    "interaction_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inbound_interactions_pkey" PRIMARY KEY ("actor_node_domain","interaction_id")
);

-- CreateTable
CREATE TABLE "request_nonces" (
    "source_domain" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "request_nonces_pkey" PRIMARY KEY ("source_domain","nonce")
);

-- CreateTable
CREATE TABLE "outbox_deliveries" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "target_domain" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "method" TEXT NOT NULL DEFAULT 'POST',
    "path" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "interaction_id" TEXT,
    "status" "outbox_status" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_error" TEXT,
    "last_status" INTEGER,
    "locked_until" TIMESTAMPTZ(3),
    "locked_by" TEXT,
    "created_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "outbox_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "admin_api_tokens" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "admin_api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "handle" TEXT NOT NULL,
    "display_name" TEXT NOT NULL DEFAULT '',
    "bio" TEXT NOT NULL DEFAULT '',
    "avatar_url" TEXT,
    "header_url" TEXT,
    "website" TEXT,
    "is_bot" BOOLEAN NOT NULL DEFAULT false,
    "is_nsfw" BOOLEAN NOT NULL DEFAULT false,
    "is_admin" BOOLEAN NOT NULL DEFAULT false,
    "password_hash" TEXT NOT NULL,
    "did" TEXT,
    "public_key" TEXT,
    "encrypted_key_backup" TEXT,
    "show_nsfw" BOOLEAN NOT NULL DEFAULT false,
    "followers_count" INTEGER NOT NULL DEFAULT 0,
    "following_count" INTEGER NOT NULL DEFAULT 0,
    "posts_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "remote_actors" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "actor_url" TEXT NOT NULL,
    "handle" TEXT NOT NULL,
    "node_domain" TEXT NOT NULL,
    "display_name" TEXT NOT NULL DEFAULT '',
    "avatar_url" TEXT,
    "bio" TEXT NOT NULL DEFAULT '',
    "did" TEXT,
    "did_pinned_at" TIMESTAMPTZ(3),
    "fetched_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "remote_actors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "posts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "ap_id" TEXT,
    "author_id" UUID,
    "remote_author_id" UUID,
    "content" TEXT NOT NULL DEFAULT '',
    "is_nsfw" BOOLEAN NOT NULL DEFAULT false,
    "visibility" "post_visibility" NOT NULL DEFAULT 'public',
    "likes_count" INTEGER NOT NULL DEFAULT 0,
    "reposts_count" INTEGER NOT NULL DEFAULT 0,
    "replies_count" INTEGER NOT NULL DEFAULT 0,
    "link_preview_url" TEXT,
    "link_preview_title" TEXT,
    "link_preview_description" TEXT,
    "link_preview_image" TEXT,
    "reply_to_id" UUID,
    "repost_of_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "posts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "media_items" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "post_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "mime_type" TEXT NOT NULL,
    "alt_text" TEXT NOT NULL DEFAULT '',
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "media_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "likes" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "post_id" UUID NOT NULL,
    "actor_key" TEXT NOT NULL,
    "user_id" UUID,
    "remote_actor_id" UUID,
    "interaction_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "likes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reposts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "post_id" UUID NOT NULL,
    "actor_key" TEXT NOT NULL,
    "user_id" UUID,
    "remote_actor_id" UUID,
    "repost_post_id" UUID,
    "remote_repost_id" TEXT,
    "interaction_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reposts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "follows" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "follower_key" TEXT NOT NULL,
    "follower_user_id" UUID,
    "follower_remote_actor_id" UUID,
    "followee_key" TEXT NOT NULL,
    "followee_user_id" UUID,
    "followee_remote_actor_id" UUID,
    "state" "follow_state" NOT NULL DEFAULT 'accepted',
    "interaction_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "follows_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notifications" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "recipient_id" UUID NOT NULL,
    "type" "notification_type" NOT NULL,
    "actor_key" TEXT NOT NULL,
    "actor_user_id" UUID,
    "actor_remote_actor_id" UUID,
    "actor_handle" TEXT NOT NULL,
    "actor_display_name" TEXT NOT NULL DEFAULT '',
    "actor_avatar_url" TEXT,
    "actor_node_domain" TEXT,
    "post_id" UUID,
    "post_ap_id" TEXT,
    "content" TEXT,
    "interaction_id" TEXT,
    "read_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notifications_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "swarm_nodes_domain_key" ON "swarm_nodes"("domain");

-- CreateIndex
CREATE INDEX "swarm_nodes_is_active_trust_score_idx" ON "swarm_nodes"("is_active", "trust_score");

-- CreateIndex
CREATE INDEX "swarm_nodes_is_active_last_seen_at_idx" ON "swarm_nodes"("is_active", "last_seen_at" DESC);

-- CreateIndex
CREATE INDEX "swarm_nodes_next_probe_at_idx" ON "swarm_nodes"("next_probe_at");

-- CreateIndex
CREATE INDEX "swarm_nodes_updated_at_id_idx" ON "swarm_nodes"("updated_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "swarm_seeds_domain_key" ON "swarm_seeds"("domain");

-- CreateIndex
CREATE INDEX "swarm_seeds_is_enabled_priority_idx" ON "swarm_seeds"("is_enabled", "priority");

-- CreateIndex
CREATE INDEX "swarm_sync_logs_remote_domain_created_at_idx" ON "swarm_sync_logs"("remote_domain", "created_at" DESC);

-- CreateIndex
CREATE INDEX "swarm_sync_logs_created_at_idx" ON "swarm_sync_logs"("created_at");

-- CreateIndex
CREATE INDEX "handle_registry_did_idx" ON "handle_registry"("did");

-- CreateIndex
CREATE INDEX "handle_registry_node_domain_idx" ON "handle_registry"("node_domain");

-- CreateIndex
CREATE INDEX "handle_registry_changed_at_id_idx" ON "handle_registry"("changed_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "handle_registry_handle_node_domain_key" ON "handle_registry"("handle", "node_domain");

-- CreateIndex
CREATE UNIQUE INDEX "node_blocks_domain_key" ON "node_blocks"("domain");

-- CreateIndex
CREATE INDEX "inbound_interactions_received_at_idx" ON "inbound_interactions"("received_at");

-- CreateIndex
CREATE INDEX "request_nonces_expires_at_idx" ON "request_nonces"("expires_at");

-- CreateIndex
CREATE INDEX "outbox_deliveries_status_next_attempt_at_idx" ON "outbox_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "outbox_deliveries_created_by_id_created_at_idx" ON "outbox_deliveries"("created_by_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "outbox_deliveries_target_domain_status_idx" ON "outbox_deliveries"("target_domain", "status");

-- CreateIndex
CREATE INDEX "outbox_deliveries_interaction_id_idx" ON "outbox_deliveries"("interaction_id");

-- CreateIndex
CREATE UNIQUE INDEX "admin_api_tokens_token_hash_key" ON "admin_api_tokens"("token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "users_handle_key" ON "users"("handle");

-- CreateIndex
CREATE UNIQUE INDEX "users_did_key" ON "users"("did");

-- CreateIndex
CREATE INDEX "sessions_user_id_idx" ON "sessions"("user_id");

-- CreateIndex
CREATE INDEX "sessions_expires_at_idx" ON "sessions"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "remote_actors_actor_url_key" ON "remote_actors"("actor_url");

-- CreateIndex
CREATE INDEX "remote_actors_did_idx" ON "remote_actors"("did");

-- CreateIndex
CREATE UNIQUE INDEX "remote_actors_node_domain_handle_key" ON "remote_actors"("node_domain", "handle");

-- CreateIndex
CREATE UNIQUE INDEX "posts_ap_id_key" ON "posts"("ap_id");

-- CreateIndex
CREATE INDEX "posts_created_at_idx" ON "posts"("created_at" DESC);

-- CreateIndex
CREATE INDEX "posts_author_id_created_at_idx" ON "posts"("author_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "posts_remote_author_id_created_at_idx" ON "posts"("remote_author_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "posts_reply_to_id_created_at_idx" ON "posts"("reply_to_id", "created_at");

-- CreateIndex
CREATE INDEX "posts_repost_of_id_idx" ON "posts"("repost_of_id");

-- CreateIndex
CREATE UNIQUE INDEX "media_items_post_id_position_key" ON "media_items"("post_id", "position");

-- CreateIndex
CREATE INDEX "likes_user_id_created_at_idx" ON "likes"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "likes_remote_actor_id_idx" ON "likes"("remote_actor_id");

-- CreateIndex
CREATE UNIQUE INDEX "likes_post_id_actor_key_key" ON "likes"("post_id", "actor_key");

-- CreateIndex
CREATE UNIQUE INDEX "reposts_repost_post_id_key" ON "reposts"("repost_post_id");

-- CreateIndex
CREATE INDEX "reposts_user_id_created_at_idx" ON "reposts"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "reposts_remote_actor_id_idx" ON "reposts"("remote_actor_id");

-- CreateIndex
CREATE UNIQUE INDEX "reposts_post_id_actor_key_key" ON "reposts"("post_id", "actor_key");

-- CreateIndex
CREATE INDEX "follows_followee_key_created_at_idx" ON "follows"("followee_key", "created_at" DESC);

-- CreateIndex
CREATE INDEX "follows_follower_key_created_at_idx" ON "follows"("follower_key", "created_at" DESC);

-- CreateIndex
CREATE INDEX "follows_follower_user_id_idx" ON "follows"("follower_user_id");

-- CreateIndex
CREATE INDEX "follows_follower_remote_actor_id_idx" ON "follows"("follower_remote_actor_id");

-- CreateIndex
CREATE INDEX "follows_followee_user_id_idx" ON "follows"("followee_user_id");

-- CreateIndex
CREATE INDEX "follows_followee_remote_actor_id_idx" ON "follows"("followee_remote_actor_id");

-- CreateIndex
CREATE UNIQUE INDEX "follows_follower_key_followee_key_key" ON "follows"("follower_key", "followee_key");

-- CreateIndex
CREATE INDEX "notifications_recipient_id_read_at_created_at_idx" ON "notifications"("recipient_id", "read_at", "created_at" DESC);

-- CreateIndex
CREATE INDEX "notifications_recipient_id_created_at_idx" ON "notifications"("recipient_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "notifications_actor_user_id_idx" ON "notifications"("actor_user_id");

-- CreateIndex
CREATE INDEX "notifications_actor_remote_actor_id_idx" ON "notifications"("actor_remote_actor_id");

-- CreateIndex
CREATE INDEX "notifications_post_id_idx" ON "notifications"("post_id");

-- AddForeignKey
ALTER TABLE "node_blocks" ADD CONSTRAINT "node_blocks_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "outbox_deliveries" ADD CONSTRAINT "outbox_deliveries_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "admin_api_tokens" ADD CONSTRAINT "admin_api_tokens_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "posts" ADD CONSTRAINT "posts_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "posts" ADD CONSTRAINT "posts_remote_author_id_fkey" FOREIGN KEY ("remote_author_id") REFERENCES "remote_actors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "posts" ADD CONSTRAINT "posts_reply_to_id_fkey" FOREIGN KEY ("reply_to_id") REFERENCES "posts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "posts" ADD CONSTRAINT "posts_repost_of_id_fkey" FOREIGN KEY ("repost_of_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "media_items" ADD CONSTRAINT "media_items_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "likes" ADD CONSTRAINT "likes_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "likes" ADD CONSTRAINT "likes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "likes" ADD CONSTRAINT "likes_remote_actor_id_fkey" FOREIGN KEY ("remote_actor_id") REFERENCES "remote_actors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reposts" ADD CONSTRAINT "reposts_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reposts" ADD CONSTRAINT "reposts_repost_post_id_fkey" FOREIGN KEY ("repost_post_id") REFERENCES "posts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reposts" ADD CONSTRAINT "reposts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reposts" ADD CONSTRAINT "reposts_remote_actor_id_fkey" FOREIGN KEY ("remote_actor_id") REFERENCES "remote_actors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "follows" ADD CONSTRAINT "follows_follower_user_id_fkey" FOREIGN KEY ("follower_user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "follows" ADD CONSTRAINT "follows_follower_remote_actor_id_fkey" FOREIGN KEY ("follower_remote_actor_id") REFERENCES "remote_actors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "follows" ADD CONSTRAINT "follows_followee_user_id_fkey" FOREIGN KEY ("followee_user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "follows" ADD CONSTRAINT "follows_followee_remote_actor_id_fkey" FOREIGN KEY ("followee_remote_actor_id") REFERENCES "remote_actors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_actor_user_id_fkey" FOREIGN KEY ("actor_user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_actor_remote_actor_id_fkey" FOREIGN KEY ("actor_remote_actor_id") REFERENCES "remote_actors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Hand-written below: invariants that Prisma's schema language can't express (Prisma ignores
-- CHECK constraints when diffing, so they don't count as drift).

-- AddCheckConstraint
ALTER TABLE "swarm_nodes" ADD CONSTRAINT "swarm_nodes_trust_score_check" CHECK ("trust_score" BETWEEN 0 AND 100);

-- AddCheckConstraint
ALTER TABLE "users" ADD CONSTRAINT "users_handle_lower_check" CHECK ("handle" = lower("handle"));

-- AddCheckConstraint
ALTER TABLE "node_key" ADD CONSTRAINT "node_key_single_row_check" CHECK ("id" = 'node');

-- AddCheckConstraint: a post is local (author, no apId) or remote (remote author and apId).
ALTER TABLE "posts" ADD CONSTRAINT "posts_author_check" CHECK (
  ("author_id" IS NOT NULL AND "remote_author_id" IS NULL AND "ap_id" IS NULL)
  OR ("author_id" IS NULL AND "remote_author_id" IS NOT NULL AND "ap_id" IS NOT NULL)
);

-- AddCheckConstraint: the actor key matches the one actor column that is set.
ALTER TABLE "likes" ADD CONSTRAINT "likes_actor_check" CHECK (
  ("user_id" IS NOT NULL AND "remote_actor_id" IS NULL AND "actor_key" = 'local:' || "user_id"::text)
  OR ("user_id" IS NULL AND "remote_actor_id" IS NOT NULL AND "actor_key" LIKE 'swarm://%')
);

-- AddCheckConstraint
ALTER TABLE "reposts" ADD CONSTRAINT "reposts_actor_check" CHECK (
  ("user_id" IS NOT NULL AND "remote_actor_id" IS NULL AND "actor_key" = 'local:' || "user_id"::text)
  OR ("user_id" IS NULL AND "remote_actor_id" IS NOT NULL AND "actor_key" LIKE 'swarm://%')
);

-- AddCheckConstraint
ALTER TABLE "follows" ADD CONSTRAINT "follows_follower_check" CHECK (
  ("follower_user_id" IS NOT NULL AND "follower_remote_actor_id" IS NULL AND "follower_key" = 'local:' || "follower_user_id"::text)
  OR ("follower_user_id" IS NULL AND "follower_remote_actor_id" IS NOT NULL AND "follower_key" LIKE 'swarm://%')
);

-- AddCheckConstraint
ALTER TABLE "follows" ADD CONSTRAINT "follows_followee_check" CHECK (
  ("followee_user_id" IS NOT NULL AND "followee_remote_actor_id" IS NULL AND "followee_key" = 'local:' || "followee_user_id"::text)
  OR ("followee_user_id" IS NULL AND "followee_remote_actor_id" IS NOT NULL AND "followee_key" LIKE 'swarm://%')
);

-- AddCheckConstraint
ALTER TABLE "follows" ADD CONSTRAINT "follows_not_self_check" CHECK ("follower_key" <> "followee_key");

-- AddCheckConstraint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_actor_check" CHECK (
  ("actor_user_id" IS NULL OR "actor_remote_actor_id" IS NULL)
  AND ("actor_user_id" IS NULL OR "actor_key" = 'local:' || "actor_user_id"::text)
);
