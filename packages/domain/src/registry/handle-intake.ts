import type { HandleEntry, NodeSummary } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { HandleEntries } from './handle-entries.ts';
import type { RegistryService } from './registry.service.ts';
import type { RelayCheck } from './relay-check.ts';

/** What a peer's gossip tells us: the nodes it mentions and the handle entries it sends. */
export interface GossipIntake {
  noteMentions(sender: string, nodes: NodeSummary[], verified: boolean): Promise<number>;
  acceptHandles(sender: string, entries: HandleEntry[], blocked: Set<string>): Promise<number>;
}

export function createGossipIntake(deps: {
  self: string;
  db: Db;
  clock: Clock;
  registry: RegistryService;
  entries: HandleEntries;
  relay: RelayCheck;
}): GossipIntake {
  const { self, db, clock, registry, entries: handles, relay } = deps;
  const prisma = db.prisma;

  /**
   * Gossip mentions: unknown domains become unverified, inactive hints due for a probe. A
   * verified sender vouches for the nodes it lists (see `noteHints`).
   */
  async function noteMentions(
    sender: string,
    nodes: NodeSummary[],
    verified: boolean,
  ): Promise<number> {
    const hints = nodes.filter((n) => n.domain !== sender);
    if (hints.length === 0) return 0;
    // Unsigned mentions share one bounded pool (`hint:`), signed ones are capped per sender.
    return registry.noteHints(hints, verified ? `gossip:${sender}` : `hint:${sender}`, {
      vouched: verified,
    });
  }

  /**
   * Handle entries are accepted from their own node: `sender` must be authenticated (a verified
   * signature, or the peer we called ourselves). Relayed entries (another node's handles) wait
   * for `verifyRelayed` to check them with their node.
   */
  async function acceptHandles(
    sender: string,
    entries: HandleEntry[],
    blocked: Set<string>,
  ): Promise<number> {
    const own = new Map<string, HandleEntry>();
    const relayed: HandleEntry[] = [];
    const byDid = new Map<string, HandleEntry>();
    for (const entry of entries) {
      if (entry.nodeDomain === sender) {
        // One entry per did: a node's later word about one user replaces its earlier one
        // (without both times, the later entry in the list).
        const other = byDid.get(entry.did);
        if (
          other?.updatedAt &&
          entry.updatedAt &&
          Date.parse(other.updatedAt) >= Date.parse(entry.updatedAt)
        )
          continue;
        if (other) own.delete(other.handle);
        byDid.set(entry.did, entry);
        own.set(entry.handle, entry);
      } else if (entry.nodeDomain !== self && !blocked.has(entry.nodeDomain)) relayed.push(entry);
    }
    if (relayed.length > 0) await relay.noteRelayed(sender, relayed);
    if (own.size === 0) return 0;
    const existing = new Map(
      (
        await prisma.handleRegistryEntry.findMany({
          where: { nodeDomain: sender, handle: { in: [...own.keys()] } },
          select: { handle: true, did: true, updatedAt: true, source: true },
        })
      ).map((e) => [e.handle, e]),
    );
    const changed = [...own.values()].filter((entry) => {
      const known = existing.get(entry.handle);
      if (!known) return true;
      // No time claim (the origin treats `updatedAt` as optional): only another did is news.
      if (entry.updatedAt === undefined) return entry.did !== known.did;
      const at = new Date(entry.updatedAt).getTime();
      // An entry confirmed by lookup carries the relay's `updatedAt`: the node's own word
      // replaces it whenever it differs.
      if (known.source !== `gossip:${sender}`) {
        return entry.did !== known.did || at !== known.updatedAt.getTime();
      }
      // Both times come from the sender's own clock: comparing them is sound.
      return (
        at > known.updatedAt.getTime() ||
        (at === known.updatedAt.getTime() && entry.did !== known.did)
      );
    });
    if (changed.length === 0) return 0;
    const cap = await handles.handleCap(sender, changed.length);
    // An entry without a time claim (the origin's `updatedAt` is optional) counts as now.
    const now = clock.now();
    const at = (entry: HandleEntry) =>
      entry.updatedAt ? Date.parse(entry.updatedAt) : now.getTime();
    const kept = changed
      .slice()
      .sort((a, b) => at(b) - at(a))
      .slice(0, cap);
    await handles.observeStoredStamps();
    await handles.writeNodeHandles(
      sender,
      cap,
      kept.map((entry) => ({
        handle: entry.handle,
        did: entry.did,
        updatedAt: entry.updatedAt ? new Date(entry.updatedAt) : now,
        source: `gossip:${sender}`,
      })),
    );
    for (const entry of kept) handles.remember({ ...entry, nodeDomain: sender });
    return kept.length;
  }

  return { noteMentions, acceptHandles };
}
