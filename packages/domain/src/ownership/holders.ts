import { nodeInfoSchema, SWARM_PATHS, type Capability } from '@swarm/contract';
import type { Tx } from '../interactions/interaction-effects.ts';
import type { PeerClient } from '../peers/index.ts';
import { followerDomainsSql, holderDomainsSql } from '../persistence/ownership.sql.ts';
import { parseCapabilities } from '../registry/capabilities.ts';

/** At most this many nodes are told of one deletion or move (the rest is logged). */
export const HOLDERS_MAX = 1_000;
/** Peers whose capabilities were never read are asked (`GET /api/swarm/info`) up to this many. */
const INFO_LOOKUPS_MAX = 50;

/**
 * The nodes that hold something of a local user (docs/protocol.md "Deleting posts and
 * accounts"): the nodes of their remote followers and of the people they follow, every node this
 * node delivered anything of theirs to (the outbox), and for one post the nodes of the people
 * who liked, reposted or answered it. Never this node itself.
 */
export async function holderDomains(
  tx: Tx,
  input: { userId: string; self: string; postId?: string },
): Promise<string[]> {
  const rows = await tx.$queryRaw<{ domain: string }[]>(
    holderDomainsSql(input.userId, input.self, input.postId ?? null, HOLDERS_MAX),
  );
  return rows.map((r) => r.domain);
}

/** The domains of the remote followers of an actor key (local user or remote actor). */
export async function followerDomains(
  tx: Tx,
  input: { followeeKey: string; exclude: string[] },
): Promise<string[]> {
  const rows = await tx.$queryRaw<{ domain: string }[]>(
    followerDomainsSql(input.followeeKey, HOLDERS_MAX),
  );
  return rows.map((r) => r.domain).filter((d) => !input.exclude.includes(d));
}

/**
 * The subset of `domains` that advertise `capability` in their node info (stored by the
 * registry; a node whose info was never read is asked, up to INFO_LOOKUPS_MAX of them).
 * Blocked nodes are left out by the outbox itself.
 */
export async function withCapability(
  deps: { db: { prisma: Pick<Tx, 'swarmNode'> }; peers: Pick<PeerClient, 'getJson'> },
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
