import { Prisma } from '@swarm/db';
import { batchedSql, sqlStatement } from './catalog.ts';

// Pinned node keys (`swarm_nodes.public_key`), blocks and the request nonces of node-signed
// requests (security/node-auth.service.ts).

const EXAMPLE_TIME = new Date('2026-01-01T00:00:00.000Z');

/**
 * Records a request's nonce. ON CONFLICT DO NOTHING: a replayed nonce, even one racing its
 * original, inserts nothing, so the statement returns no row.
 */
export const insertNonceSql = sqlStatement(
  'nodeKeys.insertNonce',
  ['example.test', 'nonce', EXAMPLE_TIME],
  (domain: string, nonce: string, expiresAt: Date) => Prisma.sql`
    INSERT INTO request_nonces (source_domain, nonce, expires_at)
    VALUES (${domain}, ${nonce}, ${expiresAt}::timestamptz)
    ON CONFLICT DO NOTHING
    RETURNING 1`,
);

/**
 * Pins a first-contact key: creates the row if the registry does not know the node yet;
 * otherwise touches only the key-pinning columns (the registry owns the rest), and only when no
 * key is pinned. Returns the row when it pinned; none when a key was pinned meanwhile.
 * `origin`: a node first pinned by an origin-profile request is marked as such, unless a
 * profile is recorded already (a request never relabels a peer, docs/security.md).
 */
export const pinNodeKeySql = sqlStatement(
  'nodeKeys.pin',
  [{ domain: 'example.test', name: '', pem: 'pem', now: EXAMPLE_TIME, origin: true }],
  (pin: { domain: string; name: string; pem: string; now: Date; origin: boolean }) =>
    pin.origin
      ? Prisma.sql`
    INSERT INTO swarm_nodes (domain, name, public_key, key_pinned_at, discovered_via,
      discovered_at, updated_at, protocol_profile)
    VALUES (${pin.domain}, ${pin.name}, ${pin.pem}, ${pin.now}::timestamptz, 'signed-request',
      ${pin.now}::timestamptz, ${pin.now}::timestamptz, 'origin')
    ON CONFLICT (domain) DO UPDATE SET
      public_key = EXCLUDED.public_key, key_pinned_at = EXCLUDED.key_pinned_at,
      protocol_profile = COALESCE(swarm_nodes.protocol_profile, 'origin')
    WHERE swarm_nodes.key_pinned_at IS NULL OR swarm_nodes.public_key IS NULL
    RETURNING public_key`
      : Prisma.sql`
    INSERT INTO swarm_nodes (domain, name, public_key, key_pinned_at, discovered_via,
      discovered_at, updated_at)
    VALUES (${pin.domain}, ${pin.name}, ${pin.pem}, ${pin.now}::timestamptz, 'signed-request',
      ${pin.now}::timestamptz, ${pin.now}::timestamptz)
    ON CONFLICT (domain) DO UPDATE SET
      public_key = EXCLUDED.public_key, key_pinned_at = EXCLUDED.key_pinned_at
    WHERE swarm_nodes.key_pinned_at IS NULL OR swarm_nodes.public_key IS NULL
    RETURNING public_key`,
);

/** Whether a node is blocked, its pinned key and its recorded profile: one round trip. */
export const blockedAndPinnedSql = sqlStatement(
  'nodeKeys.blockedAndPinned',
  ['example.test'],
  (domain: string) => Prisma.sql`
    SELECT EXISTS (SELECT 1 FROM node_blocks WHERE domain = ${domain}) AS blocked,
      (SELECT public_key FROM swarm_nodes
        WHERE domain = ${domain} AND key_pinned_at IS NOT NULL) AS pinned,
      (SELECT protocol_profile FROM swarm_nodes WHERE domain = ${domain}) AS profile`,
);

/**
 * The usual request's one statement, shared by the requests arriving together
 * (batched-statement.ts): each nonce is recorded only if the key its request verified with is
 * still the one pinned for its node and that node is not blocked. Within a batch a nonce
 * counts once (`nth`): a replay racing its original is refused like any other.
 */
export const recordNonceOnPinnedKeySql = batchedSql('nodeKeys.recordNonceOnPinnedKey', {
  columns: { domain: 'text', pem: 'text', nonce: 'text', expires_at: 'timestamptz' },
  statement: (input) => Prisma.sql`
    WITH input AS (SELECT * FROM ${input}),
    confirmed AS (
      SELECT input.ord, input.domain, input.nonce, input.expires_at,
        row_number() OVER (PARTITION BY input.domain, input.nonce ORDER BY input.ord) AS nth
      FROM input
      JOIN swarm_nodes ON swarm_nodes.domain = input.domain
        AND swarm_nodes.key_pinned_at IS NOT NULL AND swarm_nodes.public_key = input.pem
      WHERE NOT EXISTS (SELECT 1 FROM node_blocks WHERE node_blocks.domain = input.domain)
    ), recorded AS (
      INSERT INTO request_nonces (source_domain, nonce, expires_at)
      SELECT domain, nonce, expires_at FROM confirmed WHERE nth = 1
      ORDER BY domain, nonce
      ON CONFLICT DO NOTHING
      RETURNING source_domain, nonce
    )
    SELECT input.ord, confirmed.ord IS NOT NULL AS confirmed,
      COALESCE(confirmed.nth = 1 AND recorded.nonce IS NOT NULL, false) AS fresh
    FROM input
    LEFT JOIN confirmed ON confirmed.ord = input.ord
    LEFT JOIN recorded
      ON recorded.source_domain = input.domain AND recorded.nonce = input.nonce`,
});
