-- CreateEnum
CREATE TYPE "message_privacy" AS ENUM ('everyone', 'following', 'nobody');

-- CreateEnum
CREATE TYPE "message_status" AS ENUM ('sending', 'sent', 'delivered', 'read', 'failed');

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "encryption_key_created_at" TIMESTAMPTZ(3),
ADD COLUMN     "encryption_key_signature" TEXT,
ADD COLUMN     "encryption_public_key" TEXT,
ADD COLUMN     "message_privacy" "message_privacy" NOT NULL DEFAULT 'everyone';

-- CreateTable
CREATE TABLE "messages" (
    "id" UUID NOT NULL,
    "sender_address" TEXT NOT NULL,
    "sender_did" TEXT NOT NULL,
    "recipient_address" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "envelope" TEXT NOT NULL,
    "local_sender_id" UUID,
    "local_recipient_id" UUID,
    "status" "message_status" NOT NULL DEFAULT 'sent',
    "failure_reason" TEXT,
    "delivered_at" TIMESTAMPTZ(3),
    "read_at" TIMESTAMPTZ(3),
    "outbox_delivery_id" UUID,

    CONSTRAINT "messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_blocks" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "user_id" UUID NOT NULL,
    "blocked_address" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_blocks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "messages_local_recipient_id_created_at_idx" ON "messages"("local_recipient_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "messages_local_sender_id_created_at_idx" ON "messages"("local_sender_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "messages_outbox_delivery_id_idx" ON "messages"("outbox_delivery_id");

-- CreateIndex
CREATE UNIQUE INDEX "user_blocks_user_id_blocked_address_key" ON "user_blocks"("user_id", "blocked_address");

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_local_sender_id_fkey" FOREIGN KEY ("local_sender_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_local_recipient_id_fkey" FOREIGN KEY ("local_recipient_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_blocks" ADD CONSTRAINT "user_blocks_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
