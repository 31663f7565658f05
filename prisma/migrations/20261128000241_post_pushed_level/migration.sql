-- AlterTable
ALTER TABLE "posts" ADD COLUMN     "pushed_level" INTEGER NOT NULL DEFAULT 0;
