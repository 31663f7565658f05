import { localActorKey, type Db, type Prisma, type PrismaClient } from '@swarm/db';

/**
 * Who may be seen (docs/security.md "Who may be seen"): the one rule every read applies, from the
 * peers' `/api/swarm/*` to search, tags, timelines, profiles, threads, follow lists,
 * notifications and live updates. Three parts, each written once here (its SQL twin for raw
 * statements in persistence/visibility.sql.ts):
 *
 * 1. Accounts, for everyone. Suspended accounts and sign-ups waiting for approval do not exist
 *    for readers: direct reads answer 404, lists leave them and their posts out (reversible:
 *    nothing is deleted). A deleted account has no row left (its copies elsewhere are
 *    soft-deleted). A moved account is not _listed_ (people search, follow lists, search, tags,
 *    timelines): its posts live on at the new address; its profile and posts still answer by
 *    address and id, pointing there (docs/protocol.md "Moving an account").
 * 2. Audience of a local author's posts: public, unlisted by id, followers to accepted
 *    followers, nothing to someone the author blocked.
 * 3. The viewer's own choices: people and nodes they muted or blocked, and local people who
 *    blocked them, are left out of every list they read (a profile they open still answers and
 *    says so, to undo it).
 */

// ---------------------------------------------------------------------------------------------
// 1. Accounts
// ---------------------------------------------------------------------------------------------

export interface AccountFlags {
  suspendedAt: Date | null;
  pendingApproval: boolean;
}

/** Hidden from everyone, answered as unknown. */
export function isHiddenAccount(user: AccountFlags): boolean {
  return user.suspendedAt !== null || user.pendingApproval;
}

/** `where` for users that are shown: the same rule as `isHiddenAccount`, for queries. */
export const SHOWN_ACCOUNT = {
  suspendedAt: null,
  pendingApproval: false,
} as const satisfies Prisma.UserWhereInput;

/** Users that lists show: shown, and not moved away. */
export const LISTED_ACCOUNT = {
  ...SHOWN_ACCOUNT,
  movedTo: null,
} as const satisfies Prisma.UserWhereInput;

/** Remote people that lists show: not moved away. */
export const LISTED_REMOTE_ACTOR = {
  movedTo: null,
} as const satisfies Prisma.RemoteActorWhereInput;

/** The columns `isHiddenAccount` reads. */
export const ACCOUNT_FLAGS_SELECT = {
  suspendedAt: true,
  pendingApproval: true,
} as const satisfies Prisma.UserSelect;

/** Posts (local or copies) whose local author, if any, is shown. */
export const SHOWN_POST_AUTHOR = {
  OR: [{ authorId: null }, { author: SHOWN_ACCOUNT }],
} as const satisfies Prisma.PostWhereInput;

/** Follows whose other side (`followers`: the follower; `following`: the followee) is listed. */
export function listedFollowSide(kind: 'followers' | 'following'): Prisma.FollowWhereInput {
  const [user, remote] =
    kind === 'followers'
      ? (['followerUser', 'followerRemoteActor'] as const)
      : (['followeeUser', 'followeeRemoteActor'] as const);
  return {
    OR: [{ [user]: { is: LISTED_ACCOUNT } }, { [remote]: { is: LISTED_REMOTE_ACTOR } }],
  };
}

/** Notifications whose local actor, if any, is shown (a remote actor's are kept). */
export const SHOWN_NOTIFICATION_ACTOR = {
  OR: [{ actorUserId: null }, { actorUser: { is: SHOWN_ACCOUNT } }],
} as const satisfies Prisma.NotificationWhereInput;

// ---------------------------------------------------------------------------------------------
// 2. Audience of a local author's posts
// ---------------------------------------------------------------------------------------------

/**
 * Which of a local author's posts a viewer may see on the author's profile and threads: the
 * author everything; an accepted follower `public` and `followers` posts; everyone else `public`
 * ones (threads add `unlisted`: reachable by id, not listed). Someone the author blocked sees
 * none of them on this node.
 */
export async function visibilityFor(
  prisma: PrismaClient,
  viewer: { id: string; handle: string } | null,
  authorId: string,
  reachableById: boolean,
  /** This node's domain: with it, an author who blocked the viewer shows them nothing. */
  self?: string,
): Promise<Prisma.PostWhereInput> {
  if (viewer?.id === authorId) return {};
  if (viewer && self) {
    const blocked = await prisma.userBlock.count({
      where: {
        userId: authorId,
        blockedAddress: { equals: `${viewer.handle}@${self}`, mode: 'insensitive' },
      },
    });
    if (blocked > 0) return { id: { in: [] } };
  }
  const open: ('public' | 'unlisted' | 'followers')[] = reachableById
    ? ['public', 'unlisted']
    : ['public'];
  if (viewer) {
    const follows = await prisma.follow.count({
      where: {
        followerKey: localActorKey(viewer.id),
        followeeKey: localActorKey(authorId),
        state: 'accepted',
      },
    });
    if (follows > 0) open.push('followers');
  }
  return { visibility: { in: open } };
}

/**
 * Posts (ours or stored copies) one signed-in viewer may read in lists of their own making
 * (bookmarks, list timelines): not deleted, a shown local author (part 1), and an audience that
 * includes them (part 2): their own, public and unlisted ones, followers-only ones of someone
 * they follow (accepted, for local authors; a copy was delivered because someone here follows
 * its author, so any follow of theirs counts, as home does). Copies count once their node's
 * content was stored (`fetched_at`), not as placeholders of an action. Part 3 (mutes, blocks)
 * is the caller's `viewerFilter`.
 */
export function readableByViewer(viewerId: string): Prisma.PostWhereInput {
  const me = localActorKey(viewerId);
  return {
    deletedAt: null,
    AND: [
      SHOWN_POST_AUTHOR,
      { OR: [{ apId: null }, { fetchedAt: { not: null } }] },
      {
        OR: [
          { authorId: viewerId },
          { visibility: { in: ['public', 'unlisted'] } },
          {
            visibility: 'followers',
            author: { followers: { some: { followerKey: me, state: 'accepted' } } },
          },
          {
            visibility: 'followers',
            remoteAuthor: { followers: { some: { followerKey: me } } },
          },
        ],
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// 3. The viewer's mutes and blocks
// ---------------------------------------------------------------------------------------------

/** Who a viewer does not want to see: lower-cased addresses and domains. */
export interface HiddenSet {
  people: ReadonlySet<string>;
  nodes: ReadonlySet<string>;
  /** True when nothing is muted or blocked (no filtering needed). */
  empty: boolean;
}

/** `handle@domain`, lower-cased: how hidden sets are compared. */
export function addressKey(handle: string, domain: string): string {
  return `${handle}@${domain}`.toLowerCase();
}

/** Whether a post or actor by `handle@domain` is hidden by the set. */
export function isHidden(set: HiddenSet, actor: { handle: string; domain: string }): boolean {
  if (set.empty) return false;
  return (
    set.nodes.has(actor.domain.toLowerCase()) ||
    set.people.has(addressKey(actor.handle, actor.domain))
  );
}

/** `where` leaving out notifications whose actor is hidden (local actors have no node domain). */
export function notificationsShownWhere(
  set: HiddenSet,
  self: string,
): Prisma.NotificationWhereInput {
  if (set.empty) return {};
  const people = [...set.people].map((key) => {
    const at = key.lastIndexOf('@');
    const handle = key.slice(0, at);
    const domain = key.slice(at + 1);
    return domain === self
      ? { actorHandle: { equals: handle, mode: 'insensitive' as const }, actorNodeDomain: null }
      : { actorHandle: { equals: handle, mode: 'insensitive' as const }, actorNodeDomain: domain };
  });
  const nodes = [...set.nodes].filter((d) => d !== self);
  return {
    NOT: {
      OR: [...people, ...(nodes.length > 0 ? [{ actorNodeDomain: { in: nodes } }] : [])],
    },
  };
}

/**
 * Whom one viewer is not shown, from three lists: the viewer's mutes and blocks, the local
 * people who blocked the viewer (their posts are not shown to them here), and, for the swarm
 * timeline, the nodes the operator muted.
 */
export async function hiddenSetFor(
  prisma: Db['prisma'],
  input: { viewer: { id: string; handle: string } | null; self: string; operatorMutes: boolean },
): Promise<HiddenSet> {
  const { viewer, self } = input;
  const [mutes, blocks, blockers, nodeMutes] = await Promise.all([
    viewer
      ? prisma.userMute.findMany({
          where: { userId: viewer.id },
          select: { kind: true, target: true },
        })
      : [],
    viewer
      ? prisma.userBlock.findMany({
          where: { userId: viewer.id },
          select: { blockedAddress: true },
        })
      : [],
    viewer
      ? prisma.userBlock.findMany({
          where: { blockedAddress: { equals: `${viewer.handle}@${self}`, mode: 'insensitive' } },
          select: { user: { select: { handle: true } } },
        })
      : [],
    input.operatorMutes ? prisma.nodeMute.findMany({ select: { domain: true } }) : [],
  ]);
  const people = new Set<string>();
  const nodes = new Set<string>();
  for (const m of mutes) (m.kind === 'node' ? nodes : people).add(m.target.toLowerCase());
  for (const b of blocks) people.add(b.blockedAddress.toLowerCase());
  for (const b of blockers) people.add(addressKey(b.user.handle, self));
  for (const n of nodeMutes) nodes.add(n.domain.toLowerCase());
  return { people, nodes, empty: people.size === 0 && nodes.size === 0 };
}

/** What a viewer is not shown: muted/blocked people and nodes, operator-muted nodes (swarm). */
export interface ViewerFilter {
  /** Whether a post (by its author, or its reposter) or a person is left out for this viewer. */
  hides(view: {
    author: { handle: string; domain: string };
    repostedBy?: { handle: string; domain: string } | null;
  }): boolean;
}

/** Whether the viewer muted (the person, not only their node) and blocked `handle@domain`. */
export async function viewerChoices(
  prisma: Db['prisma'],
  viewerId: string,
  address: { handle: string; domain: string },
): Promise<{ muted: boolean; blocked: boolean }> {
  const target = { equals: `${address.handle}@${address.domain}`, mode: 'insensitive' } as const;
  const [muted, blocked] = await Promise.all([
    prisma.userMute.count({ where: { userId: viewerId, kind: 'person', target } }),
    prisma.userBlock.count({ where: { userId: viewerId, blockedAddress: target } }),
  ]);
  return { muted: muted > 0, blocked: blocked > 0 };
}

/** The filter of one page view (see `hiddenSetFor`). */
export async function viewerFilter(
  prisma: Db['prisma'],
  input: { viewer: { id: string; handle: string } | null; self: string; operatorMutes: boolean },
): Promise<ViewerFilter> {
  const set = await hiddenSetFor(prisma, input);
  return {
    hides: (view) =>
      isHidden(set, view.author) || (view.repostedBy ? isHidden(set, view.repostedBy) : false),
  };
}
