import { SWARM_PATHS, nodeInfoSchema, type NodeInfo } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import {
  describePeerError,
  isRefusal,
  type PeerClient,
  type PeerProfiles,
  type PeerResult,
} from '../peers/index.ts';
import {
  contactFailedSql,
  contactSucceededSql,
  dueKnownNodesSql,
  dueUnsignedHintsSql,
  pruneHintSql,
  pruneHintsHeardBeforeSql,
  recordRefusalSql,
} from '../persistence/registry.sql.ts';
import { mapBounded } from './bounded.ts';
import type { ChangeStamper } from './change-stamp.ts';
import { HINT_BOUNDS, type DiscoveredVia, type NodeHints } from './node-hints.ts';

/** What happened when this node contacted one peer (admin reports, scheduler logs). */
export interface ContactReport {
  domain: string;
  ok: boolean;
  /** Wall time of the exchange. */
  ms: number;
  error?: string;
  /** The peer answered with a refusal (4xx): recorded, not counted as a failed contact. */
  refused?: boolean;
}

const ERROR_CHARS = 500;

/**
 * Due probes per background round (docs/protocol.md, "Registry bounds"). A node joining a swarm
 * of N hears of the N others within a few rounds and must probe each before it trusts it: at a
 * fixed 100 a round, joining a swarm of 10,000 took ~90 rounds of probing alone. So the budget
 * follows the backlog: half of what is due, at least `base`, at most `max`. The backlog itself is
 * bounded (HINT_BOUNDS), and every due row is a node we know or a bounded hint. A probe is one
 * small GET.
 */
export const PROBE_BUDGET = { base: 100, max: 1_000, backlogShare: 0.5 } as const;
/** The former fixed budget, still the least a round probes when that many are due. */
export const PROBES_PER_ROUND = PROBE_BUDGET.base;

/** Probes this round when `due` nodes are due (at most `PROBE_BUDGET.max`). */
export function probeBudget(due: number): number {
  const share = Math.ceil(due * PROBE_BUDGET.backlogShare);
  return Math.min(due, PROBE_BUDGET.max, Math.max(PROBE_BUDGET.base, share));
}

/** Probes in flight at once: a full budget takes ~1,000 / 16 round trips. */
export const PROBE_CONCURRENCY = 16;

/** The outcome of each contact with a node, recorded on its row; probes of its info. */
export interface NodeContacts {
  /** A successful direct contact (it answered us, or announced/gossiped signed). */
  recordSuccess(domain: string, info: NodeInfo | undefined, via: DiscoveredVia): Promise<void>;
  /** A failed direct contact with a known node. */
  recordFailure(domain: string, reason: string): Promise<void>;
  /**
   * The node answered our request with a refusal (4xx, see `isRefusal`): it is up but disagrees.
   * Only `last_error` changes: no failed contact, no trust change, no deactivation.
   */
  recordRefusal(domain: string, reason: string): Promise<void>;
  /** Records the outcome of a contact whose answer is the peer's node info. */
  recordAnswer(
    domain: string,
    result: PeerResult<NodeInfo>,
    via: DiscoveredVia,
  ): Promise<ContactReport>;
  /** Probe `GET /api/swarm/info` and record the outcome. */
  probe(domain: string, via: DiscoveredVia): Promise<ContactReport>;
  /**
   * Re-probe nodes whose `next_probe_at` is due (inactive nodes, fresh hints), oldest first, as
   * many as `probeBudget` allows for the backlog (or at most `limit`), a few at a time.
   */
  probeDue(limit?: number): Promise<ContactReport[]>;
}

export function createNodeContacts(deps: {
  self: string;
  db: Db;
  clock: Clock;
  peers: PeerClient;
  stamper: ChangeStamper;
  hints: NodeHints;
  isBlocked: (domain: string) => Promise<boolean>;
  blockedDomains: () => Promise<Set<string>>;
  profiles?: Pick<PeerProfiles, 'persist'> | undefined;
}): NodeContacts {
  const { self, db, clock, peers, stamper, hints, isBlocked, blockedDomains } = deps;
  const prisma = db.prisma;

  async function recordSuccess(domain: string, info: NodeInfo | undefined, via: DiscoveredVia) {
    await contactSucceeded(domain, info, via, false);
  }

  /**
   * A successful contact in one statement (a round makes hundreds): the seed's health when
   * `seedContact` (our own request to it), the block check, and the node row.
   */
  async function contactSucceeded(
    domain: string,
    info: NodeInfo | undefined,
    via: DiscoveredVia,
    seedContact: boolean,
  ) {
    if (domain === self) return;
    hints.reached(domain);
    await prisma.$executeRaw(
      contactSucceededSql({
        domain,
        via,
        now: clock.now(),
        stamp: stamper.next(),
        seedContact,
        info: info && { ...info, capabilities: JSON.stringify(info.capabilities) },
      }),
    );
    await deps.profiles?.persist(domain);
  }

  async function recordFailure(domain: string, reason: string) {
    await contactFailed(domain, reason, false);
  }

  async function recordRefusal(domain: string, reason: string) {
    // Raw SQL: Prisma would bump updated_at, which peers must only see for gossiped changes.
    await prisma.$executeRaw(recordRefusalSql(domain, reason.slice(0, ERROR_CHARS)));
  }

  /** A failed contact in one statement: the seed's health when `seedContact`, the node row. */
  async function contactFailed(domain: string, reason: string, seedContact: boolean) {
    const rows = await prisma.$queryRaw<
      { is_verified: boolean; last_seen_at: Date | null; consecutive_failures: number }[]
    >(
      contactFailedSql({
        domain,
        message: reason.slice(0, ERROR_CHARS),
        now: clock.now(),
        stamp: stamper.next(),
        seedContact,
      }),
    );
    const row = rows[0];
    if (row?.is_verified !== false) return;
    if (
      row.last_seen_at === null &&
      row.consecutive_failures >= HINT_BOUNDS.pruneAfterFailedProbes
    ) {
      await hints.pruneHints(pruneHintSql(domain));
      return;
    }
    hints.unreached(domain);
  }

  async function probe(domain: string, via: DiscoveredVia): Promise<ContactReport> {
    if (domain === self) return { domain, ok: false, ms: 0, error: 'This is our own domain.' };
    if (await isBlocked(domain)) {
      return { domain, ok: false, ms: 0, error: `${domain} is blocked on this node.` };
    }
    return probeUnchecked(domain, via);
  }

  /** A probe of a node known not to be us nor blocked. */
  async function probeUnchecked(domain: string, via: DiscoveredVia): Promise<ContactReport> {
    const result = await peers.getJson(domain, SWARM_PATHS.info, nodeInfoSchema);
    return recordAnswer(domain, result, via);
  }

  async function recordAnswer(
    domain: string,
    result: PeerResult<NodeInfo>,
    via: DiscoveredVia,
  ): Promise<ContactReport> {
    let error: string | undefined;
    if (!result.ok) error = describePeerError(result.reason);
    else if (result.value.domain !== domain) {
      error = `${domain} answered as ${result.value.domain}.`;
    }
    if (!result.ok && isRefusal(result.reason)) {
      // It answered: a refusal of what we sent (e.g. our announce), not an outage.
      await recordRefusal(domain, error!);
      return { domain, ok: false, ms: result.ms, error, refused: true };
    }
    if (error !== undefined) {
      await contactFailed(domain, error, true);
      return { domain, ok: false, ms: result.ms, error };
    }
    await contactSucceeded(domain, (result as { value: NodeInfo }).value, via, true);
    return { domain, ok: true, ms: result.ms };
  }

  async function probeDue(limit?: number): Promise<ContactReport[]> {
    const now = clock.now();
    // Hints nobody reached within a day go, probed or not (a flood can outpace the probes).
    await hints.pruneHints(
      pruneHintsHeardBeforeSql(new Date(now.getTime() - HINT_BOUNDS.pruneAfterMs)),
    );
    const blocked = await blockedDomains();
    const notIn = [...blocked, self];
    // Unsigned hints get a bounded share of the round; known nodes and vouched hints the rest.
    type Due = { domain: string; discovered_via: string };
    // Enough rows that half of them can reach the budget's maximum.
    const cap = limit ?? Math.ceil(PROBE_BUDGET.max / PROBE_BUDGET.backlogShare);
    const unsignedDue = await prisma.$queryRaw<Due[]>(
      dueUnsignedHintsSql(now, notIn, Math.min(HINT_BOUNDS.unsignedProbesPerRound, cap)),
    );
    // Up to the cap, so the budget can be read from the backlog (what is due beyond it changes
    // nothing); unsigned hints keep their own small share.
    const otherDue = await prisma.$queryRaw<Due[]>(
      dueKnownNodesSql(now, notIn, cap - unsignedDue.length),
    );
    const budget = limit ?? probeBudget(otherDue.length + unsignedDue.length);
    const due = [...otherDue.slice(0, Math.max(0, budget - unsignedDue.length)), ...unsignedDue];
    return mapBounded(due, PROBE_CONCURRENCY, (n) =>
      probeUnchecked(n.domain, n.discovered_via as DiscoveredVia),
    );
  }

  return { recordSuccess, recordFailure, recordRefusal, recordAnswer, probe, probeDue };
}
