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
 * A post page: the post and its replies, oldest first, read from the database (docs/architecture.md
 * "Stored remote content"). A `swarm:{domain}:{id}` post with a copy here is shown from the copy
 * and the replies stored beside it (copies peers pushed, replies written here); when the copy is
 * older than `THREAD_FRESH_MS` it is read again from its node in the background, within the
 * visitors' budget, for the next view. Only a post with no copy yet, or with replies never read
 * here, is read while the page waits (`GET /api/swarm/posts/[id]`, bare or `{ post }`, and
 * `GET /api/swarm/replies`), then stored.
 */

export interface ThreadPage {
  post: PostView;
  replies: PostView[];
  isSwarm: boolean;
}

export interface ThreadService {
  get(viewer: Viewer | null, id: string): Promise<Result<ThreadPage, ReadError>>;
  /** Resolves when the background refreshes started so far are done (tests, shutdown). */
  settled(): Promise<void>;
}

/** Where posts read from their node are kept (remote-posts' store, a level above). */
export interface ThreadPostStore {
  store(posts: readonly { view: PostView }[], source: 'read'): Promise<unknown>;
}

/** A stored copy younger than this is shown without asking its node again. */
export const THREAD_FRESH_MS = 10 * 60_000;
/** Background refreshes running at once, at most (more are skipped until a later view). */
export const THREAD_REFRESH_MAX = 8;
/** Threads whose replies from third nodes are remembered, at most. */
export const THREAD_LISTED_MAX = 1_000;

export interface ThreadServiceDeps extends PeerServiceDeps {
  /** Remote posts are read through it (one request per post in flight, budgets). */
  visitors: VisitorFetchGate;
  registry: Pick<RegistryService, 'isBlocked'>;
  /** Told of the remote post shown (see seen-posts.ts). */
  seen?: Pick<SeenPosts, 'remember'>;
  store: ThreadPostStore;
}

const OLDEST_FIRST = [
  { createdAt: 'asc' },
  { id: 'asc' },
] as const satisfies Prisma.PostOrderByWithRelationInput[];

export function createThreadService(deps: ThreadServiceDeps): ThreadService {
  const { db, logger, config, clock, visitors, registry, seen, store } = deps;
  const prisma = db.prisma;
  const self = config.domain;

  const views = (rows: readonly PostViewRow[]) =>
    rows.flatMap((row) => {
      const view = rowToPostView(row, self);
      return view ? [view] : [];
    });

  const notFound = (id: string) => readError('POST_NOT_FOUND', `There is no post ${id}.`);

  /**
   * The replies stored beside post row `rowId` (ours, and copies of other nodes' replies), oldest
   * first: the public ones and the viewer's own, without people the viewer muted or blocked or
   * who blocked the viewer.
   */
  async function storedReplies(viewer: Viewer | null, rowId: string): Promise<PostView[]> {
    const replyRows = await prisma.post.findMany({
      where: {
        replyToId: rowId,
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
    const filter = await viewerFilter(prisma, { viewer, self, operatorMutes: false });
    return views(replyRows).filter((reply) => !filter.hides(reply));
  }

  async function page(
    viewer: Viewer | null,
    post: PostView,
    rowId: string,
    listed: readonly PostView[] = [],
  ) {
    const stored = await storedReplies(viewer, rowId);
    let replies = stored;
    if (listed.length > 0) {
      const filter = await viewerFilter(prisma, { viewer, self, operatorMutes: false });
      const ids = new Set(stored.map((reply) => reply.id));
      replies = [...stored, ...listed.filter((r) => !ids.has(r.id) && !filter.hides(r))].sort(
        (a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt),
      );
    }
    const isSwarm = post.isRemote;
    const shown = await withViewerState(prisma, viewer, [post, ...replies]);
    return ok({ post: shown[0]!, replies: shown.slice(1), isSwarm });
  }

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
    return page(viewer, post, id);
  }

  /** The post and the replies its node lists (those by its own users), read now. */
  async function readFromNode(
    where: { domain: string; postId: string },
    viewId: string,
    who: { anonymous: boolean },
  ): Promise<Result<{ post: PostView; replies: PostView[] }, ReadError>> {
    const { domain, postId } = where;
    const [postAnswer, repliesAnswer] = await Promise.all([
      visitors.getJson(domain, SWARM_PATHS.post(postId), z.unknown(), who),
      visitors.getJson(
        domain,
        `${SWARM_PATHS.replies}?postId=${encodeURIComponent(postId)}`,
        peerRepliesResponseSchema,
        who,
      ),
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
    let replies: PostView[] = [];
    if (repliesAnswer.ok) {
      // Ours come from our own rows.
      replies = repliesAnswer.value.replies.flatMap((reply) => {
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
    return ok({ post, replies });
  }

  /**
   * Replies by people of a third node, as the post's node listed them: that node cannot speak
   * for them, so they are never stored as copies, only remembered here (least recently read out
   * first) and shown beside the stored ones.
   */
  const listedElsewhere = new Map<string, PostView[]>();

  async function keep(
    viewId: string,
    domain: string,
    read: { post: PostView; replies: PostView[] },
  ) {
    const own = read.replies.filter((reply) => reply.author.domain === domain);
    const others = read.replies.filter((reply) => reply.author.domain !== domain);
    // Kept even when empty: it also says that this thread's replies were read here.
    listedElsewhere.delete(viewId);
    listedElsewhere.set(viewId, others);
    if (listedElsewhere.size > THREAD_LISTED_MAX) {
      listedElsewhere.delete(listedElsewhere.keys().next().value!);
    }
    await store.store(
      [read.post, ...own].map((view) => ({ view })),
      'read',
    );
  }

  const refreshing = new Map<string, Promise<void>>();

  /** Reads a stale copy's post and replies again for the next view; the page does not wait. */
  function refreshLater(
    where: { domain: string; postId: string },
    viewId: string,
    who: { anonymous: boolean },
  ) {
    if (refreshing.has(viewId) || refreshing.size >= THREAD_REFRESH_MAX) return;
    const job = readFromNode(where, viewId, who)
      .then((read) => (read.ok ? keep(viewId, where.domain, read.value) : undefined))
      .catch((err: unknown) => logger.warn({ err, post: viewId }, 'thread refresh failed'))
      .finally(() => refreshing.delete(viewId));
    refreshing.set(viewId, job);
  }

  /** Followers-only copies (pushed to this node) are for the author's followers here. */
  async function mayRead(
    viewer: Viewer | null,
    copy: { visibility: string; remoteAuthorId: string | null },
  ) {
    if (copy.visibility !== 'followers') return true;
    if (!viewer || !copy.remoteAuthorId) return false;
    const follows = await prisma.follow.count({
      where: {
        followerUserId: viewer.id,
        followeeRemoteActorId: copy.remoteAuthorId,
        state: 'accepted',
      },
    });
    return follows > 0;
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
    const stored = () =>
      prisma.post.findUnique({
        where: { apId: viewId },
        select: {
          ...postViewSelect,
          id: true,
          fetchedAt: true,
          visibility: true,
          remoteAuthorId: true,
        },
      });
    let copy = await stored();
    if (copy?.deletedAt) return notFound(postId);
    if (copy && !(await mayRead(viewer, copy))) return notFound(postId);
    // A placeholder copy (made from what a page showed, no content yet) is read like a missing one.
    const usable = copy && (copy.content !== '' || copy.media.length > 0) ? copy : null;
    const storedPost = usable && rowToPostView(usable, self);
    // A copy with replies whose list this process never read (the copy came from a profile or
    // a feed) is read like a missing one, once: its replies by other nodes' people exist nowhere here.
    const repliesUnread =
      usable !== null && usable.repliesCount > 0 && !listedElsewhere.has(viewId);
    if (usable && storedPost && !repliesUnread) {
      const age = clock.now().getTime() - (usable.fetchedAt?.getTime() ?? 0);
      if (age > THREAD_FRESH_MS) refreshLater(where, viewId, who);
      return page(viewer, storedPost, usable.id, listedElsewhere.get(viewId));
    }

    const read = await readFromNode(where, viewId, who);
    // A stored copy beats an error.
    if (!read.ok) return usable && storedPost ? page(viewer, storedPost, usable.id) : read;
    await seen?.remember([read.value.post]);
    await keep(viewId, domain, read.value);
    copy = await stored();
    const post = copy && !copy.deletedAt && rowToPostView(copy, self);
    if (copy && post) return page(viewer, post, copy.id, listedElsewhere.get(viewId));
    // Not kept (refused by the store): shown as read, without replies written here.
    const shown = await withViewerState(prisma, viewer, [read.value.post, ...read.value.replies]);
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
    async settled() {
      while (refreshing.size > 0) await Promise.all(refreshing.values());
    },
  };
}
