import { z } from 'zod';
import {
  SWARM_PATHS,
  formatSwarmPostId,
  ok,
  parsePeerSinglePost,
  parseSwarmPostId,
  peerRepliesResponseSchema,
  uuidSchema,
  type Result,
} from '@swarm/contract';
import type { Prisma } from '@swarm/db';
import { REPLIES_PAGE_SIZE } from '../content/content.service.ts';
import {
  SHOWN_ACCOUNT,
  SHOWN_POST_AUTHOR,
  viewerFilter,
  visibilityFor,
} from '../views/visibility.ts';
import { describePeerError, type VisitorFetchGate } from '../peers/index.ts';
import type { RegistryService } from '../registry/index.ts';
import type { PostView } from '../views/index.ts';
import {
  postViewSelect,
  replyToView,
  rowToPostView,
  singlePostToView,
  withViewerState,
  type PostViewRow,
  type Viewer,
} from './post-views.ts';
import {
  gatedReadError,
  peerUnavailableMessage,
  readError,
  type ReadError,
} from './read-errors.ts';
import type { SeenPosts } from './seen-posts.ts';
import type { PeerServiceDeps } from '../peers/service-deps.ts';

/**
 * A post page: the post and its replies, oldest first. Ours come from the database (replies
 * written here and copies of replies peers delivered); a `swarm:{domain}:{id}` post is fetched
 * from its node (`GET /api/swarm/posts/[id]`, bare or `{ post }`, and `GET /api/swarm/replies`),
 * and our own users' replies to it are added from here, so a reply still being delivered shows.
 */

export interface ThreadPage {
  post: PostView;
  replies: PostView[];
  isSwarm: boolean;
}

export interface ThreadService {
  get(viewer: Viewer | null, id: string): Promise<Result<ThreadPage, ReadError>>;
}

export interface ThreadServiceDeps extends Omit<PeerServiceDeps, 'clock'> {
  /** Remote posts are read through it (one request per post in flight, budgets). */
  visitors: VisitorFetchGate;
  registry: Pick<RegistryService, 'isBlocked'>;
  /** Told of the remote post shown (see seen-posts.ts). */
  seen?: Pick<SeenPosts, 'remember'>;
}

const OLDEST_FIRST = [
  { createdAt: 'asc' },
  { id: 'asc' },
] as const satisfies Prisma.PostOrderByWithRelationInput[];

export function createThreadService(deps: ThreadServiceDeps): ThreadService {
  const { db, logger, config, visitors, registry, seen } = deps;
  const prisma = db.prisma;
  const self = config.domain;

  const views = (rows: readonly PostViewRow[]) =>
    rows.flatMap((row) => {
      const view = rowToPostView(row, self);
      return view ? [view] : [];
    });

  const notFound = (id: string) => readError('POST_NOT_FOUND', `There is no post ${id}.`);

  async function local(viewer: Viewer | null, id: string): Promise<Result<ThreadPage, ReadError>> {
    // Our ids are UUIDs: anything else cannot be ours (and must not reach a uuid column).
    if (!uuidSchema.safeParse(id).success) return notFound(id);
    const row = await prisma.post.findFirst({
      where: { id, apId: null, deletedAt: null, repostOfId: null, author: SHOWN_ACCOUNT },
      select: postViewSelect,
    });
    const post = row && rowToPostView(row, self);
    if (!row?.authorId || !post) return notFound(id);
    const visible = await visibilityFor(prisma, viewer, row.authorId, true, self);
    if (!(await prisma.post.count({ where: { id, ...visible } }))) return notFound(id);
    // Replies from anyone (local and peers' copies) that are visible by id, or the viewer's own.
    const replyRows = await prisma.post.findMany({
      where: {
        replyToId: id,
        deletedAt: null,
        ...SHOWN_POST_AUTHOR,
        AND: [
          {
            OR: [
              { visibility: { in: ['public', 'unlisted'] } },
              ...(viewer ? [{ authorId: viewer.id }] : []),
            ],
          },
        ],
      },
      orderBy: OLDEST_FIRST,
      take: REPLIES_PAGE_SIZE,
      select: postViewSelect,
    });
    // Replies by people the viewer muted or blocked, or who blocked the viewer, are left out.
    const filter = await viewerFilter(prisma, { viewer, self, operatorMutes: false });
    const replies = views(replyRows).filter((reply) => !filter.hides(reply));
    const shown = await withViewerState(prisma, viewer, [post, ...replies]);
    return ok({ post: shown[0]!, replies: shown.slice(1), isSwarm: false });
  }

  async function remote(
    viewer: Viewer | null,
    viewId: string,
    where: { domain: string; postId: string },
  ): Promise<Result<ThreadPage, ReadError>> {
    const { domain, postId } = where;
    const who = { anonymous: viewer === null };
    if (await registry.isBlocked(domain)) {
      return readError('PEER_UNAVAILABLE', `This node does not talk to ${domain} (blocked).`);
    }
    const [postAnswer, repliesAnswer, copy] = await Promise.all([
      visitors.getJson(domain, SWARM_PATHS.post(postId), z.unknown(), who),
      visitors.getJson(
        domain,
        `${SWARM_PATHS.replies}?postId=${encodeURIComponent(postId)}`,
        peerRepliesResponseSchema,
        who,
      ),
      prisma.post.findUnique({ where: { apId: viewId }, select: { id: true } }),
    ]);
    if (!postAnswer.ok) {
      return gatedReadError(postAnswer, domain, {
        code: 'POST_NOT_FOUND',
        message: `There is no post ${postId} on ${domain}.`,
      });
    }
    const parsed = parsePeerSinglePost(postAnswer.value, domain);
    const post = parsed.ok ? singlePostToView(parsed.value, domain, self) : null;
    if (!post) {
      const reason = parsed.ok ? 'an author it names cannot be read' : parsed.reason;
      logger.info({ peer: domain, postId, reason }, 'remote post unreadable');
      return readError('PEER_UNAVAILABLE', peerUnavailableMessage(domain));
    }

    await seen?.remember([post]);

    // Replies the peer lists, except those written here: ours come from our own rows.
    let remoteReplies: PostView[] = [];
    if (repliesAnswer.ok) {
      remoteReplies = repliesAnswer.value.replies.flatMap((reply) => {
        const view = replyToView(reply, domain, viewId, self);
        return view && view.author.isRemote ? [view] : [];
      });
    } else {
      logger.info(
        {
          peer: domain,
          postId,
          error:
            'reason' in repliesAnswer ? describePeerError(repliesAnswer.reason) : 'budget spent',
        },
        'replies of a remote post unavailable',
      );
    }
    const ownRows = copy
      ? await prisma.post.findMany({
          where: {
            replyToId: copy.id,
            apId: null,
            authorId: { not: null },
            deletedAt: null,
            author: SHOWN_ACCOUNT,
          },
          orderBy: OLDEST_FIRST,
          take: REPLIES_PAGE_SIZE,
          select: postViewSelect,
        })
      : [];
    const filter = await viewerFilter(prisma, { viewer, self, operatorMutes: false });
    const replies = [...remoteReplies, ...views(ownRows)]
      .filter((reply) => !filter.hides(reply))
      .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
    const shown = await withViewerState(prisma, viewer, [post, ...replies]);
    return ok({ post: shown[0]!, replies: shown.slice(1), isSwarm: true });
  }

  return {
    async get(viewer, id) {
      if (!id.startsWith('swarm:')) return local(viewer, id);
      const parsed = parseSwarmPostId(id);
      if (!parsed.ok) return readError('INVALID_REQUEST', `Not a valid post id: ${parsed.reason}.`);
      const { domain, postId } = parsed.value;
      return domain === self
        ? local(viewer, postId)
        : remote(viewer, formatSwarmPostId(parsed.value), parsed.value);
    },
  };
}
