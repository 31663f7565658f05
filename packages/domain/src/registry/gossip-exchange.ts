import {
  SWARM_PATHS,
  formatTimestamp,
  gossipResponseSchema,
  type GossipRequest,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import { describePeerError, isRefusal, type PeerClient } from '../peers/index.ts';
import { setLastSyncSql } from '../persistence/registry.sql.ts';
import {
  changedHandles,
  changedNodes,
  cursorAfter,
  heldDomains,
  writeSyncLog,
} from './gossip-pages.ts';
import type { HandleEntries } from './handle-entries.ts';
import type { GossipIntake } from './handle-intake.ts';
import { buildKnownFilter } from './known-filter.ts';
import type { ContactReport, RegistryService } from './registry.service.ts';

export interface GossipReport extends ContactReport {
  nodesSent: number;
  nodesReceived: number;
  handlesSent: number;
  handlesReceived: number;
}

/** One push-pull exchange we start; `syncLocal` is false when the round already synced. */
export type GossipExchange = (
  domain: string,
  blockedSet: Set<string>,
  syncLocal: boolean,
) => Promise<GossipReport>;

export function createGossipExchange(deps: {
  self: string;
  db: Db;
  clock: Clock;
  peers: PeerClient;
  registry: RegistryService;
  entries: HandleEntries;
  intake: GossipIntake;
}): GossipExchange {
  const { self, db, clock, peers, registry, entries: handles, intake } = deps;
  const prisma = db.prisma;
  const stamper = registry.stamper;

  /**
   * Our push cursor for a peer: the `created_at` of our last successful push row to it. We
   * write that row with the change time the next push must start from (the exchange's start,
   * or the last entry sent when a page was capped), so it always reads on our own clock.
   */
  async function pushCursor(domain: string): Promise<Date | undefined> {
    const last = await prisma.swarmSyncLog.findFirst({
      where: { remoteDomain: domain, direction: 'push', success: true },
      orderBy: { createdAt: 'desc' },
      select: { createdAt: true },
    });
    return last?.createdAt;
  }

  return async function exchange(domain, blockedSet, syncLocal) {
    const started = performance.now();
    const empty = { nodesSent: 0, nodesReceived: 0, handlesSent: 0, handlesReceived: 0 };
    if (domain === self) {
      return { domain, ok: false, ms: 0, error: 'This is our own domain.', ...empty };
    }
    if (blockedSet.has(domain)) {
      return { domain, ok: false, ms: 0, error: `${domain} is blocked on this node.`, ...empty };
    }
    if (syncLocal) await handles.syncLocalHandles();
    await handles.observeStoredStamps();
    const exchangeStart = stamper.next();
    const blocked = [...blockedSet];
    const [from, peer] = await Promise.all([
      pushCursor(domain),
      prisma.swarmNode.findUnique({ where: { domain }, select: { lastSyncAt: true } }),
    ]);
    // Never echo a peer's own data back to it.
    const nodes = await changedNodes(prisma, from, [self, domain, ...blocked]);
    const handlePage = await changedHandles(prisma, from, [domain, ...blocked]);
    // What we hold, so a peer of ours answers the nodes we lack (others ignore it). Blocked
    // domains and hints pruned twice lately (`afterPrune`) are in it: we would not store or probe them now.
    const known = buildKnownFilter([
      self,
      ...blocked,
      ...registry.prunedLately(),
      ...(await heldDomains(prisma)),
    ]);
    const request: GossipRequest = {
      sender: self,
      nodes: nodes.items,
      handles: handlePage.items,
      timestamp: formatTimestamp(clock.now()),
      ...(peer?.lastSyncAt ? { since: formatTimestamp(peer.lastSyncAt) } : {}),
      known,
    };
    const sent = { nodesSent: nodes.items.length, handlesSent: handlePage.items.length };
    const result = await peers.postJson(domain, SWARM_PATHS.gossip, request, gossipResponseSchema);
    if (!result.ok) {
      const error = describePeerError(result.reason);
      // A 4xx is the peer disagreeing with our request (docs/protocol.md), not the peer being down.
      const refused = isRefusal(result.reason);
      if (refused) await registry.recordRefusal(domain, error);
      else await registry.recordFailure(domain, error);
      const report = {
        domain,
        ok: false,
        ms: result.ms,
        error,
        ...(refused ? { refused } : {}),
        ...sent,
        nodesReceived: 0,
        handlesReceived: 0,
      };
      await writeSyncLog(prisma, {
        remoteDomain: domain,
        direction: 'push',
        ...sent,
        nodesReceived: 0,
        handlesReceived: 0,
        success: false,
        refused,
        errorMessage: error,
        durationMs: Math.round(performance.now() - started),
        createdAt: clock.now(),
      });
      return report;
    }
    await registry.recordSuccess(domain, undefined, 'gossip');
    const answer = result.value;
    const nodesReceived = await intake.noteMentions(domain, answer.nodes, true);
    const handlesReceived = await intake.acceptHandles(domain, answer.handles, blockedSet);
    // The peer's clock, sent back as `since` next time (never compared with ours). We always
    // send one, but an empty answer to our `since` without one leaves that `since` valid. A peer
    // that never sends one gets full answers, capped.
    const keepCursor =
      !answer.timestamp &&
      request.since !== undefined &&
      answer.nodes.length + answer.handles.length === 0;
    if (!keepCursor) {
      const peerClock = answer.timestamp ? new Date(answer.timestamp) : null;
      // Raw SQL: Prisma would bump updated_at, which peers must only see for gossiped changes.
      await prisma.$executeRaw(setLastSyncSql(domain, peerClock));
    }
    const durationMs = Math.round(performance.now() - started);
    await writeSyncLog(prisma, {
      remoteDomain: domain,
      direction: 'push',
      ...sent,
      nodesReceived,
      handlesReceived,
      success: true,
      durationMs,
      createdAt: cursorAfter(exchangeStart, nodes, handlePage),
    });
    return { domain, ok: true, ms: result.ms, ...sent, nodesReceived, handlesReceived };
  };
}
