-- AlterTable
ALTER TABLE "remote_actors" ADD COLUMN     "encryption_key_created_at" TIMESTAMPTZ(3),
ADD COLUMN     "encryption_key_signature" TEXT,
ADD COLUMN     "encryption_public_key" TEXT;
