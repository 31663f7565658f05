-- AlterTable
ALTER TABLE "media_items" ADD COLUMN     "blurhash" TEXT;

-- CreateTable
CREATE TABLE "uploads" (
    "id" UUID NOT NULL,
    "owner_id" UUID,
    "purpose" TEXT NOT NULL,
    "mime_type" TEXT NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "blurhash" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "post_id" UUID,
    "attached_at" TIMESTAMPTZ(3),
    "discarded_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "uploads_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "uploads_owner_id_attached_at_idx" ON "uploads"("owner_id", "attached_at");

-- CreateIndex
CREATE INDEX "uploads_attached_at_created_at_idx" ON "uploads"("attached_at", "created_at");

-- CreateIndex
CREATE INDEX "uploads_post_id_idx" ON "uploads"("post_id");

-- AddForeignKey
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE SET NULL ON UPDATE CASCADE;
