import { nodeInfoSchema, SWARM_PATHS, type Capability } from '@swarm/contract';
import type { Prisma } from '@swarm/db';
import type { PeerClient } from '../peers/peer-client.ts';

/** Peers whose capabilities were never read are asked (`GET /api/swarm/info`) up to this many. */
const INFO_LOOKUPS_MAX = 50;

/**
 * A node's capabilities as stored in `swarm_nodes.capabilities` (a JSON list in a text column,
 * as its node info gave it): the strings of the list; anything unreadable counts as none.
 */
export function parseCapabilities(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The subset of `domains` that advertise `capability` in their node info (stored by the
 * registry; a node whose info was never read is asked, up to INFO_LOOKUPS_MAX of them).
 * Blocked nodes are left out by the outbox itself.
 */
export async function withCapability(
  deps: {
    db: { prisma: Pick<Prisma.TransactionClient, 'swarmNode'> };
    peers: Pick<PeerClient, 'getJson'>;
  },
  domains: readonly string[],
  capability: Capability,
): Promise<{ told: string[]; skipped: string[] }> {
  if (domains.length === 0) return { told: [], skipped: [] };
  const rows = await deps.db.prisma.swarmNode.findMany({
    where: { domain: { in: [...domains] } },
    select: { domain: true, capabilities: true },
  });
  const known = new Map(rows.map((r) => [r.domain, parseCapabilities(r.capabilities)]));
  const told: string[] = [];
  const skipped: string[] = [];
  let lookups = 0;
  for (const domain of domains) {
    let listed = known.get(domain) ?? [];
    // An empty list means "info never read", not "no capabilities".
    if (listed.length === 0 && lookups < INFO_LOOKUPS_MAX) {
      lookups++;
      const info = await deps.peers.getJson(domain, SWARM_PATHS.info, nodeInfoSchema);
      listed = info.ok ? info.value.capabilities : [];
    }
    (listed.includes(capability) ? told : skipped).push(domain);
  }
  return { told, skipped };
}
