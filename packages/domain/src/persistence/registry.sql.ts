import { Prisma } from '@swarm/db';
import { sqlStatement } from './catalog.ts';

// The registry of known nodes (`swarm_nodes`) where a typed Prisma query would not do: a
// statement that must be atomic under concurrent replicas, or an update that must not bump
// updated_at (a node's change time is what gossip pages by, `since`).

// The registry's numbers (docs/protocol.md): the statements below apply them under concurrent
// replicas, and registry/trust.ts states the same rules as pure functions.

export const TRUST = {
  /** A node contacted directly for the first time (or first verified after a gossip mention). */
  direct: 50,
  successStep: 1,
  failureStep: 5,
  min: 0,
  max: 100,
} as const;

/** Consecutive failed contacts after which a verified node is inactive. */
export const INACTIVE_AFTER_FAILURES = 5;

/** Re-probe backoff of inactive nodes: 1 minute, doubling, at most 24 hours. */
export const PROBE_BACKOFF = { firstMs: 60_000, maxMs: 24 * 60 * 60 * 1000 } as const;

const EXAMPLE_TIME = new Date('2026-01-01T00:00:00.000Z');

/**
 * Unverified rows whose hint nobody vouched for (unsigned gossip or announce); the same rule as
 * `isUnsignedHint` in registry/node-hints.ts.
 */
const UNSIGNED_VIA = Prisma.sql`(discovered_via IN ('announce', 'gossip') OR discovered_via LIKE 'hint:%')`;

/**
 * How we speak to a peer. Raw SQL: Prisma would bump updated_at, and a node's change time is
 * what gossip pages by (`since`); how we speak to a peer is not a change to gossip.
 */
export const setProtocolProfileSql = sqlStatement(
  'registry.setProtocolProfile',
  ['example.test', 'swarm'],
  (domain: string, profile: string) => Prisma.sql`
    UPDATE swarm_nodes SET protocol_profile = ${profile} WHERE domain = ${domain}`,
);

/** Records a profile only where none is recorded yet: what a request shows never relabels. */
export const learnProtocolProfileSql = sqlStatement(
  'registry.learnProtocolProfile',
  ['example.test', 'swarm'],
  (domain: string, profile: string) => Prisma.sql`
    UPDATE swarm_nodes SET protocol_profile = ${profile}
    WHERE domain = ${domain} AND protocol_profile IS NULL`,
);

/** What a successful contact learnt of the node (its info, when the answer carried it). */
export interface ContactSuccess {
  domain: string;
  via: string;
  now: Date;
  /** The change stamp the row gets when peers should hear of it. */
  stamp: Date;
  /** Our own request to a seed: its health is recorded too. */
  seedContact: boolean;
  info?: {
    name: string;
    description: string;
    logoUrl?: string | null;
    publicKey?: string | null;
    softwareVersion: string;
    userCount: number;
    postCount: number;
    /** JSON text of the capability list. */
    capabilities: string;
  };
}

/**
 * A successful contact in one statement (a round makes hundreds): the seed's health, the block
 * check and the node row, insert-or-update (two replicas may record the same node at once); a
 * blocked node gets no row. Trust follows docs/protocol.md: a first direct contact (new, or a
 * gossip hint now verified) sets 50, later successes add 1 up to 100. Peers hear about the row
 * (updated_at) only when something they gossip changes: it appears, turns verified or active, or
 * is renamed.
 */
export const contactSucceededSql = sqlStatement(
  'registry.contactSucceeded',
  [
    {
      domain: 'example.test',
      via: 'seed',
      now: EXAMPLE_TIME,
      stamp: EXAMPLE_TIME,
      seedContact: true,
    },
  ],
  (c: ContactSuccess) => {
    const { domain, info, now, stamp } = c;
    const name = info?.name ?? null;
    const description = info?.description ?? null;
    const logoUrl = info?.logoUrl || null;
    const publicKey = info?.publicKey || null;
    const softwareVersion = info?.softwareVersion ?? null;
    const userCount = info?.userCount ?? null;
    const postCount = info?.postCount ?? null;
    const capabilities = info?.capabilities ?? null;
    return Prisma.sql`
      WITH seed AS (
        UPDATE swarm_seeds SET last_contact_at = ${now}::timestamptz, consecutive_failures = 0
        WHERE domain = ${domain} AND ${c.seedContact}::boolean)
      INSERT INTO swarm_nodes (domain, name, description, logo_url, public_key, software_version,
        user_count, post_count, capabilities, discovered_via, discovered_at, last_seen_at,
        consecutive_failures, is_active, is_verified, trust_score, next_probe_at, updated_at)
      SELECT ${domain}, COALESCE(${name}::text, ''),
        COALESCE(${description}::text, ''), ${logoUrl}::text,
        ${publicKey}::text, ${softwareVersion}::text,
        COALESCE(${userCount}::int, 0), COALESCE(${postCount}::int, 0),
        COALESCE(${capabilities}::text, '[]'), ${c.via}, ${now}::timestamptz, ${now}::timestamptz,
        0, true, true, ${TRUST.direct}, ${info ? null : now}::timestamptz, ${stamp}::timestamptz
      WHERE NOT EXISTS (SELECT 1 FROM node_blocks WHERE domain = ${domain})
      ON CONFLICT (domain) DO UPDATE SET
        trust_score = CASE WHEN swarm_nodes.is_verified
          THEN LEAST(swarm_nodes.trust_score + ${TRUST.successStep}, ${TRUST.max})
          ELSE GREATEST(swarm_nodes.trust_score, ${TRUST.direct}) END,
        consecutive_failures = 0,
        last_seen_at = ${now}::timestamptz,
        last_error = NULL,
        next_probe_at = CASE WHEN ${info === undefined} AND swarm_nodes.name = ''
          THEN ${now}::timestamptz ELSE NULL END,
        updated_at = CASE WHEN NOT swarm_nodes.is_active OR NOT swarm_nodes.is_verified
            OR (${name}::text IS NOT NULL AND swarm_nodes.name <> ${name}::text)
          THEN ${stamp}::timestamptz ELSE swarm_nodes.updated_at END,
        is_active = true,
        is_verified = true,
        name = COALESCE(${name}::text, swarm_nodes.name),
        description = COALESCE(${description}::text, swarm_nodes.description),
        logo_url = COALESCE(${logoUrl}::text, swarm_nodes.logo_url),
        public_key = CASE WHEN swarm_nodes.key_pinned_at IS NULL
          THEN COALESCE(${publicKey}::text, swarm_nodes.public_key) ELSE swarm_nodes.public_key END,
        software_version = COALESCE(${softwareVersion}::text, swarm_nodes.software_version),
        user_count = COALESCE(${userCount}::int, swarm_nodes.user_count),
        post_count = COALESCE(${postCount}::int, swarm_nodes.post_count),
        capabilities = COALESCE(${capabilities}::text, swarm_nodes.capabilities)`;
  },
);

/** A refused contact: only its reason (a refusal is not an outage; updated_at untouched). */
export const recordRefusalSql = sqlStatement(
  'registry.recordRefusal',
  ['example.test', 'refused'],
  (domain: string, message: string) => Prisma.sql`
    UPDATE swarm_nodes SET last_error = ${message} WHERE domain = ${domain}`,
);

/**
 * A failed contact in one statement: the seed's health when `seedContact`, the node row.
 * Atomic: −5 trust (min 0), +1 failure; a verified node goes inactive at the 5th failure in a
 * row; inactive (or never reached) nodes get their next probe 1 min × 2^(failed probes − 1), at
 * most 24 h. All expressions read the row's values from before this update.
 */
export const contactFailedSql = sqlStatement(
  'registry.contactFailed',
  [
    {
      domain: 'example.test',
      message: 'unreachable',
      now: EXAMPLE_TIME,
      stamp: EXAMPLE_TIME,
      seedContact: true,
    },
  ],
  (c: { domain: string; message: string; now: Date; stamp: Date; seedContact: boolean }) =>
    Prisma.sql`
      WITH seed AS (
        UPDATE swarm_seeds SET consecutive_failures = consecutive_failures + 1
        WHERE domain = ${c.domain} AND ${c.seedContact}::boolean)
      UPDATE swarm_nodes SET
        trust_score = GREATEST(trust_score - ${TRUST.failureStep}, ${TRUST.min}),
        consecutive_failures = consecutive_failures + 1,
        last_error = ${c.message},
        is_active = CASE WHEN consecutive_failures + 1 >= ${INACTIVE_AFTER_FAILURES}
          THEN false ELSE is_active END,
        next_probe_at = CASE
          WHEN NOT is_verified OR consecutive_failures + 1 >= ${INACTIVE_AFTER_FAILURES}
          THEN ${c.now}::timestamptz + make_interval(secs => LEAST(
            ${PROBE_BACKOFF.firstMs / 1000}::float8 * power(2::float8, LEAST(GREATEST(
              CASE WHEN is_verified THEN consecutive_failures + 1 - ${INACTIVE_AFTER_FAILURES}
                ELSE consecutive_failures END, 0), 30)),
            ${PROBE_BACKOFF.maxMs / 1000}::float8))
          ELSE next_probe_at END,
        updated_at = CASE WHEN is_active AND consecutive_failures + 1 >= ${INACTIVE_AFTER_FAILURES}
          THEN ${c.stamp}::timestamptz ELSE updated_at END
      WHERE domain = ${c.domain}
      RETURNING is_verified, last_seen_at, consecutive_failures`,
);

/** Deletes never-reached, unverified rows matching `where` (never a seed). */
function pruneHints(where: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    DELETE FROM swarm_nodes
    WHERE NOT is_verified AND last_seen_at IS NULL AND (${where})
      AND domain NOT IN (SELECT domain FROM swarm_seeds)
    RETURNING domain`;
}

/** Prunes one never-reached node (its probes kept failing). */
export const pruneHintSql = sqlStatement('registry.pruneHint', ['example.test'], (domain: string) =>
  pruneHints(Prisma.sql`domain = ${domain}`),
);

/** Prunes the never-reached nodes first heard of before `cutoff`, probed or not. */
export const pruneHintsHeardBeforeSql = sqlStatement(
  'registry.pruneHintsHeardBefore',
  [EXAMPLE_TIME],
  (cutoff: Date) => pruneHints(Prisma.sql`discovered_at < ${cutoff}::timestamptz`),
);

/** Unverified rows in total, unsigned ones, and those from `via` (the hint caps). */
export const hintCountsSql = sqlStatement(
  'registry.hintCounts',
  ['gossip:example.test'],
  (via: string) => Prisma.sql`
    SELECT count(*)::int AS total,
      (count(*) FILTER (WHERE ${UNSIGNED_VIA}))::int AS unsigned,
      (count(*) FILTER (WHERE discovered_via = ${via}))::int AS source
    FROM swarm_nodes WHERE NOT is_verified`,
);

/** Unsigned hints due for a probe, oldest due first, except `notIn`. */
export const dueUnsignedHintsSql = sqlStatement(
  'registry.dueUnsignedHints',
  [EXAMPLE_TIME, ['self.test'], 20],
  (now: Date, notIn: string[], limit: number) => Prisma.sql`
    SELECT domain, discovered_via FROM swarm_nodes
    WHERE next_probe_at <= ${now}::timestamptz AND NOT is_verified
      AND ${UNSIGNED_VIA} AND NOT (domain = ANY(${notIn}::text[]))
    ORDER BY next_probe_at ASC
    LIMIT ${limit}`,
);

/** Known nodes and vouched hints due for a probe, oldest due first, except `notIn`. */
export const dueKnownNodesSql = sqlStatement(
  'registry.dueKnownNodes',
  [EXAMPLE_TIME, ['self.test'], 20],
  (now: Date, notIn: string[], limit: number) => Prisma.sql`
    SELECT domain, discovered_via FROM swarm_nodes
    WHERE next_probe_at <= ${now}::timestamptz
      AND (is_verified OR NOT ${UNSIGNED_VIA})
      AND NOT (domain = ANY(${notIn}::text[]))
    ORDER BY next_probe_at ASC
    LIMIT ${limit}`,
);

/** The latest change stamps stored (another replica may have stamped later than us). */
export const storedStampsSql = sqlStatement(
  'registry.storedStamps',
  [],
  () => Prisma.sql`
    SELECT (SELECT max(updated_at) FROM swarm_nodes) AS nodes,
      (SELECT max(changed_at) FROM handle_registry) AS handles`,
);

/** Local users whose handle is missing from the handle registry or holds another did. */
export const staleLocalHandlesSql = sqlStatement(
  'registry.staleLocalHandles',
  ['self.test'],
  (self: string) => Prisma.sql`
    SELECT u.handle, u.did FROM users u
    LEFT JOIN handle_registry h ON h.handle = u.handle AND h.node_domain = ${self}
    WHERE u.did IS NOT NULL AND (h.id IS NULL OR h.did <> u.did)
    ORDER BY u.created_at, u.handle`,
);

/**
 * A handle entry (alias `h`) this node needs (docs/protocol.md "Registry bounds"): a person
 * someone here follows, or whose profile was read from their node since `since` (a profile page,
 * a search for their exact address, a follow). A peer's own acts (its people following someone
 * here) do not count. Needed entries go last, not never: both bounds stay hard.
 */
const neededHandle = (since: Date) => Prisma.sql`(EXISTS (
    SELECT 1 FROM remote_actors ra
    WHERE ra.node_domain = h.node_domain AND ra.handle = h.handle
      AND (ra.fetched_at >= ${since}::timestamptz
        OR EXISTS (SELECT 1 FROM follows f
          WHERE f.followee_remote_actor_id = ra.id AND f.follower_user_id IS NOT NULL))))`;

/**
 * Keeps `cap` handle entries of one node: the needed ones first, then the newest (by
 * updatedAt, then change time).
 */
export const trimNodeHandlesSql = sqlStatement(
  'registry.trimNodeHandles',
  ['example.test', 100, EXAMPLE_TIME],
  (domain: string, cap: number, neededSince: Date) => Prisma.sql`
    DELETE FROM handle_registry WHERE id IN (
      SELECT h.id FROM handle_registry h WHERE h.node_domain = ${domain}
      ORDER BY ${neededHandle(neededSince)} DESC, h.updated_at DESC, h.changed_at DESC, h.id DESC
      OFFSET ${cap})`,
);

/**
 * Removes `count` entries of other nodes, the ones not needed first, deepest first: an entry's
 * depth is how many newer entries (by its node's own `updatedAt`) its node has here among the
 * needed or the other ones, so the nodes holding the most entries lose their oldest first and a
 * flood of one node never pushes out a smaller node's entries while it has more of its own
 * (ties: earliest change here first).
 */
export const trimAllHandlesSql = sqlStatement(
  'registry.trimAllHandles',
  ['self.test', 100, EXAMPLE_TIME],
  (self: string, count: number, neededSince: Date) => Prisma.sql`
    DELETE FROM handle_registry WHERE id IN (
      SELECT id FROM (
        SELECT e.id, e.changed_at, e.needed, row_number() OVER (
          PARTITION BY e.node_domain, e.needed
          ORDER BY e.updated_at DESC, e.changed_at DESC, e.id DESC
        ) AS depth
        FROM (
          SELECT h.id, h.node_domain, h.updated_at, h.changed_at,
            ${neededHandle(neededSince)} AS needed
          FROM handle_registry h WHERE h.node_domain <> ${self}
        ) e
      ) ranked
      ORDER BY needed ASC, depth DESC, changed_at ASC, id ASC
      LIMIT ${count})`,
);

/** The peer's clock after a gossip exchange (not a change to gossip: updated_at untouched). */
export const setLastSyncSql = sqlStatement(
  'registry.setLastSync',
  ['example.test', EXAMPLE_TIME],
  (domain: string, peerClock: Date | null) => Prisma.sql`
    UPDATE swarm_nodes SET last_sync_at = ${peerClock}::timestamptz WHERE domain = ${domain}`,
);
