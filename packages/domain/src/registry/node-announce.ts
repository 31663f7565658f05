import {
  SWARM_PATHS,
  formatTimestamp,
  nodeInfoSchema,
  ok,
  type Announcement,
  type Refusal,
  type Result,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { NodeInfoService } from '../node-info.service.ts';
import type { PeerClient } from '../peers/index.ts';
import type { ContactReport, NodeContacts } from './node-contacts.ts';
import type { DiscoveredVia, NodeHints } from './node-hints.ts';
import type { NodeLists } from './node-lists.ts';
import { refuseSender } from './refuse-sender.ts';

/**
 * An inbound announcement's answer, or why it was refused: NODE_BLOCKED (a blocked sender),
 * FORBIDDEN (our own domain, or signed by another node than it speaks for); nothing recorded.
 */
export type AnnounceOutcome = Result<
  { answer: Announcement; recorded: 'direct' | 'hint' },
  Refusal<'NODE_BLOCKED' | 'FORBIDDEN'>
>;

/** Announcements, ours (to seeds and active nodes) and a peer's, and the seed list. */
export interface NodeAnnounce {
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
}

export function createNodeAnnounce(deps: {
  config: Pick<NodeConfig, 'domain' | 'seeds'>;
  db: Db;
  clock: Clock;
  logger: Logger;
  peers: PeerClient;
  nodeInfo: NodeInfoService;
  lists: NodeLists;
  contacts: NodeContacts;
  hints: NodeHints;
}): NodeAnnounce {
  const { config, db, clock, logger, peers, nodeInfo, lists, contacts, hints } = deps;
  const prisma = db.prisma;
  const self = config.domain;
  const { isBlocked } = lists;

  async function announceTo(domain: string, via: DiscoveredVia): Promise<ContactReport> {
    if (domain === self) return { domain, ok: false, ms: 0, error: 'This is our own domain.' };
    if (await isBlocked(domain)) {
      return { domain, ok: false, ms: 0, error: `${domain} is blocked on this node.` };
    }
    const body: Announcement = {
      ...(await nodeInfo.get()),
      timestamp: formatTimestamp(clock.now()),
    };
    // The answer is the peer's info "in the same format": read tolerantly (timestamp optional).
    const result = await peers.postJson(domain, SWARM_PATHS.announce, body, nodeInfoSchema);
    return contacts.recordAnswer(domain, result, via);
  }

  async function seedDomains(): Promise<string[]> {
    const rows = await prisma.swarmSeed.findMany({
      where: { isEnabled: true },
      orderBy: [{ priority: 'asc' }, { domain: 'asc' }],
      select: { domain: true },
    });
    const domains = rows.map((r) => r.domain);
    for (const seed of config.seeds) if (!domains.includes(seed)) domains.push(seed);
    return domains.filter((d) => d !== self);
  }

  async function announceToSeeds(): Promise<ContactReport[]> {
    const reports: ContactReport[] = [];
    for (const domain of await seedDomains()) reports.push(await announceTo(domain, 'seed'));
    return reports;
  }

  async function announceToActive(): Promise<ContactReport[]> {
    const seeds = new Set(await seedDomains());
    const active = (await lists.activePeers()).filter((p) => !seeds.has(p.domain));
    return Promise.all(active.map((p) => announceTo(p.domain, 'announce')));
  }

  async function receiveAnnouncement(
    body: Announcement,
    sourceDomain: string | undefined,
  ): Promise<AnnounceOutcome> {
    const refused = await refuseSender(body.domain, sourceDomain, self, isBlocked);
    if (refused) return refused;
    let recorded: 'direct' | 'hint';
    if (sourceDomain !== undefined) {
      await contacts.recordSuccess(body.domain, body, 'announce');
      recorded = 'direct';
    } else {
      // Unsigned: anyone could have sent it. Remember the domain and let the next round probe
      // its /api/swarm/info; nothing it claims is stored.
      await hints.noteHint(body.domain, 'announce', undefined);
      recorded = 'hint';
    }
    logger.debug({ peer: body.domain, recorded }, 'announcement received');
    return ok({
      answer: { ...(await nodeInfo.get()), timestamp: formatTimestamp(clock.now()) },
      recorded,
    });
  }

  async function ensureSeeds(domains: readonly string[]) {
    const seeds = domains.filter((d) => d !== self);
    if (seeds.length === 0) return;
    await prisma.swarmSeed.createMany({
      data: seeds.map((domain, priority) => ({ domain, priority })),
      skipDuplicates: true,
    });
  }

  async function addSeed(domain: string, priority: number) {
    await prisma.swarmSeed.upsert({
      where: { domain },
      create: { domain, priority },
      update: { priority, isEnabled: true },
    });
  }

  return {
    announceTo,
    announceToSeeds,
    announceToActive,
    receiveAnnouncement,
    ensureSeeds,
    addSeed,
    seedDomains,
  };
}
