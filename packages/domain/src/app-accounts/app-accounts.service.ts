import type { Db } from '@swarm/db';
import type { NodeConfig } from '../config.ts';
import { accountsByAddresses, accountsByIds, type AppAccount } from './account-records.ts';
import {
  actorKeyOf,
  followPage,
  type FollowPage,
  type FollowPageQuery,
  type FollowSide,
} from './follow-pages.ts';
import { accountPostRows, type AccountPostsQuery } from './account-posts.ts';
import { likedPostRows } from './liked-posts.ts';
import { relationshipsOf, type Relationship } from './relationships.ts';

/**
 * People as apps address them: by row id (a local user or a remote actor kept here), with what
 * the asking person has to do with them, and their follow lists (docs/clients.md "Accounts").
 * Reads this node's database only: resolving someone not stored yet is the profiles' job.
 */
export interface AppAccountService {
  byId(id: string): Promise<AppAccount | null>;
  byIds(ids: readonly string[]): Promise<Map<string, AppAccount>>;
  /** By `handle@domain` (or a local handle), lower-cased keys. */
  byAddresses(addresses: readonly string[]): Promise<Map<string, AppAccount>>;
  relationships(
    viewer: { id: string; handle: string },
    ids: readonly string[],
  ): Promise<Relationship[]>;
  /** Null when the account is not found. */
  follows(id: string, side: FollowSide, query: FollowPageQuery): Promise<FollowPage | null>;
  /** The account's posts the viewer may see, as row ids (account-posts.ts). */
  posts(
    viewer: { id: string; handle: string } | null,
    account: Pick<AppAccount, 'id' | 'isRemote'>,
    query: AccountPostsQuery,
  ): Promise<{ rowIds: string[]; apiIds: bigint[] }>;
  /** The posts the person liked, the latest like first (liked-posts.ts). */
  liked(
    userId: string,
    query: { maxId?: string | undefined; minId?: string | undefined; limit: number },
  ): Promise<{ rowIds: string[]; oldest: string | null; newest: string | null }>;
}

export function createAppAccountService(deps: {
  db: Db;
  config: Pick<NodeConfig, 'domain'>;
}): AppAccountService {
  const { prisma } = deps.db;
  const self = deps.config.domain;
  const byIds = (ids: readonly string[]) => accountsByIds(prisma, ids, self);
  return {
    byIds,
    async byId(id) {
      return (await byIds([id])).get(id) ?? null;
    },
    byAddresses: (addresses) => accountsByAddresses(prisma, addresses, self),
    async relationships(viewer, ids) {
      const found = await byIds(ids);
      // In the order asked, each once; unknown ids are left out, as Mastodon does.
      const seen = new Set<string>();
      const accounts = ids.flatMap((id) => {
        const record = found.get(id);
        if (!record || seen.has(id)) return [];
        seen.add(id);
        return [record];
      });
      return relationshipsOf(prisma, viewer, accounts, self);
    },
    posts: (viewer, account, query) => accountPostRows(prisma, viewer, account, query, self),
    liked: (userId, query) => likedPostRows(prisma, userId, query),
    async follows(id, side, query) {
      const account = (await byIds([id])).get(id);
      if (!account) return null;
      const actorKey = await actorKeyOf(prisma, account);
      if (!actorKey) return null;
      return followPage(prisma, { ...account, actorKey }, side, query, self);
    },
  };
}
