-- AlterTable
ALTER TABLE "swarm_sync_logs" ADD COLUMN     "refused" BOOLEAN NOT NULL DEFAULT false;
