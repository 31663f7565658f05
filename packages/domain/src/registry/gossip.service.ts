import {
  LIMITS,
  SWARM_PATHS,
  formatTimestamp,
  gossipResponseSchema,
  type GossipRequest,
  type GossipResponse,
  type HandleEntry,
  type NodeSummary,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { describePeerError, type PeerClient } from '../peers/index.ts';
import type { ContactReport, RegistryService } from './registry.service.ts';
import { weightedSample } from './trust.ts';

/** Peers contacted per gossip round (DESIGN §3). */
export const GOSSIP_FANOUT = 3;

export interface GossipReport extends ContactReport {
  nodesSent: number;
  nodesReceived: number;
  handlesSent: number;
  handlesReceived: number;
}

export type GossipRefusal =
  | { kind: 'blocked'; domain: string }
  | { kind: 'self'; domain: string }
  | { kind: 'sender_mismatch'; signedBy: string; sender: string };

export type GossipOutcome =
  | { ok: true; answer: GossipResponse & { timestamp: string } }
  | { ok: false; refusal: GossipRefusal };

export interface GossipService {
  /** Our local users (with a did) as our own handle entries; returns how many changed. */
  syncLocalHandles(): Promise<number>;
  /** One push-pull exchange we start with `domain` (sync log direction `push`). */
  exchangeWith(domain: string): Promise<GossipReport>;
  /** Up to 3 random active peers, weighted by trust, exchanged with concurrently. */
  round(): Promise<GossipReport[]>;
  /** Inbound `POST /api/swarm/gossip` (sync log direction `pull`). */
  receive(body: GossipRequest, sourceDomain: string | undefined): Promise<GossipOutcome>;
}

export interface GossipDeps {
  config: Pick<NodeConfig, 'domain'>;
  db: Db;
  clock: Clock;
  logger: Logger;
  peers: PeerClient;
  registry: RegistryService;
  /** [0, 1) for peer selection; injectable for tests. */
  random?: () => number;
}

type Page<T> = { items: T[]; capped: boolean; lastChange: Date | undefined };

export function createGossipService(deps: GossipDeps): GossipService {
  const { config, db, clock, logger, peers, registry } = deps;
  const prisma = db.prisma;
  const self = config.domain;
  const stamper = registry.stamper;

  /** Another replica may have stamped later than this process: never issue older stamps. */
  async function observeStoredStamps() {
    const [nodes, handles] = await Promise.all([
      prisma.swarmNode.aggregate({ _max: { updatedAt: true } }),
      prisma.handleRegistryEntry.aggregate({ _max: { changedAt: true } }),
    ]);
    stamper.observe(nodes._max.updatedAt);
    stamper.observe(handles._max.changedAt);
  }

  async function syncLocalHandles(): Promise<number> {
    const stale = await prisma.$queryRaw<{ handle: string; did: string }[]>`
      SELECT u.handle, u.did FROM users u
      LEFT JOIN handle_registry h ON h.handle = u.handle AND h.node_domain = ${self}
      WHERE u.did IS NOT NULL AND (h.id IS NULL OR h.did <> u.did)
      ORDER BY u.created_at, u.handle`;
    if (stale.length === 0) return 0;
    await observeStoredStamps();
    const now = clock.now();
    await prisma.$transaction(
      stale.map(({ handle, did }) => {
        const changedAt = stamper.next();
        return prisma.handleRegistryEntry.upsert({
          where: { handle_nodeDomain: { handle, nodeDomain: self } },
          create: { handle, did, nodeDomain: self, updatedAt: now, source: 'local', changedAt },
          update: { did, updatedAt: now, source: 'local', changedAt },
        });
      }),
    );
    return stale.length;
  }

  /** Verified active nodes changed at or after `since`, by change time, capped. */
  async function changedNodes(
    since: Date | undefined,
    exclude: string[],
  ): Promise<Page<NodeSummary>> {
    const rows = await prisma.swarmNode.findMany({
      where: {
        isActive: true,
        isVerified: true,
        lastSeenAt: { not: null },
        domain: { notIn: exclude },
        ...(since ? { updatedAt: { gte: since } } : {}),
      },
      orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
      take: LIMITS.gossipMaxNodes,
      select: { domain: true, name: true, lastSeenAt: true, updatedAt: true },
    });
    return {
      items: rows.map((n) => ({
        domain: n.domain,
        name: n.name,
        lastSeenAt: formatTimestamp(n.lastSeenAt!),
      })),
      capped: rows.length >= LIMITS.gossipMaxNodes,
      lastChange: rows.at(-1)?.updatedAt,
    };
  }

  /** Handle entries changed at or after `since`, by change time, capped. */
  async function changedHandles(
    since: Date | undefined,
    exclude: string[],
  ): Promise<Page<HandleEntry>> {
    const rows = await prisma.handleRegistryEntry.findMany({
      where: {
        nodeDomain: { notIn: exclude },
        ...(since ? { changedAt: { gte: since } } : {}),
      },
      orderBy: [{ changedAt: 'asc' }, { id: 'asc' }],
      take: LIMITS.gossipMaxHandles,
      select: { handle: true, did: true, nodeDomain: true, updatedAt: true, changedAt: true },
    });
    return {
      items: rows.map((h) => ({
        handle: h.handle,
        did: h.did,
        nodeDomain: h.nodeDomain,
        updatedAt: formatTimestamp(h.updatedAt),
      })),
      capped: rows.length >= LIMITS.gossipMaxHandles,
      lastChange: rows.at(-1)?.changedAt,
    };
  }

  /**
   * Where the next page starts: `fallback` when everything fit, else the change time of the
   * last entry sent (`since` is inclusive, so it is sent again: harmless, entries are idempotent).
   */
  function cursorAfter(fallback: Date, ...pages: Page<unknown>[]): Date {
    const bounds = pages.filter((p) => p.capped && p.lastChange).map((p) => p.lastChange!);
    return bounds.length ? new Date(Math.min(...bounds.map((d) => d.getTime()))) : fallback;
  }

  /** Gossip mentions: unknown domains become unverified, inactive hints due for a probe. */
  async function noteMentions(sender: string, nodes: NodeSummary[]): Promise<number> {
    const blocked = await registry.blockedDomains();
    const candidates = [...new Set(nodes.map((n) => n.domain))].filter(
      (d) => d !== self && d !== sender && !blocked.has(d),
    );
    if (candidates.length === 0) return 0;
    const known = new Set(
      (
        await prisma.swarmNode.findMany({
          where: { domain: { in: candidates } },
          select: { domain: true },
        })
      ).map((n) => n.domain),
    );
    let added = 0;
    for (const node of nodes) {
      if (!candidates.includes(node.domain) || known.has(node.domain)) continue;
      known.add(node.domain);
      if (await registry.noteHint(node.domain, `gossip:${sender}`, node.name)) added++;
    }
    return added;
  }

  /**
   * Handle entries are accepted only from their own node: `sender` must be authenticated (a
   * verified signature, or the peer we called ourselves). Relayed entries (another node's
   * handles) are ignored: the authoritative node tells us itself when we gossip with it.
   */
  async function acceptHandles(sender: string, entries: HandleEntry[]): Promise<number> {
    const own = new Map<string, HandleEntry>();
    let relayed = 0;
    for (const entry of entries) {
      if (entry.nodeDomain === sender) own.set(entry.handle, entry);
      else relayed++;
    }
    if (relayed > 0) {
      logger.debug({ peer: sender, relayed }, 'ignored relayed handle entries');
    }
    if (own.size === 0) return 0;
    const existing = new Map(
      (
        await prisma.handleRegistryEntry.findMany({
          where: { nodeDomain: sender, handle: { in: [...own.keys()] } },
          select: { handle: true, did: true, updatedAt: true },
        })
      ).map((e) => [e.handle, e]),
    );
    const changed = [...own.values()].filter((entry) => {
      const known = existing.get(entry.handle);
      if (!known) return true;
      const at = new Date(entry.updatedAt).getTime();
      // Both times come from the sender's own clock: comparing them is sound.
      return (
        at > known.updatedAt.getTime() ||
        (at === known.updatedAt.getTime() && entry.did !== known.did)
      );
    });
    if (changed.length === 0) return 0;
    await observeStoredStamps();
    await prisma.$transaction(
      changed.map((entry) => {
        const data = {
          did: entry.did,
          updatedAt: new Date(entry.updatedAt),
          source: `gossip:${sender}`,
          changedAt: stamper.next(),
        };
        return prisma.handleRegistryEntry.upsert({
          where: { handle_nodeDomain: { handle: entry.handle, nodeDomain: sender } },
          create: { handle: entry.handle, nodeDomain: sender, ...data },
          update: data,
        });
      }),
    );
    return changed.length;
  }

  async function writeLog(row: {
    remoteDomain: string;
    direction: 'push' | 'pull';
    nodesReceived: number;
    nodesSent: number;
    handlesReceived: number;
    handlesSent: number;
    success: boolean;
    errorMessage?: string;
    durationMs: number;
    createdAt: Date;
  }) {
    await prisma.swarmSyncLog.create({ data: row });
  }

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

  async function exchangeWith(domain: string): Promise<GossipReport> {
    const started = performance.now();
    const empty = { nodesSent: 0, nodesReceived: 0, handlesSent: 0, handlesReceived: 0 };
    if (domain === self) {
      return { domain, ok: false, ms: 0, error: 'This is our own domain.', ...empty };
    }
    if (await registry.isBlocked(domain)) {
      return { domain, ok: false, ms: 0, error: `${domain} is blocked on this node.`, ...empty };
    }
    await syncLocalHandles();
    await observeStoredStamps();
    const exchangeStart = stamper.next();
    const blocked = [...(await registry.blockedDomains())];
    const [from, peer] = await Promise.all([
      pushCursor(domain),
      prisma.swarmNode.findUnique({ where: { domain }, select: { lastSyncAt: true } }),
    ]);
    // Never echo a peer's own data back to it.
    const nodes = await changedNodes(from, [self, domain, ...blocked]);
    const handles = await changedHandles(from, [domain, ...blocked]);
    const request: GossipRequest = {
      sender: self,
      nodes: nodes.items,
      handles: handles.items,
      timestamp: formatTimestamp(clock.now()),
      ...(peer?.lastSyncAt ? { since: formatTimestamp(peer.lastSyncAt) } : {}),
    };
    const sent = { nodesSent: nodes.items.length, handlesSent: handles.items.length };
    const result = await peers.postJson(domain, SWARM_PATHS.gossip, request, gossipResponseSchema);
    if (!result.ok) {
      const error = describePeerError(result.error);
      await registry.recordFailure(domain, error);
      const report = {
        domain,
        ok: false,
        ms: result.ms,
        error,
        ...sent,
        nodesReceived: 0,
        handlesReceived: 0,
      };
      await writeLog({
        remoteDomain: domain,
        direction: 'push',
        ...sent,
        nodesReceived: 0,
        handlesReceived: 0,
        success: false,
        errorMessage: error,
        durationMs: Math.round(performance.now() - started),
        createdAt: clock.now(),
      });
      return report;
    }
    await registry.recordSuccess(domain, undefined, 'gossip');
    const answer = result.value;
    const nodesReceived = await noteMentions(domain, answer.nodes);
    const handlesReceived = await acceptHandles(domain, answer.handles);
    // The peer's clock, sent back as `since` next time (never compared with ours). A peer that
    // sends none gets full answers, capped.
    // Raw SQL: Prisma would bump updated_at, which peers must only see for gossiped changes.
    const peerClock = answer.timestamp ? new Date(answer.timestamp) : null;
    await prisma.$executeRaw`
      UPDATE swarm_nodes SET last_sync_at = ${peerClock}::timestamptz WHERE domain = ${domain}`;
    const durationMs = Math.round(performance.now() - started);
    await writeLog({
      remoteDomain: domain,
      direction: 'push',
      ...sent,
      nodesReceived,
      handlesReceived,
      success: true,
      durationMs,
      createdAt: cursorAfter(exchangeStart, nodes, handles),
    });
    return { domain, ok: true, ms: result.ms, ...sent, nodesReceived, handlesReceived };
  }

  async function round(): Promise<GossipReport[]> {
    const peers = weightedSample(
      await registry.activePeers(),
      GOSSIP_FANOUT,
      (p) => p.trustScore,
      deps.random,
    );
    return Promise.all(peers.map((p) => exchangeWith(p.domain)));
  }

  async function receive(
    body: GossipRequest,
    sourceDomain: string | undefined,
  ): Promise<GossipOutcome> {
    const started = performance.now();
    const sender = body.sender;
    if (sourceDomain !== undefined && sourceDomain !== sender) {
      return { ok: false, refusal: { kind: 'sender_mismatch', signedBy: sourceDomain, sender } };
    }
    if (sender === self) return { ok: false, refusal: { kind: 'self', domain: sender } };
    if (await registry.isBlocked(sender)) {
      return { ok: false, refusal: { kind: 'blocked', domain: sender } };
    }
    const verified = sourceDomain !== undefined;
    // Signed: a direct contact. Unsigned: only a hint to probe; its handle claims are ignored.
    if (verified) await registry.recordSuccess(sender, undefined, 'gossip');
    else await registry.noteHint(sender, 'gossip');
    await syncLocalHandles();
    const nodesReceived = await noteMentions(sender, body.nodes);
    const handlesReceived = verified ? await acceptHandles(sender, body.handles) : 0;

    // Our clock for the requester's next `since`, taken after applying its entries so they are
    // not echoed next time; anything changed later gets a later stamp.
    await observeStoredStamps();
    const now = stamper.next();
    const since = body.since ? new Date(body.since) : undefined;
    const blocked = [...(await registry.blockedDomains())];
    const nodes = await changedNodes(since, [self, sender, ...blocked]);
    const handles = await changedHandles(since, [sender, ...blocked]);
    const answer = {
      nodes: nodes.items,
      handles: handles.items,
      received: { nodes: nodesReceived, handles: handlesReceived },
      timestamp: formatTimestamp(cursorAfter(now, nodes, handles)),
    };
    await writeLog({
      remoteDomain: sender,
      direction: 'pull',
      nodesReceived,
      handlesReceived,
      nodesSent: nodes.items.length,
      handlesSent: handles.items.length,
      success: true,
      durationMs: Math.round(performance.now() - started),
      createdAt: clock.now(),
    });
    return { ok: true, answer };
  }

  return { syncLocalHandles, exchangeWith, round, receive };
}
