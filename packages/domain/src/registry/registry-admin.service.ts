import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';

// Operator view of the registry: seeds (list, enable/disable) and node blocks. Used by the admin
// API only; the swarm-facing rules (blocked nodes refused, seeds contacted) live in the registry
// service, which reads the same tables.

export interface SeedSummary {
  domain: string;
  priority: number;
  isEnabled: boolean;
  lastContactAt: Date | null;
  consecutiveFailures: number;
}

export interface BlockSummary {
  domain: string;
  reason: string | null;
  createdAt: Date;
}

export interface RegistryAdminService {
  listSeeds(): Promise<SeedSummary[]>;
  /** The updated seed, or undefined when there is no such seed. */
  setSeedEnabled(domain: string, isEnabled: boolean): Promise<SeedSummary | undefined>;
  listBlocks(): Promise<BlockSummary[]>;
  /** Blocks a domain (again: the reason is updated) and marks its node row inactive. */
  blockNode(domain: string, reason: string | undefined): Promise<BlockSummary>;
  /** True when a block existed. The node stays inactive until it is contacted again. */
  unblockNode(domain: string): Promise<boolean>;
}

const SEED = {
  domain: true,
  priority: true,
  isEnabled: true,
  lastContactAt: true,
  consecutiveFailures: true,
} as const;
const BLOCK = { domain: true, reason: true, createdAt: true } as const;

export function createRegistryAdminService(deps: { db: Db; clock: Clock }): RegistryAdminService {
  const { prisma } = deps.db;

  return {
    listSeeds: () =>
      prisma.swarmSeed.findMany({
        select: SEED,
        orderBy: [{ priority: 'asc' }, { domain: 'asc' }],
      }),

    async setSeedEnabled(domain, isEnabled) {
      const updated = await prisma.swarmSeed.updateMany({ where: { domain }, data: { isEnabled } });
      if (updated.count === 0) return undefined;
      return (await prisma.swarmSeed.findUnique({ where: { domain }, select: SEED })) ?? undefined;
    },

    listBlocks: () =>
      prisma.nodeBlock.findMany({
        select: BLOCK,
        orderBy: [{ createdAt: 'desc' }, { domain: 'asc' }],
      }),

    blockNode: (domain, reason) =>
      // Block row and inactive node together; the node row is left otherwise as it was.
      prisma.$transaction(async (tx) => {
        const block = await tx.nodeBlock.upsert({
          where: { domain },
          create: { domain, reason: reason ?? null, createdAt: deps.clock.now() },
          update: { reason: reason ?? null },
          select: BLOCK,
        });
        await tx.swarmNode.updateMany({ where: { domain }, data: { isActive: false } });
        return block;
      }),

    async unblockNode(domain) {
      const deleted = await prisma.nodeBlock.deleteMany({ where: { domain } });
      return deleted.count > 0;
    },
  };
}
