-- AlterTable
ALTER TABLE "posts" ADD COLUMN     "post_signature" TEXT;
