import {
  err,
  formatTimestamp,
  ok,
  uuidSchema,
  type ErrorCode,
  type RepliesQuery,
  type RepliesResponse,
  type Reply,
  type Result,
  type SinglePostAnswer,
  type SwarmUserQuery,
  type SwarmUserResponse,
  type TimelineQuery,
  type TimelineResponse,
} from '@swarm/contract';
import type { Db, Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import {
  ACCOUNT_FLAGS_SELECT,
  LISTED_ACCOUNT,
  SHOWN_ACCOUNT,
  SHOWN_POST_AUTHOR,
  isHiddenAccount,
} from '../views/visibility.ts';
import {
  authoredPostSelect,
  profileEntrySelect,
  profileUserSelect,
  replySelect,
  singlePostSelect,
  toProfile,
  toProfileEntry,
  toReply,
  toSinglePost,
  toTimelinePost,
  type NodeFacts,
} from './content-mappers.ts';
import type { Refusal } from '../refusal.ts';

/**
 * The public reads about content (spec "Public read endpoints"; docs/protocol.md "Public
 * reads"): a local user's profile with recent posts, the node's timeline, one post, the
 * replies to a post. Read-only; unknown things are failure values for the edge to map to 404.
 */

export type ContentErrorCode = Extract<ErrorCode, 'USER_NOT_FOUND' | 'POST_NOT_FOUND'>;

export type ContentError = Refusal<ContentErrorCode>;

export interface ContentService {
  /** `GET /api/swarm/users/[handle]`: a local user, looked up by lower-cased handle. */
  userProfile(
    handle: string,
    query: SwarmUserQuery,
  ): Promise<Result<SwarmUserResponse, ContentError>>;
  /** `GET /api/swarm/timeline`: listed local top-level posts, newest first. */
  timeline(query: TimelineQuery): Promise<TimelineResponse>;
  /**
   * `GET /api/swarm/posts/[id]`: one visible local post, bare, with `post` and `replies` added
   * for origin-profile readers (see `singlePostAnswerSchema`).
   */
  post(id: string): Promise<Result<SinglePostAnswer, ContentError>>;
  /** `GET /api/swarm/replies`: replies to a visible local post, oldest first. */
  replies(query: RepliesQuery): Promise<Result<RepliesResponse, ContentError>>;
}

export interface ContentServiceDeps {
  db: Db;
  clock: Clock;
  config: Pick<NodeConfig, 'domain' | 'nodeIsNsfw'>;
  /** The nodes blocked here (the registry's): reposts of their copies are not listed. */
  blockedDomains: () => Promise<ReadonlySet<string>>;
}

/** Replies per page of `GET /api/swarm/replies` (the spec gives that endpoint no `limit`). */
export const REPLIES_PAGE_SIZE = 100;

/**
 * Listed: shown in lists (timeline, profile). Visible: reachable by id (single post, replies);
 * `unlisted` posts are visible but not listed, `followers` posts are neither to the public.
 */
export const LISTED = { visibility: 'public' } as const satisfies Prisma.PostWhereInput;
export const VISIBLE = {
  visibility: { in: ['public', 'unlisted'] },
} as const satisfies Prisma.PostWhereInput;

/**
 * A live post written on this node (not a copy from a peer, not soft-deleted) by an account that
 * is shown (views/visibility.ts).
 */
export const LOCAL_LIVE = {
  apId: null,
  authorId: { not: null },
  deletedAt: null,
  author: SHOWN_ACCOUNT,
} as const satisfies Prisma.PostWhereInput;

/**
 * Timelines (local, public swarm one) list only listed accounts (not moved away) and leave out
 * silenced ones too (issue #15).
 */
export const TIMELINE_LIVE = {
  ...LOCAL_LIVE,
  author: { ...LISTED_ACCOUNT, silencedAt: null },
} as const satisfies Prisma.PostWhereInput;

/** Top-level: neither a reply nor a repost (their list shapes cannot say what they answer). */
export const TOP_LEVEL = {
  replyToId: null,
  repostOfId: null,
} as const satisfies Prisma.PostWhereInput;

/**
 * A user's reposts that a profile list shows anyone (docs/protocol.md "Public reads"): the
 * reposted post is visible by id to the public (public or unlisted, never followers-only), not
 * deleted, no repost itself, and either ours by a shown account or a copy from a node not
 * blocked here. Reposts are never replies.
 */
export function listedReposts(blocked: ReadonlySet<string>): Prisma.PostWhereInput {
  return {
    replyToId: null,
    repostOf: {
      is: {
        ...VISIBLE,
        deletedAt: null,
        repostOfId: null,
        OR: [
          { apId: null, author: SHOWN_ACCOUNT },
          { apId: { not: null }, remoteAuthor: { is: { nodeDomain: { notIn: [...blocked] } } } },
        ],
      },
    },
  };
}

export const NEWEST_FIRST = [
  { createdAt: 'desc' },
  { id: 'desc' },
] as const satisfies Prisma.PostOrderByWithRelationInput[];

const postNotFound = (id: string) =>
  err<ContentError>({ code: 'POST_NOT_FOUND', message: `No post ${id} on this node.` });

/**
 * One page of rows fetched newest first with `take: limit + 1`. The next page is asked for with
 * `before` = the oldest `createdAt` of this one, which is exclusive; so a page never ends in
 * the middle of a millisecond that continues beyond it (those rows move to the next page),
 * unless the whole page shares one millisecond.
 */
export function pageNewestFirst<T extends { createdAt: Date }>(
  rows: readonly T[],
  limit: number,
): T[] {
  if (rows.length <= limit) return [...rows];
  const page = rows.slice(0, limit);
  const boundary = rows[limit]!.createdAt.getTime();
  const whole = page.filter((row) => row.createdAt.getTime() !== boundary);
  return whole.length > 0 ? whole : page;
}

export function createContentService(deps: ContentServiceDeps): ContentService {
  const { db, clock, config, blockedDomains } = deps;
  const prisma = db.prisma;
  const node: NodeFacts = { domain: config.domain, nodeIsNsfw: config.nodeIsNsfw };
  const before = (value: string | undefined) =>
    value === undefined ? {} : { createdAt: { lt: new Date(value) } };

  return {
    async userProfile(handle, query) {
      const user = await prisma.user.findUnique({
        where: { handle: handle.toLowerCase() },
        select: { id: true, ...profileUserSelect, ...ACCOUNT_FLAGS_SELECT },
      });
      if (!user || isHiddenAccount(user)) {
        return err({ code: 'USER_NOT_FOUND', message: `No user ${handle} on this node.` });
      }
      // Reposts only for readers that asked: older readers would keep one as an empty post.
      const entries = query.reposts
        ? { OR: [TOP_LEVEL, listedReposts(await blockedDomains())] }
        : TOP_LEVEL;
      const posts =
        query.limit === 0
          ? []
          : await prisma.post.findMany({
              where: { ...LOCAL_LIVE, ...LISTED, ...entries, authorId: user.id },
              orderBy: NEWEST_FIRST,
              take: query.limit,
              select: profileEntrySelect,
            });
      return ok({
        profile: toProfile(user, node),
        posts: posts.map(toProfileEntry),
        nodeDomain: node.domain,
        timestamp: formatTimestamp(clock.now()),
      });
    },

    async timeline(query) {
      const rows =
        query.limit === 0
          ? []
          : await prisma.post.findMany({
              where: { ...TIMELINE_LIVE, ...LISTED, ...TOP_LEVEL, ...before(query.before) },
              orderBy: NEWEST_FIRST,
              take: query.limit + 1,
              select: authoredPostSelect,
            });
      const posts = pageNewestFirst(rows, query.limit).flatMap((row) =>
        row.author ? [toTimelinePost({ ...row, author: row.author }, node)] : [],
      );
      return {
        posts,
        nodeDomain: node.domain,
        nodeIsNsfw: node.nodeIsNsfw,
        timestamp: formatTimestamp(clock.now()),
      };
    },

    async post(id) {
      // Our ids are UUIDs: anything else cannot be ours (and must not reach a uuid column).
      if (!uuidSchema.safeParse(id).success) return postNotFound(id);
      const row = await prisma.post.findFirst({
        where: { id, ...LOCAL_LIVE, ...VISIBLE },
        select: singlePostSelect,
      });
      if (!row?.author) return postNotFound(id);
      const post = toSinglePost({ ...row, author: row.author }, node);
      // The post is visible, so its replies are listed (an empty page at worst).
      const replies = (await repliesOf(row.id)) ?? [];
      return ok({ ...post, post, replies });
    },

    async replies(query) {
      const replies = await repliesOf(query.postId, query.before);
      if (!replies) return postNotFound(query.postId);
      return ok({ replies, nodeDomain: node.domain });
    },
  };

  /** The newest page of replies to a visible local post, oldest first; undefined if none. */
  async function repliesOf(postId: string, cursor?: string): Promise<Reply[] | undefined> {
    const parent = await prisma.post.findFirst({
      where: { id: postId, ...LOCAL_LIVE, ...VISIBLE },
      select: { id: true },
    });
    if (!parent) return undefined;
    // The newest page before the cursor, shown oldest first (reading order); the next page
    // back is `before` = the first reply's createdAt.
    const rows = await prisma.post.findMany({
      where: {
        replyToId: parent.id,
        deletedAt: null,
        ...VISIBLE,
        ...SHOWN_POST_AUTHOR,
        ...before(cursor),
      },
      orderBy: NEWEST_FIRST,
      take: REPLIES_PAGE_SIZE + 1,
      select: replySelect,
    });
    return pageNewestFirst(rows, REPLIES_PAGE_SIZE)
      .reverse()
      .flatMap((row) => {
        const reply = toReply(row);
        return reply ? [reply] : [];
      });
  }
}
