import {
  LIMITS,
  SWARM_PATHS,
  formatTimestamp,
  ok,
  parseHandleAddress,
  parseRemoteHandle,
  peerSwarmUserResponseSchema,
  type Result,
  type SwarmUserResponse,
} from '@swarm/contract';
import { localActorKey, type Prisma } from '@swarm/db';
import { profileUserSelect } from '../content/content-mappers.ts';
import { NEWEST_FIRST } from '../content/content.service.ts';
import {
  actorView,
  postViewSelect,
  rowToPostView,
  viewUrl,
  withViewerState,
  type Viewer,
} from '../feeds/post-views.ts';
import { gatedReadError, readError, type ReadError } from '../feeds/read-errors.ts';
import type { VisitorFetchGate } from '../peers/index.ts';
import type { GossipService, RegistryService } from '../registry/index.ts';
import type { PostView, ProfileView } from '../views/index.ts';
import {
  ACCOUNT_FLAGS_SELECT,
  isHiddenAccount,
  viewerChoices,
  visibilityFor,
} from '../views/visibility.ts';
import type { PeerServiceDeps } from '../peers/service-deps.ts';

/**
 * Profiles for people: `alice` is a user of this node, `bob@beta.example` one of another node,
 * kept here from its `GET /api/swarm/users/bob` (a domain that is this node's own means local).
 * Storing a read also refreshes the RemoteActor (display fields, did pinned on first sight), so
 * interactions and notifications show current names.
 */

export interface ProfilePage {
  profile: ProfileView;
  posts: PostView[];
  /** The data came from another node (the spec's `isSwarm`). */
  isSwarm: boolean;
}

/**
 * Profile tabs (issue #14): `posts` (top-level posts and reposts), `replies` (posts and
 * replies), `media` (own posts with images). For another node's user the node's profile answer
 * gives the posts; `replies` adds the replies by them that this node holds, `media` keeps the
 * posts with media (docs/decisions.md "Profile tabs of remote users").
 */
export const PROFILE_TABS = ['posts', 'replies', 'media'] as const;
export type ProfileTab = (typeof PROFILE_TABS)[number];

export interface ProfileService {
  get(
    viewer: Viewer | null,
    query: { address: string; limit?: number; tab?: ProfileTab },
  ): Promise<Result<ProfilePage, ReadError>>;
}

export interface ProfileServiceDeps extends PeerServiceDeps {
  /** Remote profiles are read through it (one request per address in flight, budgets). */
  visitors: VisitorFetchGate;
  registry: Pick<RegistryService, 'isBlocked'>;
  /** Told of each person read from their node: their handle entry needs no gossip. */
  handles?: Pick<GossipService, 'noteResolved'>;
  /** Where remote profiles read on demand are kept (and read back from). */
  profiles: ProfileAnswerStore;
}

/** Keeps what a node answered for one of its users (remote-posts' profile store). */
export interface ProfileAnswerStore {
  store(
    domain: string,
    askedHandle: string,
    answer: SwarmUserResponse,
    source: 'read',
  ): Promise<{ handle: string }>;
}

export const PROFILE_POSTS_LIMIT = { default: 20, max: LIMITS.swarmUserPosts.max } as const;

/**
 * A stored profile of someone nobody here follows is read from their node again when it is older
 * than this (people someone here follows are kept current by the poller).
 */
export const PROFILE_FRESH_MS = 10 * 60_000;

/** Where a person lives: a local handle, or a handle on another node. */
export type ParsedAddress =
  { local: true; handle: string } | { local: false; handle: string; domain: string };

/** `alice`, `@alice`, `bob@beta.example`, `@bob@beta.example:8443`; our own domain means local. */
export function parseProfileAddress(input: string, self: string): Result<ParsedAddress> {
  const text = input.trim().replace(/^@/, '');
  if (text.includes('@')) {
    const address = parseHandleAddress(text);
    if (!address.ok) return address;
    const { handle, domain } = address.value;
    return ok(
      domain === self
        ? { local: true, handle: handle.toLowerCase() }
        : { local: false, handle, domain },
    );
  }
  const handle = parseRemoteHandle(text);
  return handle.ok ? ok({ local: true, handle: handle.value.toLowerCase() }) : handle;
}

type FollowState = 'none' | 'pending' | 'accepted';

export function createProfileService(deps: ProfileServiceDeps): ProfileService {
  const { db, clock, logger, config, visitors, registry, handles } = deps;
  const profileStore = deps.profiles;
  const prisma = db.prisma;
  const self = config.domain;

  async function followState(viewer: Viewer | null, followeeKey: string): Promise<FollowState> {
    if (!viewer) return 'none';
    const follow = await prisma.follow.findUnique({
      where: {
        followerKey_followeeKey: { followerKey: localActorKey(viewer.id), followeeKey },
      },
      select: { state: true },
    });
    return follow?.state ?? 'none';
  }

  /** What the signed-in viewer has to do with the person: follow, mute, block. */
  async function viewerState(
    viewer: Viewer | null,
    followeeKey: string,
    address: { handle: string; domain: string },
    isSelf: boolean,
  ): Promise<ProfileView['viewer']> {
    if (!viewer) return null;
    const [state, choices] = await Promise.all([
      followState(viewer, followeeKey),
      viewerChoices(prisma, viewer.id, address),
    ]);
    return { isSelf, followState: state, ...choices };
  }

  /**
   * A profile tab's posts among `where`, newest first: Posts are top-level posts and reposts
   * (replies are on their threads), Posts & replies everything, Media posts with media.
   */
  async function tabViews(
    where: Prisma.PostWhereInput,
    tab: ProfileTab,
    limit: number,
  ): Promise<PostView[]> {
    if (limit === 0) return [];
    const rows = await prisma.post.findMany({
      where: {
        ...where,
        ...(tab === 'posts' ? { replyToId: null } : {}),
        ...(tab === 'media' ? { repostOfId: null, media: { some: {} } } : {}),
      },
      orderBy: NEWEST_FIRST,
      take: limit,
      select: postViewSelect,
    });
    return rows.flatMap((row) => {
      const view = rowToPostView(row, self);
      return view ? [view] : [];
    });
  }

  async function local(
    viewer: Viewer | null,
    handle: string,
    limit: number,
    tab: ProfileTab,
  ): Promise<Result<ProfilePage, ReadError>> {
    const user = await prisma.user.findUnique({
      where: { handle },
      select: {
        id: true,
        isNsfw: true,
        movedFrom: true,
        ...profileUserSelect,
        ...ACCOUNT_FLAGS_SELECT,
      },
    });
    if (!user || isHiddenAccount(user))
      return readError('USER_NOT_FOUND', `There is no user ${handle} on this node.`);
    const [visible, viewerView] = await Promise.all([
      visibilityFor(prisma, viewer, user.id, false, self),
      viewerState(
        viewer,
        localActorKey(user.id),
        { handle: user.handle, domain: self },
        viewer?.id === user.id,
      ),
    ]);
    const views = await tabViews(
      { authorId: user.id, apId: null, deletedAt: null, ...visible },
      tab,
      limit,
    );
    return ok({
      profile: {
        actor: actorView({ ...user, domain: self }, self),
        bio: user.bio,
        headerUrl: viewUrl(user.headerUrl),
        website: viewUrl(user.website),
        followersCount: user.followersCount,
        followingCount: user.followingCount,
        postsCount: user.postsCount,
        createdAt: formatTimestamp(user.createdAt),
        did: user.did,
        movedTo: user.movedTo,
        movedFrom: user.movedFrom,
        isNsfw: user.isNsfw,
        isBot: user.isBot,
        viewer: viewerView,
      },
      posts: await withViewerState(prisma, viewer, views),
      isSwarm: false,
    });
  }

  /** The stored profile of `handle@domain`, and whether someone here follows them. */
  async function storedActor(handle: string, domain: string) {
    return prisma.remoteActor.findFirst({
      where: { nodeDomain: domain, handle: { equals: handle, mode: 'insensitive' } },
      select: {
        id: true,
        actorUrl: true,
        handle: true,
        displayName: true,
        avatarUrl: true,
        bio: true,
        did: true,
        movedTo: true,
        profile: true,
        followers: { where: { followerUserId: { not: null } }, select: { id: true }, take: 1 },
      },
    });
  }

  /**
   * Someone on another node: from this node's database when their profile is kept current (a
   * person someone here follows, read by the poller) or was read lately; otherwise read from
   * their node now (the visitors' budget) and stored, then shown from here. When their node
   * cannot be asked, an older stored profile is shown rather than an error.
   */
  async function remote(
    viewer: Viewer | null,
    asked: { handle: string; domain: string },
    limit: number,
    tab: ProfileTab,
  ): Promise<Result<ProfilePage, ReadError>> {
    const { domain } = asked;
    if (await registry.isBlocked(domain)) {
      return readError('PEER_UNAVAILABLE', `This node does not talk to ${domain} (blocked).`);
    }
    let actor = await storedActor(asked.handle, domain);
    const fresh =
      actor?.profile &&
      (actor.followers.length > 0 ||
        actor.profile.readAt.getTime() > clock.now().getTime() - PROFILE_FRESH_MS);
    if (!fresh) {
      const answer = await visitors.getJson(
        domain,
        SWARM_PATHS.userEntries(asked.handle, PROFILE_POSTS_LIMIT.max),
        peerSwarmUserResponseSchema,
        { anonymous: viewer === null },
      );
      if (answer.ok) {
        const stored = await profileStore.store(domain, asked.handle, answer.value, 'read');
        actor = await storedActor(stored.handle, domain);
        const presented = answer.value.profile.did;
        if (presented && actor?.did && presented !== actor.did) {
          logger.warn(
            { actor: `${stored.handle}@${domain}`, pinned: actor.did, presented },
            'remote profile presents a did other than the pinned one',
          );
        } else if (presented && answer.value.nodeDomain === domain) {
          // Resolved on demand: its handle entry, kept without gossip (the registry's own bounds).
          await handles
            ?.noteResolved({ handle: stored.handle, nodeDomain: domain, did: presented })
            .catch((error: unknown) =>
              logger.warn(
                { err: error, actor: `${stored.handle}@${domain}` },
                'handle entry not stored',
              ),
            );
        }
      } else if (!actor?.profile) {
        return gatedReadError(answer, domain, {
          code: 'USER_NOT_FOUND',
          message: `There is no user ${asked.handle} on ${domain}.`,
        });
      }
    }
    const profile = actor?.profile;
    if (!actor || !profile) {
      return readError('USER_NOT_FOUND', `There is no user ${asked.handle} on ${domain}.`);
    }
    const author = actorView({ ...actor, domain }, self);
    const viewerView = await viewerState(
      viewer,
      actor.actorUrl,
      { handle: actor.handle, domain },
      false,
    );
    const views = await tabViews(
      {
        remoteAuthorId: actor.id,
        apId: { not: null },
        deletedAt: null,
        // Followers-only copies were delivered for the people here who follow them.
        ...(viewerView?.followState === 'accepted' ? {} : { visibility: 'public' }),
      },
      tab,
      limit,
    );
    return ok({
      profile: {
        actor: author,
        bio: actor.bio,
        headerUrl: profile.headerUrl,
        website: profile.website,
        followersCount: profile.followersCount,
        followingCount: profile.followingCount,
        postsCount: profile.postsCount,
        createdAt: formatTimestamp(profile.joinedAt),
        did: actor.did,
        movedTo: actor.movedTo,
        movedFrom: null,
        isNsfw: false, // the spec's profile carries no such flag
        isBot: profile.isBot,
        viewer: viewerView,
      },
      posts: await withViewerState(prisma, viewer, views),
      isSwarm: true,
    });
  }

  return {
    async get(viewer, query) {
      const parsed = parseProfileAddress(query.address, self);
      if (!parsed.ok) return readError('INVALID_REQUEST', `Not a valid address: ${parsed.reason}.`);
      const limit = Math.min(
        Math.max(0, Math.trunc(query.limit ?? PROFILE_POSTS_LIMIT.default)),
        PROFILE_POSTS_LIMIT.max,
      );
      const address = parsed.value;
      const tab = query.tab ?? 'posts';
      return address.local
        ? local(viewer, address.handle, limit, tab)
        : remote(viewer, address, limit, tab);
    },
  };
}
