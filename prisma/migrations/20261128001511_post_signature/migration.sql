-- AlterTable
ALTER TABLE "posts" ADD COLUMN     "post_signature" TEXT,
ADD COLUMN     "pushed_level" INTEGER NOT NULL DEFAULT 0;
