import type { Db, Prisma } from '@swarm/db';
import { SHOWN_ACCOUNT } from '../views/visibility.ts';

/**
 * People as apps address them (docs/clients.md "Ids"): by the UUID of their row, a local user or
 * a remote actor kept here. One record shape for both, read from this node's database only (a
 * remote person is what their node last said, as pages show them). Hidden local accounts
 * (suspended, waiting for approval) are not found.
 */

/** A person as apps see them (the client read model's account record, plus two fields). */
export interface AppAccount {
  /** The user's id here, or the remote actor's. */
  id: string;
  handle: string;
  /** The node that hosts them (this node's domain for local people). */
  domain: string;
  isRemote: boolean;
  displayName: string;
  bio: string;
  avatarUrl: string | null;
  headerUrl: string | null;
  website: string | null;
  isBot: boolean;
  followersCount: number;
  followingCount: number;
  postsCount: number;
  createdAt: Date;
  movedTo: string | null;
}

/** At most this many ids are looked up in one call (relationships, list pages). */
export const ACCOUNT_IDS_MAX = 100;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` can be a row id at all (anything else is simply not found). */
export function isAccountId(id: unknown): id is string {
  return typeof id === 'string' && UUID.test(id);
}

const userSelect = {
  id: true,
  handle: true,
  displayName: true,
  bio: true,
  avatarUrl: true,
  headerUrl: true,
  website: true,
  isBot: true,
  followersCount: true,
  followingCount: true,
  postsCount: true,
  createdAt: true,
  movedTo: true,
} as const satisfies Prisma.UserSelect;

const actorSelect = {
  id: true,
  handle: true,
  nodeDomain: true,
  displayName: true,
  bio: true,
  avatarUrl: true,
  createdAt: true,
  movedTo: true,
  profile: true,
} as const satisfies Prisma.RemoteActorSelect;

type UserRow = Prisma.UserGetPayload<{ select: typeof userSelect }>;
type ActorRow = Prisma.RemoteActorGetPayload<{ select: typeof actorSelect }>;

function fromUser(row: UserRow, self: string): AppAccount {
  return { ...row, domain: self, isRemote: false };
}

function fromActor(row: ActorRow): AppAccount {
  const profile = row.profile;
  return {
    id: row.id,
    handle: row.handle,
    domain: row.nodeDomain,
    isRemote: true,
    displayName: row.displayName,
    bio: row.bio,
    avatarUrl: row.avatarUrl,
    headerUrl: profile?.headerUrl ?? null,
    website: profile?.website ?? null,
    isBot: profile?.isBot ?? false,
    followersCount: profile?.followersCount ?? 0,
    followingCount: profile?.followingCount ?? 0,
    postsCount: profile?.postsCount ?? 0,
    createdAt: profile?.joinedAt ?? row.createdAt,
    movedTo: row.movedTo,
  };
}

/** The records of `ids` that exist and are shown, by id (unknown ones are absent). */
export async function accountsByIds(
  prisma: Db['prisma'],
  ids: readonly string[],
  self: string,
): Promise<Map<string, AppAccount>> {
  const wanted = [...new Set(ids.filter(isAccountId))].slice(0, ACCOUNT_IDS_MAX);
  const found = new Map<string, AppAccount>();
  if (wanted.length === 0) return found;
  const [users, actors] = await Promise.all([
    prisma.user.findMany({ where: { id: { in: wanted }, ...SHOWN_ACCOUNT }, select: userSelect }),
    prisma.remoteActor.findMany({ where: { id: { in: wanted } }, select: actorSelect }),
  ]);
  for (const row of users) found.set(row.id, fromUser(row, self));
  for (const row of actors) found.set(row.id, fromActor(row));
  return found;
}

/**
 * The records of people named by address (`handle` here or `handle@domain`), by lower-cased
 * address. A remote person this node never stored has no record (and no id to give apps).
 */
export async function accountsByAddresses(
  prisma: Db['prisma'],
  addresses: readonly string[],
  self: string,
): Promise<Map<string, AppAccount>> {
  const local: string[] = [];
  const remote: { handle: string; nodeDomain: string }[] = [];
  for (const address of addresses.slice(0, ACCOUNT_IDS_MAX * 50)) {
    const at = address.lastIndexOf('@');
    const handle = at < 0 ? address : address.slice(0, at);
    const domain = at < 0 ? self : address.slice(at + 1).toLowerCase();
    if (domain === self) local.push(handle.toLowerCase());
    else remote.push({ handle, nodeDomain: domain });
  }
  const [users, actors] = await Promise.all([
    local.length
      ? prisma.user.findMany({
          where: { handle: { in: local }, ...SHOWN_ACCOUNT },
          select: userSelect,
        })
      : [],
    remote.length
      ? prisma.remoteActor.findMany({
          where: {
            OR: remote.map((r) => ({
              nodeDomain: r.nodeDomain,
              handle: { equals: r.handle, mode: 'insensitive' as const },
            })),
          },
          select: actorSelect,
        })
      : [],
  ]);
  const found = new Map<string, AppAccount>();
  for (const row of users) found.set(`${row.handle}@${self}`.toLowerCase(), fromUser(row, self));
  for (const row of actors) {
    found.set(`${row.handle}@${row.nodeDomain}`.toLowerCase(), fromActor(row));
  }
  return found;
}

/** `handle@domain` of a record, as the domain's address-taking services read it. */
export function addressOf(account: Pick<AppAccount, 'handle' | 'domain'>): string {
  return `${account.handle}@${account.domain}`;
}
