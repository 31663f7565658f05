-- AlterTable
ALTER TABLE "posts" ADD COLUMN     "edited_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "post_idempotency_keys" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "user_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "post_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "post_idempotency_keys_pkey" PRIMARY KEY ("id"),
    -- The client API refuses longer keys with 422 before they get here
    CONSTRAINT "post_idempotency_keys_key_length" CHECK (char_length("key") BETWEEN 1 AND 200)
);

-- CreateIndex
CREATE INDEX "post_idempotency_keys_created_at_idx" ON "post_idempotency_keys"("created_at");

-- CreateIndex
CREATE INDEX "post_idempotency_keys_post_id_idx" ON "post_idempotency_keys"("post_id");

-- CreateIndex
CREATE UNIQUE INDEX "post_idempotency_keys_user_id_key_key" ON "post_idempotency_keys"("user_id", "key");

-- AddForeignKey
ALTER TABLE "post_idempotency_keys" ADD CONSTRAINT "post_idempotency_keys_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "post_idempotency_keys" ADD CONSTRAINT "post_idempotency_keys_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
