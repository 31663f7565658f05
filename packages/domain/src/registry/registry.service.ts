// The registry of nodes (`swarm_nodes`), by concern: contacts and probes (node-contacts.ts),
// nodes only heard of (node-hints.ts), announcements and seeds (node-announce.ts), and what it
// lists (node-lists.ts). Raw statements are in persistence/registry.sql.ts.

import type {
  Announcement,
  NodeInfo,
  NodeListEntry,
  NodeSummary,
  SwarmStats,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { NodeInfoService } from '../node-info.service.ts';
import type { PeerClient, PeerProfiles } from '../peers/index.ts';
import { createChangeStamper, type ChangeStamper } from './change-stamp.ts';
import { createNodeAnnounce, type AnnounceOutcome } from './node-announce.ts';
import { createNodeContacts, type ContactReport } from './node-contacts.ts';
import { createNodeHints, type DiscoveredVia } from './node-hints.ts';
import { createNodeLists } from './node-lists.ts';

export type { AnnounceOutcome } from './node-announce.ts';
export { PROBE_CONCURRENCY, PROBES_PER_ROUND, type ContactReport } from './node-contacts.ts';
export { HINT_BOUNDS, isUnsignedHint, type DiscoveredVia } from './node-hints.ts';
export { refuseSender } from './refuse-sender.ts';

export interface RegistryService {
  /** Change times for gossip paging; shared with the gossip service. */
  readonly stamper: ChangeStamper;
  isBlocked(domain: string): Promise<boolean>;
  blockedDomains(): Promise<Set<string>>;
  /** A successful direct contact (it answered us, or announced/gossiped signed). */
  recordSuccess(domain: string, info: NodeInfo | undefined, via: DiscoveredVia): Promise<void>;
  /** A failed direct contact with a known node. */
  recordFailure(domain: string, reason: string): Promise<void>;
  /**
   * The node answered our request with a refusal (4xx, see `isRefusal`): it is up but disagrees.
   * Only `last_error` changes: no failed contact, no trust change, no deactivation.
   */
  recordRefusal(domain: string, reason: string): Promise<void>;
  /**
   * A node we only heard of (gossip mention, unsigned announcement): stored inactive and
   * unverified, due for a probe now. Returns true when it was new.
   */
  noteHint(domain: string, via: DiscoveredVia, name?: string): Promise<boolean>;
  /**
   * `noteHint` for many domains at once; returns how many were new. With `vouched` (the hints
   * come from a verified peer that lists them as active), a never-reached node whose probes
   * failed gets its next probe within the first backoff step again (see PROBE_BACKOFF).
   */
  noteHints(
    hints: { domain: string; name?: string }[],
    via: DiscoveredVia,
    options?: { vouched?: boolean },
  ): Promise<number>;
  /** Probe `GET /api/swarm/info` and record the outcome. */
  probe(domain: string, via: DiscoveredVia): Promise<ContactReport>;
  /**
   * Re-probe nodes whose `next_probe_at` is due (inactive nodes, fresh hints), oldest first, at
   * most `limit` (default PROBES_PER_ROUND), a few at a time.
   */
  probeDue(limit?: number): Promise<ContactReport[]>;
  /** Outbound announce (node-signed) to one node. */
  announceTo(domain: string, via: DiscoveredVia): Promise<ContactReport>;
  /** Announce to the enabled seeds, one after the other by priority. */
  announceToSeeds(): Promise<ContactReport[]>;
  /** Announce to the known active nodes that are not seeds. */
  announceToActive(): Promise<ContactReport[]>;
  /** Inbound `POST /api/swarm/announce`; `sourceDomain` is set when it was validly node-signed. */
  receiveAnnouncement(
    body: Announcement,
    sourceDomain: string | undefined,
  ): Promise<AnnounceOutcome>;
  /** Configured seeds (`SWARM_SEEDS`) into the seed table, keeping existing priorities. */
  ensureSeeds(domains: readonly string[]): Promise<void>;
  addSeed(domain: string, priority: number): Promise<void>;
  /** Enabled seed domains, by priority (configured seeds included). */
  seedDomains(): Promise<string[]>;
  /** Verified nodes for public lists: active first, most recently seen first. */
  listNodes(limit: number): Promise<NodeListEntry[]>;
  nodeSummaries(limit: number): Promise<NodeSummary[]>;
  stats(): Promise<SwarmStats>;
  /** Active verified peers with their trust, for gossip peer selection. */
  activePeers(): Promise<{ domain: string; trustScore: number }[]>;
}

export interface RegistryDeps {
  config: Pick<NodeConfig, 'domain' | 'seeds'>;
  db: Db;
  clock: Clock;
  logger: Logger;
  peers: PeerClient;
  nodeInfo: NodeInfoService;
  /** Which profile each peer speaks: stored once the node's row exists. */
  profiles?: Pick<PeerProfiles, 'persist'> | undefined;
}

export function createRegistryService(deps: RegistryDeps): RegistryService {
  const { config, db, clock, logger, peers, nodeInfo } = deps;
  const stamper = createChangeStamper(clock);
  const self = config.domain;
  const lists = createNodeLists({ self, db, nodeInfo });
  const { isBlocked, blockedDomains } = lists;
  const hints = createNodeHints({ self, db, clock, logger, stamper, blockedDomains });
  const contacts = createNodeContacts({
    self,
    db,
    clock,
    peers,
    stamper,
    hints,
    isBlocked,
    blockedDomains,
    profiles: deps.profiles,
  });
  const announce = createNodeAnnounce({
    config,
    db,
    clock,
    logger,
    peers,
    nodeInfo,
    lists,
    contacts,
    hints,
  });

  return {
    stamper,
    isBlocked,
    blockedDomains,
    recordSuccess: contacts.recordSuccess,
    recordFailure: contacts.recordFailure,
    recordRefusal: contacts.recordRefusal,
    noteHint: hints.noteHint,
    noteHints: hints.noteHints,
    probe: contacts.probe,
    probeDue: contacts.probeDue,
    announceTo: announce.announceTo,
    announceToSeeds: announce.announceToSeeds,
    announceToActive: announce.announceToActive,
    receiveAnnouncement: announce.receiveAnnouncement,
    ensureSeeds: announce.ensureSeeds,
    addSeed: announce.addSeed,
    seedDomains: announce.seedDomains,
    listNodes: lists.listNodes,
    nodeSummaries: lists.nodeSummaries,
    stats: lists.stats,
    activePeers: lists.activePeers,
  };
}
