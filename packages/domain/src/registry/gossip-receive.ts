import {
  formatTimestamp,
  ok,
  type GossipRequest,
  type GossipResponse,
  type Refusal,
  type Result,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import {
  changedHandles,
  changedNodes,
  cursorAfter,
  missingNodes,
  writeSyncLog,
} from './gossip-pages.ts';
import type { HandleEntries } from './handle-entries.ts';
import type { GossipIntake } from './handle-intake.ts';
import { knownFilterReader } from './known-filter.ts';
import { refuseSender } from './refuse-sender.ts';
import type { RegistryService } from './registry.service.ts';

/** Our answer to a peer's gossip, or why it was refused (`refuseSender`). */
export type GossipOutcome = Result<GossipResponse, Refusal<'NODE_BLOCKED' | 'FORBIDDEN'>>;

/** Inbound `POST /api/swarm/gossip` (sync log direction `pull`). */
export type GossipReceive = (
  body: GossipRequest,
  sourceDomain: string | undefined,
) => Promise<GossipOutcome>;

export function createGossipReceive(deps: {
  self: string;
  db: Db;
  clock: Clock;
  registry: RegistryService;
  entries: HandleEntries;
  intake: GossipIntake;
  random: () => number;
}): GossipReceive {
  const { self, db, clock, registry, entries: handles, intake, random } = deps;
  const prisma = db.prisma;
  const stamper = registry.stamper;

  return async function receive(body, sourceDomain) {
    const started = performance.now();
    const sender = body.sender;
    const blockedSet = await registry.blockedDomains();
    const refused = await refuseSender(sender, sourceDomain, self, (d) => blockedSet.has(d));
    if (refused) return refused;
    const verified = sourceDomain !== undefined;
    // Signed: a direct contact. Unsigned: only a hint to probe; its handle claims are ignored.
    if (verified) await registry.recordSuccess(sender, undefined, 'gossip');
    else await registry.noteHint(sender, 'gossip');
    await handles.syncLocalHandles();
    const nodesReceived = await intake.noteMentions(sender, body.nodes, verified);
    const handlesReceived = verified
      ? await intake.acceptHandles(sender, body.handles, blockedSet)
      : 0;

    // Our clock for the requester's next `since`, taken after applying its entries so they are
    // not echoed next time; anything changed later gets a later stamp.
    await handles.observeStoredStamps();
    const now = stamper.next();
    const since = body.since ? new Date(body.since) : undefined;
    const blocked = [...blockedSet];
    const exclude = [self, sender, ...blocked];
    // With a `known` filter: the nodes it lacks, whatever their change time (a first exchange
    // would otherwise send the oldest page, the same to every new partner). Without: by `since`.
    const nodes = body.known
      ? await missingNodes(prisma, knownFilterReader(body.known), exclude, random)
      : await changedNodes(prisma, since, exclude);
    const handlePage = await changedHandles(prisma, since, [sender, ...blocked]);
    // Always with our clock (docs/protocol.md), even when empty: peers of other implementations may
    // rely on it.
    const answer = {
      nodes: nodes.items,
      handles: handlePage.items,
      received: { nodes: nodesReceived, handles: handlesReceived },
      timestamp: formatTimestamp(cursorAfter(now, nodes, handlePage)),
    };
    await writeSyncLog(prisma, {
      remoteDomain: sender,
      direction: 'pull',
      nodesReceived,
      handlesReceived,
      nodesSent: nodes.items.length,
      handlesSent: handlePage.items.length,
      success: true,
      durationMs: Math.round(performance.now() - started),
      createdAt: clock.now(),
    });
    return ok(answer);
  };
}
