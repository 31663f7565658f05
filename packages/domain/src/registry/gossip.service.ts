// Over 500 lines on purpose: one exchange (gossip of nodes and handles) whose request, answer
// and merge share the bounds and change-time rules; splitting them would spread one protocol
// over files. Its raw statements are in persistence/registry.sql.ts.

import {
  LIMITS,
  SWARM_PATHS,
  formatTimestamp,
  gossipResponseSchema,
  swarmUserResponseSchema,
  type GossipRequest,
  type GossipResponse,
  type HandleEntry,
  type NodeSummary,
  ok,
  type Refusal,
  type Result,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { describePeerError, isRefusal, type PeerClient } from '../peers/index.ts';
import { advisoryXactLockOnTextSql } from '../persistence/ops.sql.ts';
import {
  setLastSyncSql,
  staleLocalHandlesSql,
  storedStampsSql,
  trimNodeHandlesSql,
} from '../persistence/registry.sql.ts';
import { mapBounded } from './bounded.ts';
import { refuseSender, type ContactReport, type RegistryService } from './registry.service.ts';
import { weightedSample } from './trust.ts';

/** Peers contacted per gossip round (docs/protocol.md, Gossip). */
export const GOSSIP_FANOUT = 3;

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

/**
 * Handle entries kept per node (docs/protocol.md, "Registry bounds"): what the node reports as
 * its user count (`userCount` of its info) plus slack, never more than `maxPerNode`. A node's
 * entries replace its earlier ones: one entry per did (a renamed user's new handle replaces the
 * old one), and beyond the cap the entries with the oldest `updatedAt` (its own clock) go. Before
 * anything is dropped, a node over its cap is asked for its info again (its count may have
 * grown), at most once per `recountEveryMs`.
 */
export const HANDLE_BOUNDS = {
  slackMin: 50,
  slackRatio: 0.1,
  maxPerNode: 100_000,
  recountEveryMs: 10 * 60_000,
} as const;

/** How many handle entries of a node reporting `userCount` users are kept. */
export function handleCapFor(userCount: number): number {
  const users = Math.max(0, userCount);
  return Math.min(
    users + Math.max(HANDLE_BOUNDS.slackMin, Math.ceil(users * HANDLE_BOUNDS.slackRatio)),
    HANDLE_BOUNDS.maxPerNode,
  );
}

/** Postgres advisory lock namespace for one node's handle entries (their cap is counted). */
const HANDLE_LOCK_SPACE = 0x48414e44;

/** Handles whose did this process remembers (beyond this, the database is asked). */
const HELD_DIDS_MAX = 100_000;

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

export interface GossipReport extends ContactReport {
  nodesSent: number;
  nodesReceived: number;
  handlesSent: number;
  handlesReceived: number;
}

/** Our answer to a peer's gossip, or why it was refused (`refuseSender`). */
export type GossipOutcome = Result<GossipResponse, Refusal<'NODE_BLOCKED' | 'FORBIDDEN'>>;

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

export function createGossipService(deps: GossipDeps): GossipService {
  const { config, db, clock, logger, peers, registry } = deps;
  const prisma = db.prisma;
  const self = config.domain;
  const stamper = registry.stamper;
  /** Relayed claims waiting for a lookup, and refused ones until they expire (per process). */
  const pending = new Map<string, RelayClaim>();
  const refused = new Map<string, number>();
  /**
   * The did last seen in our registry per `handle@node`, so claims we hold cost no query. Another
   * replica's writes can make it stale: then a claim is looked up once more, never wrongly taken.
   */
  const heldDids = new Map<string, string>();
  /** When each node's user count may next be fetched again because its entries passed the cap. */
  const recounted = new Map<string, number>();
  const remember = (e: { handle: string; nodeDomain: string; did: string }) => {
    if (heldDids.size < HELD_DIDS_MAX) heldDids.set(`${e.handle}@${e.nodeDomain}`, e.did);
  };

  /** Another replica may have stamped later than this process: never issue older stamps. */
  async function observeStoredStamps() {
    const [row] =
      await prisma.$queryRaw<{ nodes: Date | null; handles: Date | null }[]>(storedStampsSql());
    stamper.observe(row?.nodes);
    stamper.observe(row?.handles);
  }

  async function syncLocalHandles(): Promise<number> {
    const stale = await prisma.$queryRaw<{ handle: string; did: string }[]>(
      staleLocalHandlesSql(self),
    );
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
    if (relayed.length > 0) await noteRelayed(sender, relayed);
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
    const cap = await handleCap(sender, changed.length);
    // An entry without a time claim (the origin's `updatedAt` is optional) counts as now.
    const now = clock.now();
    const at = (entry: HandleEntry) =>
      entry.updatedAt ? Date.parse(entry.updatedAt) : now.getTime();
    const kept = changed
      .slice()
      .sort((a, b) => at(b) - at(a))
      .slice(0, cap);
    await observeStoredStamps();
    await writeNodeHandles(
      sender,
      cap,
      kept.map((entry) => ({
        handle: entry.handle,
        did: entry.did,
        updatedAt: entry.updatedAt ? new Date(entry.updatedAt) : now,
        source: `gossip:${sender}`,
      })),
    );
    for (const entry of kept) remember({ ...entry, nodeDomain: sender });
    return kept.length;
  }

  /**
   * The cap on `domain`'s handle entries. When `adding` more would pass it, its info is fetched
   * again first (at most once per HANDLE_BOUNDS.recountEveryMs), so a node that grew keeps all
   * its entries.
   */
  async function handleCap(domain: string, adding: number): Promise<number> {
    const read = async () =>
      (await prisma.swarmNode.findUnique({ where: { domain }, select: { userCount: true } }))
        ?.userCount ?? 0;
    const cap = handleCapFor(await read());
    const held = await prisma.handleRegistryEntry.count({ where: { nodeDomain: domain } });
    if (held + adding <= cap) return cap;
    const now = clock.now().getTime();
    if ((recounted.get(domain) ?? 0) > now) return cap;
    if (recounted.size >= HELD_DIDS_MAX) recounted.clear();
    recounted.set(domain, now + HANDLE_BOUNDS.recountEveryMs);
    await registry.probe(domain, 'gossip');
    return handleCapFor(await read());
  }

  /**
   * Writes entries of `domain` (one per did; the caller keeps at most `cap`) so that they
   * replace its earlier ones: another handle with the same did and an older `updatedAt` goes,
   * an entry losing to a newer one with its did is skipped, and beyond `cap` the oldest entries
   * (by `updatedAt`, then change time) go. Under a per-node lock: concurrent gossip of one node
   * cannot pass the cap together.
   */
  async function writeNodeHandles(
    domain: string,
    cap: number,
    entries: { handle: string; did: string; updatedAt: Date; source: string }[],
  ) {
    if (entries.length === 0) return;
    await prisma.$transaction(async (tx) => {
      await tx.$queryRaw(advisoryXactLockOnTextSql(HANDLE_LOCK_SPACE, domain));
      const sameDid = await tx.handleRegistryEntry.findMany({
        where: {
          nodeDomain: domain,
          did: { in: entries.map((e) => e.did) },
          handle: { notIn: entries.map((e) => e.handle) },
        },
        select: { id: true, did: true, updatedAt: true },
      });
      const stale: string[] = [];
      const skip = new Set<string>();
      for (const row of sameDid) {
        const entry = entries.find((e) => e.did === row.did)!;
        if (row.updatedAt.getTime() > entry.updatedAt.getTime()) skip.add(entry.handle);
        else stale.push(row.id);
      }
      if (stale.length > 0)
        await tx.handleRegistryEntry.deleteMany({ where: { id: { in: stale } } });
      for (const entry of entries) {
        if (skip.has(entry.handle)) continue;
        const data = {
          did: entry.did,
          updatedAt: entry.updatedAt,
          source: entry.source,
          changedAt: stamper.next(),
        };
        await tx.handleRegistryEntry.upsert({
          where: { handle_nodeDomain: { handle: entry.handle, nodeDomain: domain } },
          create: { handle: entry.handle, nodeDomain: domain, ...data },
          update: data,
        });
      }
      await tx.$executeRaw(trimNodeHandlesSql(domain, cap));
    });
  }

  async function writeLog(row: {
    remoteDomain: string;
    direction: 'push' | 'pull';
    nodesReceived: number;
    nodesSent: number;
    handlesReceived: number;
    handlesSent: number;
    success: boolean;
    refused?: boolean;
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
    return exchange(domain, await registry.blockedDomains(), true);
  }

  /** One exchange; `syncLocal` is false when the round already synced our own handles. */
  async function exchange(
    domain: string,
    blockedSet: Set<string>,
    syncLocal: boolean,
  ): Promise<GossipReport> {
    const started = performance.now();
    const empty = { nodesSent: 0, nodesReceived: 0, handlesSent: 0, handlesReceived: 0 };
    if (domain === self) {
      return { domain, ok: false, ms: 0, error: 'This is our own domain.', ...empty };
    }
    if (blockedSet.has(domain)) {
      return { domain, ok: false, ms: 0, error: `${domain} is blocked on this node.`, ...empty };
    }
    if (syncLocal) await syncLocalHandles();
    await observeStoredStamps();
    const exchangeStart = stamper.next();
    const blocked = [...blockedSet];
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
      // A 4xx is the peer disagreeing with our request (docs/protocol.md), not the peer being down.
      const refused = isRefusal(result.error);
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
      await writeLog({
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
    const nodesReceived = await noteMentions(domain, answer.nodes, true);
    const handlesReceived = await acceptHandles(domain, answer.handles, blockedSet);
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
    if (peers.length === 0) return [];
    await syncLocalHandles();
    const blocked = await registry.blockedDomains();
    return Promise.all(peers.map((p) => exchange(p.domain, blocked, false)));
  }

  async function receive(
    body: GossipRequest,
    sourceDomain: string | undefined,
  ): Promise<GossipOutcome> {
    const started = performance.now();
    const sender = body.sender;
    const blockedSet = await registry.blockedDomains();
    const refused = await refuseSender(sender, sourceDomain, self, (d) => blockedSet.has(d));
    if (refused) return refused;
    const verified = sourceDomain !== undefined;
    // Signed: a direct contact. Unsigned: only a hint to probe; its handle claims are ignored.
    if (verified) await registry.recordSuccess(sender, undefined, 'gossip');
    else await registry.noteHint(sender, 'gossip');
    await syncLocalHandles();
    const nodesReceived = await noteMentions(sender, body.nodes, verified);
    const handlesReceived = verified ? await acceptHandles(sender, body.handles, blockedSet) : 0;

    // Our clock for the requester's next `since`, taken after applying its entries so they are
    // not echoed next time; anything changed later gets a later stamp.
    await observeStoredStamps();
    const now = stamper.next();
    const since = body.since ? new Date(body.since) : undefined;
    const blocked = [...blockedSet];
    const nodes = await changedNodes(since, [self, sender, ...blocked]);
    const handles = await changedHandles(since, [sender, ...blocked]);
    // Always with our clock (docs/protocol.md), even when empty: peers of other implementations may
    // rely on it.
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
    return ok(answer);
  }

  /** Remembers relayed claims we do not hold yet, for `verifyRelayed`. */
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
      if (heldDids.get(`${e.handle}@${e.nodeDomain}`) !== e.did) return true;
      held.add(claimKey(e));
      return false;
    });
    if (unsure.length === 0) return held;
    const rows = await prisma.handleRegistryEntry.findMany({
      where: { handle: { in: [...new Set(unsure.map((e) => e.handle))] } },
      select: { handle: true, nodeDomain: true, did: true },
    });
    for (const row of rows) {
      remember(row);
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
      if (answer.ok || (answer.error.kind === 'http' && answer.error.status === 404)) {
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
        const cap = await handleCap(domain, entries.length);
        await observeStoredStamps();
        await writeNodeHandles(
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
      for (const { entry } of confirmed) remember(entry);
      report.accepted = confirmed.length;
    }
    report.pending = pending.size;
    return report;
  }

  return { syncLocalHandles, exchangeWith, round, receive, verifyRelayed };
}
