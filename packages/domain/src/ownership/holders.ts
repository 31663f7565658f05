import type { Tx } from '../interactions/interaction-effects.ts';
import { followerDomainsSql, holderDomainsSql } from '../persistence/ownership.sql.ts';

/** At most this many nodes are told of one deletion or move (the rest is logged). */
export const HOLDERS_MAX = 1_000;

/**
 * The nodes that hold something of a local user (docs/protocol.md "Deleting posts and
 * accounts"): the nodes of their remote followers and of the people they follow, every node this
 * node delivered anything of theirs to (the outbox), and for one post the nodes of the people
 * who liked, reposted or answered it. Never this node itself.
 */
export async function holderDomains(
  tx: Tx,
  input: { userId: string; self: string; postId?: string },
): Promise<string[]> {
  const rows = await tx.$queryRaw<{ domain: string }[]>(
    holderDomainsSql(input.userId, input.self, input.postId ?? null, HOLDERS_MAX),
  );
  return rows.map((r) => r.domain);
}

/** The domains of the remote followers of an actor key (local user or remote actor). */
export async function followerDomains(
  tx: Tx,
  input: { followeeKey: string; exclude: string[] },
): Promise<string[]> {
  const rows = await tx.$queryRaw<{ domain: string }[]>(
    followerDomainsSql(input.followeeKey, HOLDERS_MAX),
  );
  return rows.map((r) => r.domain).filter((d) => !input.exclude.includes(d));
}
