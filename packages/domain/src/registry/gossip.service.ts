// The gossip of nodes and handles, by concern: what we keep (handle-entries.ts), what a peer
// tells us (handle-intake.ts), relayed handles checked with their node (relay-check.ts), the
// exchange we start (gossip-exchange.ts) and the one we answer (gossip-receive.ts). Raw
// statements are in persistence/registry.sql.ts.

import type { GossipRequest } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { PeerClient } from '../peers/index.ts';
import { createGossipExchange, type GossipReport } from './gossip-exchange.ts';
import { createGossipReceive, type GossipOutcome } from './gossip-receive.ts';
import { createHandleEntries } from './handle-entries.ts';
import { createGossipIntake } from './handle-intake.ts';
import type { RegistryService } from './registry.service.ts';
import { createRelayCheck, type RelayCheckReport } from './relay-check.ts';
import { weightedSample } from './trust.ts';

export type { GossipReport } from './gossip-exchange.ts';
export type { GossipOutcome } from './gossip-receive.ts';
export { HANDLE_BOUNDS, handleCapFor, handleTrimTarget } from './handle-entries.ts';
export { RELAY_CHECK, type RelayCheckReport } from './relay-check.ts';
export {
  KNOWN_FILTER,
  buildKnownFilter,
  knownFilterBytes,
  knownFilterFalsePositiveRate,
} from './known-filter.ts';

/** Peers contacted per gossip round (docs/protocol.md, Gossip). */
export const GOSSIP_FANOUT = 3;

export interface GossipService {
  /** Our local users (with a did) as our own handle entries; returns how many changed. */
  syncLocalHandles(): Promise<number>;
  /** One push-pull exchange we start with `domain` (sync log direction `push`). */
  exchangeWith(domain: string): Promise<GossipReport>;
  /** Up to 3 random active peers, weighted by trust, exchanged with concurrently. */
  round(): Promise<GossipReport[]>;
  /** Inbound `POST /api/swarm/gossip` (sync log direction `pull`). */
  receive(body: GossipRequest, sourceDomain: string | undefined): Promise<GossipOutcome>;
  /**
   * Checks relayed handle entries heard so far with their own nodes (at most `limit`, default
   * RELAY_CHECK.perRound); the scheduler runs it after each gossip round.
   */
  verifyRelayed(limit?: number): Promise<RelayCheckReport>;
  /**
   * `handle@nodeDomain` was just read from its own node with this did (a profile read): kept
   * as its handle entry without waiting for gossip (docs/protocol.md "Registry bounds").
   */
  noteResolved(e: { handle: string; nodeDomain: string; did: string }): Promise<void>;
}

export interface GossipDeps {
  config: Pick<NodeConfig, 'domain' | 'handlesMax'>;
  db: Db;
  clock: Clock;
  logger: Logger;
  peers: PeerClient;
  registry: RegistryService;
  /** [0, 1) for peer selection; injectable for tests. */
  random?: () => number;
}

export function createGossipService(deps: GossipDeps): GossipService {
  const { config, db, clock, logger, peers, registry } = deps;
  const self = config.domain;
  const entries = createHandleEntries({
    self,
    db,
    clock,
    registry,
    maxTotal: config.handlesMax,
  });
  const relay = createRelayCheck({ db, clock, logger, peers, registry, entries });
  const intake = createGossipIntake({ self, db, clock, registry, entries, relay });
  const exchange = createGossipExchange({ self, db, clock, peers, registry, entries, intake });
  const receive = createGossipReceive({
    self,
    db,
    clock,
    registry,
    entries,
    intake,
    random: deps.random ?? Math.random,
  });

  async function exchangeWith(domain: string): Promise<GossipReport> {
    return exchange(domain, await registry.blockedDomains(), true);
  }

  async function round(): Promise<GossipReport[]> {
    const sample = weightedSample(
      await registry.activePeers(),
      GOSSIP_FANOUT,
      (p) => p.trustScore,
      deps.random,
    );
    if (sample.length === 0) return [];
    await entries.syncLocalHandles();
    const blocked = await registry.blockedDomains();
    return Promise.all(sample.map((p) => exchange(p.domain, blocked, false)));
  }

  return {
    syncLocalHandles: entries.syncLocalHandles,
    exchangeWith,
    round,
    receive,
    verifyRelayed: relay.verifyRelayed,
    noteResolved: entries.noteResolved,
  };
}
