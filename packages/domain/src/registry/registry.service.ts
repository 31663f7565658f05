// The registry of nodes (`swarm_nodes`), by concern: contacts and probes (node-contacts.ts),
// nodes only heard of (node-hints.ts), announcements and seeds (node-announce.ts), and what it
// lists (node-lists.ts). Raw statements are in persistence/registry.sql.ts.

import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { NodeInfoService } from '../node-info.service.ts';
import type { PeerClient, PeerProfiles } from '../peers/index.ts';
import { createChangeStamper, type ChangeStamper } from './change-stamp.ts';
import { createNodeAnnounce, type NodeAnnounce } from './node-announce.ts';
import { createNodeContacts, type NodeContacts } from './node-contacts.ts';
import { createNodeHints, type NodeHints } from './node-hints.ts';
import { createNodeLists, type NodeLists } from './node-lists.ts';

export type { AnnounceOutcome } from './node-announce.ts';
export {
  PROBE_BUDGET,
  PROBE_CONCURRENCY,
  PROBES_PER_ROUND,
  probeBudget,
  type ContactReport,
} from './node-contacts.ts';
export {
  HINT_BOUNDS,
  afterPrune,
  isUnsignedHint,
  type DiscoveredVia,
  type PrunedHint,
} from './node-hints.ts';
export { refuseSender } from './refuse-sender.ts';

/** The registry's parts as one service; each method is documented where it is written. */
export interface RegistryService
  extends
    NodeLists,
    NodeAnnounce,
    Omit<NodeContacts, 'recordAnswer'>,
    Pick<NodeHints, 'noteHint' | 'noteHints' | 'prunedLately'> {
  /** Change times for gossip paging; shared with the gossip service. */
  readonly stamper: ChangeStamper;
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
    prunedLately: hints.prunedLately,
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
