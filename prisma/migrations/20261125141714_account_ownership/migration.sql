-- AlterTable
ALTER TABLE "posts" ADD COLUMN     "moved_from" TEXT;

-- AlterTable
ALTER TABLE "remote_actors" ADD COLUMN     "moved_to" TEXT;

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "moved_at" TIMESTAMPTZ(3),
ADD COLUMN     "moved_from" TEXT,
ADD COLUMN     "moved_to" TEXT;

-- CreateTable
CREATE TABLE "account_tombstones" (
    "handle" TEXT NOT NULL,
    "did" TEXT,
    "deleted_at" TIMESTAMPTZ(3) NOT NULL,
    "reserved_until" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "account_tombstones_pkey" PRIMARY KEY ("handle")
);

-- CreateIndex
CREATE INDEX "account_tombstones_reserved_until_idx" ON "account_tombstones"("reserved_until");
