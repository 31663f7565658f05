import { formatActorUrl, parseSwarmPostId, uuidSchema } from '@swarm/contract';
import type { Db, Prisma, PostVisibility } from '@swarm/db';
import type { Clock } from '../clock.ts';
import { upsertRemoteActor } from '../interactions/interaction-effects.ts';
import { LIVE_TOPIC } from '../live/index.ts';
import type { Logger } from '../logger.ts';
import { createBatchedStatement } from '../persistence/batched-statement.ts';
import { insertCopiesSql } from '../persistence/remote-posts.sql.ts';
import type { Invalidations } from '../replicas/invalidations.ts';
import type { PostView } from '../views/index.ts';

/**
 * The one way remote posts enter this node's database (docs/architecture.md "Stored remote
 * content"): what a peer pushed, what the poller and the crawler read, what a page showed. A copy
 * is a `posts` row keyed by its `swarm:{domain}:{postId}` id (`apId`) with its remote author;
 * pages read these rows and never the peer. Newer data from the post's node wins (content,
 * counts, media, card); a copy deleted here stays deleted (deletions arrive as the account
 * statements of docs/protocol.md). Callers hand in only what the post's own node sent: each
 * checks who sent it.
 *
 * A remote person's repost is a copy of its own (the entry's `swarm:` id, the reposter, no text)
 * whose `repostOfId` is the row of the reposted post: a local post or a copy already stored, never
 * one made from what the reposter's node says of it (it may not be that post's node). A repost of
 * a post not held here is not kept; its id is reported so that the caller may fetch the post from
 * its own node.
 */
export interface RemotePostStore {
  /** Stores or refreshes the remote posts among `posts` (local ones are skipped). */
  store(posts: readonly StoredPostInput[], source: StoreSource): Promise<StoreOutcome>;
}

/** Where a copy came from (logs and metrics). */
export type StoreSource = 'push' | 'poll' | 'crawl' | 'read';

export interface StoredPostInput {
  /** The post as its node described it, mapped to a view (`swarm:` id, remote author). */
  view: PostView;
  /** Only pushes to follower nodes carry `followers`; everything read publicly is `public`. */
  visibility?: Extract<PostVisibility, 'public' | 'followers'>;
  /**
   * A repost entry: the view id of the post it repeats (bare for ours, `swarm:…` otherwise).
   * `view` is then the entry itself: its id, the reposter, its time; its text is not kept.
   */
  repostOf?: string;
}

export interface StoreOutcome {
  /** New copies. */
  created: string[];
  /** Copies refreshed with what the node sent now. */
  updated: number;
  /** Of those, copies whose text, mark, images or link changed (not only their counts). */
  changed: number;
  /** Left alone: not remote, another author's id, a copy deleted here, a repost not kept. */
  skipped: number;
  /** Reposted posts not held here (view ids, `swarm:…`), whose reposts were not kept. */
  missingOriginals: string[];
}

/** At most this many posts per call: callers page larger answers. */
export const STORE_BATCH_MAX = 100;

type Tx = Prisma.TransactionClient;

/** A row of `insertCopiesSql`. */
type CopyRow = Record<string, string | null>;

export function createRemotePostStore(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  /**
   * Told when new copies are stored or a copy's text, images or link changed (not for new counts
   * alone): open pages (live updates) recompute what they show, apps' streams send the edit.
   */
  invalidations?: Pick<Invalidations, 'publish'>;
}): RemotePostStore {
  const { db, clock, logger, invalidations } = deps;
  const prisma = db.prisma;

  /**
   * The row a repost entry may point at: a local post or a shown copy that anyone may see
   * (public or unlisted; a followers-only post is not spread by a repost), itself no repost.
   */
  async function repostTarget(viewId: string): Promise<{ id: string } | 'missing' | null> {
    const visible = { deletedAt: null, repostOfId: null } as const;
    if (!viewId.startsWith('swarm:')) {
      if (!uuidSchema.safeParse(viewId).success) return null;
      return prisma.post.findFirst({
        where: { id: viewId, apId: null, visibility: { in: ['public', 'unlisted'] }, ...visible },
        select: { id: true },
      });
    }
    if (!parseSwarmPostId(viewId).ok) return null;
    const copy = await prisma.post.findUnique({
      where: { apId: viewId },
      select: { id: true, deletedAt: true, repostOfId: true, visibility: true, fetchedAt: true },
    });
    // A placeholder (written from a hint, never fetched from its node) is read like a post
    // not held.
    if (!copy || (!copy.fetchedAt && !copy.deletedAt)) return 'missing';
    const shown = !copy.deletedAt && !copy.repostOfId && copy.visibility === 'public';
    return shown ? { id: copy.id } : null;
  }

  /** A post of another node, named by its own node's id and written by one of its users. */
  function byItsOwnNode(view: PostView): boolean {
    const parsed = parseSwarmPostId(view.id);
    return view.isRemote && parsed.ok && view.author.domain === parsed.value.domain;
  }

  /** The view's author as a remote actor row, with what their node now says of them. */
  function upsertAuthor(view: PostView, now: Date) {
    return upsertRemoteActor(
      prisma,
      {
        handle: view.author.handle,
        domain: view.author.domain,
        displayName: view.author.displayName,
        avatarUrl: view.author.avatarUrl ?? '',
        bio: '',
      },
      { now },
    );
  }

  /** A repost entry: its own row by the reposter, pointing at the reposted post's row. */
  async function storeRepost(
    input: StoredPostInput & { repostOf: string },
    now: Date,
  ): Promise<'updated' | 'skipped' | { created: string } | { missing: string }> {
    const { view } = input;
    if (!byItsOwnNode(view)) return 'skipped';
    const target = await repostTarget(input.repostOf);
    if (target === 'missing') return { missing: input.repostOf };
    if (!target) return 'skipped';
    const author = await upsertAuthor(view, now);
    const existing = await prisma.post.findUnique({
      where: { apId: view.id },
      select: { id: true, deletedAt: true, remoteAuthorId: true, repostOfId: true },
    });
    if (existing) {
      const same =
        !existing.deletedAt &&
        existing.remoteAuthorId === author.id &&
        existing.repostOfId === target.id;
      if (!same) return 'skipped';
      await prisma.post.updateMany({
        where: { id: existing.id, deletedAt: null },
        data: { fetchedAt: now },
      });
      return 'updated';
    }
    const created = await prisma.post.createManyAndReturn({
      data: [
        {
          apId: view.id,
          remoteAuthorId: author.id,
          visibility: input.visibility ?? 'public',
          createdAt: new Date(Math.min(Date.parse(view.createdAt), now.getTime())),
          repostOfId: target.id,
          content: '',
          fetchedAt: now,
        },
      ],
      skipDuplicates: true,
      select: { id: true },
    });
    return created[0] ? { created: view.id } : 'skipped';
  }

  /** A new copy, with its author and images: one statement shared with concurrent stores. */
  const insertCopy = createBatchedStatement({
    db,
    ...insertCopiesSql,
    row: (row: CopyRow) => row,
    result: (row) => row.created === true,
  });

  /** The view as a row of `insertCopiesSql` (columns as JSON text). */
  function copyRow(input: StoredPostInput, now: Date): CopyRow {
    const { view } = input;
    const reply = view.replyToId;
    const media = view.media.map(({ url, mimeType, altText }, position) => ({
      url,
      mime_type: mimeType,
      alt_text: altText,
      position,
    }));
    return {
      ap_id: view.id,
      actor_url: formatActorUrl(view.author),
      handle: view.author.handle,
      node_domain: view.author.domain,
      display_name: view.author.displayName,
      avatar_url: view.author.avatarUrl || null,
      visibility: input.visibility ?? 'public',
      // A post dated in the future would sit on top of every list: no later than now.
      created_at: new Date(Math.min(Date.parse(view.createdAt), now.getTime())).toISOString(),
      reply_ap_id: reply?.startsWith('swarm:') ? reply : null,
      reply_local_id: reply && uuidSchema.safeParse(reply).success ? reply : null,
      content: view.content,
      is_nsfw: String(view.isNsfw),
      likes_count: String(view.likesCount),
      reposts_count: String(view.repostsCount),
      replies_count: String(view.repliesCount),
      link_preview_url: view.linkPreview?.url ?? null,
      link_preview_title: view.linkPreview?.title ?? null,
      link_preview_description: view.linkPreview?.description ?? null,
      link_preview_image: view.linkPreview?.image ?? null,
      media: JSON.stringify(media),
      at: now.toISOString(),
    };
  }

  /**
   * One post: a new copy is one statement (insertCopiesSql: the author, the post and its images
   * together, shared with the stores running at the same time); a copy already held is then
   * read and refreshed, its images in a transaction with it when they changed.
   */
  async function storeOne(
    input: StoredPostInput,
    now: Date,
  ): Promise<'updated' | 'changed' | 'skipped' | { created: string }> {
    const { view } = input;
    if (!byItsOwnNode(view)) return 'skipped';
    if (await insertCopy(copyRow(input, now))) return { created: view.id };
    const columns = {
      content: view.content,
      isNsfw: view.isNsfw,
      likesCount: view.likesCount,
      repostsCount: view.repostsCount,
      repliesCount: view.repliesCount,
      linkPreviewUrl: view.linkPreview?.url ?? null,
      linkPreviewTitle: view.linkPreview?.title ?? null,
      linkPreviewDescription: view.linkPreview?.description ?? null,
      linkPreviewImage: view.linkPreview?.image ?? null,
      fetchedAt: now,
    };
    const media = view.media.map(({ url, mimeType, altText }, position) => ({
      url,
      mimeType,
      altText,
      position,
    }));
    const existing = await prisma.post.findUnique({
      where: { apId: view.id },
      select: {
        id: true,
        deletedAt: true,
        remoteAuthor: { select: { actorUrl: true } },
        repostOfId: true,
        content: true,
        isNsfw: true,
        linkPreviewUrl: true,
        media: { select: { url: true, altText: true }, orderBy: { position: 'asc' } },
      },
    });
    // Gone since the insert was tried (a concurrent delete): nothing to refresh.
    if (!existing) return 'skipped';
    // Another author's copy under this id, one deleted here, or a repost: the node cannot
    // take it back, nor make a repost a post.
    if (
      existing.deletedAt ||
      existing.remoteAuthor?.actorUrl !== formatActorUrl(view.author) ||
      existing.repostOfId
    ) {
      return 'skipped';
    }
    const same =
      existing.media.length === media.length &&
      existing.media.every((item, i) => item.url === media[i]!.url);
    const edited =
      !same ||
      existing.media.some((item, i) => item.altText !== media[i]!.altText) ||
      existing.content !== columns.content ||
      existing.isNsfw !== columns.isNsfw ||
      existing.linkPreviewUrl !== columns.linkPreviewUrl;
    const update = (tx: Tx) =>
      tx.post.updateMany({
        // Deleted meanwhile: stays deleted.
        where: { id: existing.id, deletedAt: null },
        data: {
          ...columns,
          ...(input.visibility ? { visibility: input.visibility } : {}),
          // Apps show it as the status's `edited_at`: the wire carries no edit time, so it is
          // when this node saw the change.
          ...(edited ? { editedAt: now } : {}),
        },
      });
    if (same) {
      const { count } = await update(prisma);
      if (count === 0) return 'updated';
    } else {
      await prisma.$transaction(async (tx) => {
        const { count } = await update(tx);
        if (count === 0) return;
        await tx.mediaItem.deleteMany({ where: { postId: existing.id } });
        if (media.length > 0) {
          await tx.mediaItem.createMany({
            data: media.map((item) => ({ postId: existing.id, ...item })),
          });
        }
      });
    }
    return edited ? 'changed' : 'updated';
  }

  return {
    async store(posts, source) {
      const outcome: StoreOutcome = {
        created: [],
        updated: 0,
        changed: 0,
        skipped: 0,
        missingOriginals: [],
      };
      if (posts.length > STORE_BATCH_MAX) {
        throw new Error(`store() takes at most ${STORE_BATCH_MAX} posts, got ${posts.length}`);
      }
      if (posts.length === 0) return outcome;
      const now = clock.now();
      // One post at a time: a bad row (say, a vanished reply target) costs only itself.
      for (const input of posts) {
        const result =
          input.repostOf === undefined
            ? await storeOne(input, now)
            : await storeRepost({ ...input, repostOf: input.repostOf }, now);
        if (result === 'skipped') outcome.skipped += 1;
        else if (result === 'updated' || result === 'changed') {
          outcome.updated += 1;
          if (result === 'changed') outcome.changed += 1;
        } else if ('missing' in result) {
          outcome.skipped += 1;
          if (!outcome.missingOriginals.includes(result.missing)) {
            outcome.missingOriginals.push(result.missing);
          }
        } else outcome.created.push(result.created);
      }
      if (outcome.created.length > 0 || outcome.changed > 0) {
        logger.debug(
          { source, created: outcome.created.length, changed: outcome.changed },
          'remote posts stored',
        );
        await invalidations?.publish(LIVE_TOPIC);
      }
      return outcome;
    },
  };
}
