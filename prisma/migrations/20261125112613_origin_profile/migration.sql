-- AlterTable
ALTER TABLE "swarm_nodes" ADD COLUMN     "protocol_profile" TEXT;
ALTER TABLE "swarm_nodes" ADD CONSTRAINT "swarm_nodes_protocol_profile_check"
  CHECK ("protocol_profile" IN ('swarm', 'origin'));
