import { Prisma } from '@swarm/db';
import { sqlStatement } from './catalog.ts';

// The registry of known nodes (`swarm_nodes`) where a typed Prisma update would not do.

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
