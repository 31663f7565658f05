import { SWARM_PATHS, swarmUserResponseSchema, type HandleEntry } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { PeerClient } from '../peers/index.ts';
import { mapBounded } from './bounded.ts';
import type { HandleEntries } from './handle-entries.ts';
import type { RegistryService } from './registry.service.ts';

/**
 * Relayed handle entries (another node's users) are accepted after asking that node
 * (`GET /api/swarm/users/<handle>?limit=0` → its did). Bounds on that work: lookups per round,
 * lookups in flight, claims waiting (a peer could relay thousands), how long a claim waits for
 * its node to become reachable, attempts on a node that fails, and how long a refused claim
 * (wrong did, unknown handle) is remembered so relaying it again costs nothing.
 */
export const RELAY_CHECK = {
  perRound: 100,
  concurrency: 8,
  maxPending: 5_000,
  pendingTtlMs: 60 * 60_000,
  attempts: 3,
  refusedTtlMs: 6 * 60 * 60_000,
  maxRefused: 20_000,
} as const;

/** What one round of relayed-entry checks did. */
export interface RelayCheckReport {
  /** Lookups made. */
  checked: number;
  /** Confirmed by their node and stored (source `lookup:<domain>`). */
  accepted: number;
  /** Their node answered another did, or has no such handle: ignored, remembered. */
  refused: number;
  /** Their node could not be asked (kept for a later round, up to a few attempts). */
  failed: number;
  /** Claims still waiting. */
  pending: number;
}

/** A relayed entry waiting for its node's confirmation. */
interface RelayClaim {
  entry: HandleEntry;
  /** The peer that relayed it (for logs). */
  via: string;
  heardAt: number;
  attempts: number;
}

const claimKey = (e: Pick<HandleEntry, 'handle' | 'nodeDomain' | 'did'>) =>
  `${e.handle}@${e.nodeDomain}=${e.did}`;

/** Relayed handle claims: heard from one peer, confirmed with their own node. */
export interface RelayCheck {
  /** Remembers relayed claims we do not hold yet, for `verifyRelayed`. */
  noteRelayed(sender: string, entries: HandleEntry[]): Promise<void>;
  verifyRelayed(limit?: number): Promise<RelayCheckReport>;
}

export function createRelayCheck(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  peers: PeerClient;
  registry: RegistryService;
  entries: HandleEntries;
}): RelayCheck {
  const { db, clock, logger, peers, registry, entries: handles } = deps;
  const prisma = db.prisma;
  /** Relayed claims waiting for a lookup, and refused ones until they expire (per process). */
  const pending = new Map<string, RelayClaim>();
  const refused = new Map<string, number>();

  async function noteRelayed(sender: string, entries: HandleEntry[]) {
    const now = clock.now().getTime();
    const fresh = entries.filter((e) => {
      const key = claimKey(e);
      return !pending.has(key) && !((refused.get(key) ?? 0) > now);
    });
    if (fresh.length === 0) return;
    const held = await heldClaims(fresh);
    let dropped = 0;
    for (const entry of fresh) {
      const key = claimKey(entry);
      if (held.has(key) || pending.has(key)) continue;
      if (pending.size >= RELAY_CHECK.maxPending) {
        dropped++;
        continue;
      }
      pending.set(key, { entry, via: sender, heardAt: now, attempts: 0 });
    }
    if (dropped > 0) logger.warn({ peer: sender, dropped }, 'too many relayed handles waiting');
  }

  /** The claims among `entries` already in our registry (same handle, node and did). */
  async function heldClaims(entries: HandleEntry[]): Promise<Set<string>> {
    const held = new Set<string>();
    const unsure = entries.filter((e) => {
      if (handles.heldDid(e.handle, e.nodeDomain) !== e.did) return true;
      held.add(claimKey(e));
      return false;
    });
    if (unsure.length === 0) return held;
    const rows = await prisma.handleRegistryEntry.findMany({
      where: { handle: { in: [...new Set(unsure.map((e) => e.handle))] } },
      select: { handle: true, nodeDomain: true, did: true },
    });
    for (const row of rows) {
      handles.remember(row);
      held.add(claimKey(row));
    }
    return held;
  }

  function forget(map: Map<string, number>, now: number) {
    for (const [key, until] of map) if (until <= now) map.delete(key);
    // Oldest first (insertion order) beyond the cap.
    for (const key of map.keys()) {
      if (map.size <= RELAY_CHECK.maxRefused) break;
      map.delete(key);
    }
  }

  async function verifyRelayed(limit: number = RELAY_CHECK.perRound): Promise<RelayCheckReport> {
    const report = { checked: 0, accepted: 0, refused: 0, failed: 0, pending: 0 };
    const now = clock.now().getTime();
    forget(refused, now);
    if (pending.size === 0) return report;
    const claims = [...pending.values()];
    const [reachable, blocked, held] = await Promise.all([
      prisma.swarmNode.findMany({
        where: {
          domain: { in: [...new Set(claims.map((c) => c.entry.nodeDomain))] },
          isActive: true,
          isVerified: true,
        },
        select: { domain: true },
      }),
      registry.blockedDomains(),
      heldClaims(claims.map((c) => c.entry)),
    ]);
    const asked = new Set(reachable.map((n) => n.domain));
    const batch: RelayClaim[] = [];
    for (const claim of claims) {
      const key = claimKey(claim.entry);
      const domain = claim.entry.nodeDomain;
      // Held already (its node told us itself meanwhile), blocked, or waited too long for its
      // node to become reachable: nothing to ask.
      if (held.has(key) || blocked.has(domain) || now - claim.heardAt > RELAY_CHECK.pendingTtlMs) {
        pending.delete(key);
      } else if (asked.has(domain) && batch.length < limit) {
        batch.push(claim);
      }
    }
    const answers = await mapBounded(batch, RELAY_CHECK.concurrency, (claim) =>
      peers.getJson(
        claim.entry.nodeDomain,
        `${SWARM_PATHS.user(claim.entry.handle)}?limit=0`,
        swarmUserResponseSchema,
      ),
    );
    const confirmed: RelayClaim[] = [];
    for (const [i, answer] of answers.entries()) {
      const claim = batch[i]!;
      const { entry } = claim;
      const key = claimKey(entry);
      report.checked++;
      if (answer.ok || (answer.reason.kind === 'http' && answer.reason.status === 404)) {
        pending.delete(key);
        const did =
          answer.ok && answer.value.nodeDomain === entry.nodeDomain
            ? answer.value.profile.did
            : undefined;
        if (did === entry.did) {
          confirmed.push(claim);
        } else {
          refused.set(key, now + RELAY_CHECK.refusedTtlMs);
          report.refused++;
          logger.info(
            { peer: claim.via, handle: `${entry.handle}@${entry.nodeDomain}`, claimed: entry.did },
            did
              ? 'relayed handle entry refused: its node has another did'
              : 'relayed handle entry refused: unknown on its node',
          );
        }
      } else {
        report.failed++;
        if (++claim.attempts >= RELAY_CHECK.attempts) pending.delete(key);
      }
    }
    if (confirmed.length > 0) {
      const byNode = new Map<string, HandleEntry[]>();
      for (const { entry } of confirmed) {
        byNode.set(entry.nodeDomain, [...(byNode.get(entry.nodeDomain) ?? []), entry]);
      }
      for (const [domain, entries] of byNode) {
        const cap = await handles.handleCap(domain, entries.length);
        await handles.observeStoredStamps();
        await handles.writeNodeHandles(
          domain,
          cap,
          entries.slice(0, cap).map((entry) => ({
            handle: entry.handle,
            did: entry.did,
            updatedAt: entry.updatedAt ? new Date(entry.updatedAt) : clock.now(),
            source: `lookup:${domain}`,
          })),
        );
      }
      for (const { entry } of confirmed) handles.remember(entry);
      report.accepted = confirmed.length;
    }
    report.pending = pending.size;
    return report;
  }

  return { noteRelayed, verifyRelayed };
}
