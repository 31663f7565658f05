import { BLOCKED_MESSAGE, isBlockedBy } from '../views/blocks.ts';
import { randomUUID } from 'node:crypto';
import {
  createPostInputSchema,
  formatTimestamp,
  ok,
  parseWith,
  uuidSchema,
  type CreatePostInput,
  type Result,
} from '@swarm/contract';
import { localActorKey } from '@swarm/db';
import { postViewSelect, rowToPostView, withViewerState } from '../feeds/post-views.ts';
import { excerpt, guessMimeType } from '../interactions/inbound-helpers.ts';
import { NO_SIGNING_KEY } from './signed-interaction.ts';
import { notify, removeRepost } from '../interactions/interaction-effects.ts';
import type { DeliveryView, PostView } from '../views/index.ts';
import {
  actorFields,
  loadActingUser,
  localEffectActor,
  wireUrlMember,
  type ActionDeps,
  type ActingUser,
} from './action-support.ts';
import { commitIfOk, refuse, type Refusal } from '../refusal.ts';
import { createTargetResolver, type PostTarget, type RemotePost } from './action-targets.ts';
import type { AttachedUpload } from '../media/upload.service.ts';
import { queueOriginReplyDeletion } from './origin-reply-deletion.ts';
import { postPushBody, queuePostPushes } from './post-fan-out.ts';
import { findMentions, type Mention } from './post-input.ts';
import { pushedPostOf, type PushedPostSource } from './post-push-body.ts';
import { checkReserved, verifyPostSignature, type PreparedPost } from './post-signature.ts';

/**
 * Writing and deleting posts. A post, its counters, the notifications of local people it
 * mentions or answers, and the rows of its deliveries (a reply to a post on another node, a
 * mention of someone there, the post itself to the nodes of the author's followers:
 * post-fan-out.ts) are one transaction. The deliveries the author waits for (a reply, a
 * mention) are sent right after it; the pushes to followers' nodes are left to the outbox
 * worker, so that no follower's node, slow or down, holds up the answer.
 */

export type { PreparedPost } from './post-signature.ts';

export interface CreatedPost {
  post: PostView;
  deliveries: DeliveryView[];
  /** The nodes of followers the post is queued for (sent by the outbox worker). */
  pushedTo: string[];
}

export interface PostActions {
  /**
   * The object the author's browser signs before `create` (post-signature.ts): the post as it
   * will be pushed, with a reserved id and time; null when the post is not pushed (unlisted).
   */
  prepare(userId: string, input: CreatePostInput): Promise<Result<PreparedPost | null, Refusal>>;
  create(userId: string, input: CreatePostInput): Promise<Result<CreatedPost, Refusal>>;
  /** Soft delete of one's own post (its thread keeps its shape; counters go down). */
  delete(userId: string, postId: string): Promise<Result<{ id: string }, Refusal>>;
}

export function createPostActions(deps: ActionDeps): PostActions {
  const { db, clock, config, delivery, reads, uploads } = deps;
  const prisma = db.prisma;
  const self = config.domain;
  const targets = createTargetResolver(deps);

  /** The parent of a reply: a live local post, or a remote one with its copy. */
  async function parentOf(
    replyToId: string,
    authorAddress: string | null | undefined,
  ): Promise<
    Result<
      { kind: 'local'; postId: string; authorId: string } | ({ kind: 'remote' } & RemotePost),
      Refusal
    >
  > {
    const target = await targets.post(replyToId);
    if (!target.ok) return target;
    if (target.value.kind === 'local') return ok(target.value);
    const remote = target.value as Extract<PostTarget, { kind: 'remote' }>;
    if (!uuidSchema.safeParse(remote.remotePostId).success) {
      // POST /api/swarm/replies names the parent by UUID (the spec's shape).
      return refuse(
        'INVALID_REQUEST',
        `Replies to ${remote.domain} cannot be delivered: its post id is not a UUID.`,
      );
    }
    const copy = await targets.remoteCopy(remote, { authorAddress });
    return copy.ok ? ok({ kind: 'remote', ...copy.value }) : copy;
  }

  function sameMention(a: Mention, b: { handle: string; domain: string | null }) {
    return a.domain === b.domain && a.handle.toLowerCase() === b.handle.toLowerCase();
  }

  async function viewOf(user: ActingUser, postId: string): Promise<PostView> {
    const row = await prisma.post.findUniqueOrThrow({
      where: { id: postId },
      select: postViewSelect,
    });
    const view = rowToPostView(row, self);
    if (!view) throw new Error(`post ${postId} was just written and cannot be shown`);
    const [withViewer] = await withViewerState(
      prisma,
      { id: user.id, handle: user.handle, showNsfw: user.showNsfw },
      [view],
    );
    return withViewer ?? view;
  }

  /** The input read, and its parent found: what `prepare` and `create` both start from. */
  async function begin(userId: string, rawInput: CreatePostInput) {
    const loaded = await loadActingUser(db, userId);
    if (!loaded.ok) return loaded;
    const parsed = parseWith(createPostInputSchema, rawInput);
    if (!parsed.ok)
      return refuse('INVALID_REQUEST', `This post cannot be published: ${parsed.reason}.`);
    const input = parsed.value;
    const parent = input.replyToId
      ? await parentOf(input.replyToId, input.replyToAuthorAddress)
      : null;
    if (parent && !parent.ok) return parent;
    return ok({ user: loaded.value, input, replyTo: parent?.value ?? null });
  }

  type Parent = NonNullable<Extract<Awaited<ReturnType<typeof begin>>, { ok: true }>['value']>;

  /** What a push of the post is built from; null when it is not pushed (unlisted). */
  function pushSource(
    { input, replyTo }: Pick<Parent, 'input' | 'replyTo'>,
    id: string,
    createdAt: Date,
    media: PushedPostSource['media'],
  ): PushedPostSource | null {
    if (input.visibility === 'unlisted') return null;
    return {
      id,
      content: input.content,
      createdAt,
      isNsfw: input.isNsfw,
      visibility: input.visibility,
      replyToId: !replyTo ? null : replyTo.kind === 'local' ? replyTo.postId : replyTo.apId,
      media,
      linkPreview: input.linkPreview
        ? {
            url: input.linkPreview.url,
            title: input.linkPreview.title || null,
            description: input.linkPreview.description || null,
            image: input.linkPreview.image ?? null,
          }
        : null,
    };
  }

  return {
    async prepare(userId, rawInput) {
      const begun = await begin(userId, rawInput);
      if (!begun.ok) return begun;
      const { user, input } = begun.value;
      if (!user.did) return refuse('INVALID_REQUEST', NO_SIGNING_KEY);
      const uploadIds = input.media.flatMap((item) => (item.uploadId ? [item.uploadId] : []));
      const free =
        uploadIds.length > 0 && uploads ? await uploads.peek(user.id, uploadIds) : new Map();
      const media: PushedPostSource['media'][number][] = [];
      for (const item of input.media) {
        const upload = item.uploadId ? free.get(item.uploadId) : undefined;
        if (item.uploadId && !upload) {
          return refuse(
            'INVALID_REQUEST',
            'A photo of this post is not available any more (already posted, or removed after a day); attach it again.',
            { field: 'media' },
          );
        }
        const url = upload?.url ?? item.url!;
        const mimeType = upload?.mimeType ?? (item.mimeType || guessMimeType(url));
        media.push({ url, mimeType, altText: item.altText });
      }
      const source = pushSource(begun.value, randomUUID(), clock.now(), media);
      if (!source) return ok(null);
      return ok({ action: 'post', targetDomain: self, body: pushedPostOf(source) });
    },

    async create(userId, rawInput) {
      const begun = await begin(userId, rawInput);
      if (!begun.ok) return begun;
      const { user, input, replyTo } = begun.value;
      const me = `${user.handle}@${self}`;
      if (replyTo?.kind === 'local' && (await isBlockedBy(prisma, replyTo.authorId, me))) {
        return refuse('FORBIDDEN', BLOCKED_MESSAGE);
      }

      // Who the parent's notification or reply delivery reaches already gets no mention on top.
      const parentAuthor =
        replyTo?.kind === 'remote' && replyTo.author
          ? { handle: replyTo.author.handle, domain: replyTo.author.domain }
          : null;
      const mentions = findMentions(input.content, self).filter(
        (m) => !(parentAuthor && sameMention(m, parentAuthor)),
      );
      const localHandles = mentions.filter((m) => m.domain === null).map((m) => m.handle);
      const mentioned =
        localHandles.length === 0
          ? []
          : await prisma.user.findMany({
              // People who blocked the author are not told (issue #15).
              where: {
                handle: { in: localHandles },
                blocks: { none: { blockedAddress: { equals: me, mode: 'insensitive' } } },
              },
              select: { id: true },
            });
      const remoteMentions = mentions.filter(
        (m): m is Mention & { domain: string } => m.domain !== null,
      );

      const now = clock.now();
      // A signed post keeps the id and time its author signed.
      const reserved = input.signed ? await checkReserved(prisma, user, input.signed, now) : null;
      if (reserved && !reserved.ok) return reserved;
      // An app's post: signed by the key of the person's delegation, which must allow posting.
      const delegationId = input.signed?.delegationId;
      const delegated = delegationId
        ? deps.delegations
          ? await deps.delegations.usable(user.id, delegationId, 'post')
          : refuse('FORBIDDEN', 'This node does not sign for apps.')
        : null;
      if (delegated && !delegated.ok) return delegated;
      const postId = reserved?.value.id ?? randomUUID();
      const createdAt = reserved?.value.createdAt ?? now;
      const actor = localEffectActor(user);
      const text = excerpt(input.content);
      const uploadIds = input.media.flatMap((item) => (item.uploadId ? [item.uploadId] : []));
      if (uploadIds.length > 0 && !uploads) {
        return refuse('INVALID_REQUEST', 'This node does not take uploaded photos here.');
      }
      /** Media by URL as given; uploads as this node stores them. */
      const mediaRows = (taken: Map<string, AttachedUpload>) =>
        input.media.map((item, position) => {
          const upload = item.uploadId ? taken.get(item.uploadId) : undefined;
          const url = upload?.url ?? item.url!;
          return {
            postId,
            url,
            altText: item.altText,
            mimeType: upload?.mimeType ?? (item.mimeType || guessMimeType(url)),
            blurhash: upload?.blurhash ?? null,
            position,
            createdAt: now,
          };
        });
      let mediaUrls: string[] = [];
      let pushedTo: string[] = [];
      const written = await commitIfOk(db, async (tx): Promise<Result<string[], Refusal>> => {
        // A signed post's id comes from the browser: a concurrent second use of it is skipped
        // (ON CONFLICT DO NOTHING) and refused, not a unique-key error.
        const inserted = await tx.post.createMany({
          skipDuplicates: true,
          data: {
            id: postId,
            authorId: user.id,
            content: input.content,
            isNsfw: input.isNsfw,
            replyToId: replyTo
              ? replyTo.kind === 'local'
                ? replyTo.postId
                : replyTo.copyId
              : null,
            linkPreviewUrl: input.linkPreview?.url ?? null,
            linkPreviewTitle: input.linkPreview?.title || null,
            linkPreviewDescription: input.linkPreview?.description || null,
            linkPreviewImage: input.linkPreview?.image ?? null,
            visibility: input.visibility,
            createdAt,
            updatedAt: now,
          },
        });
        if (inserted.count !== 1) {
          return refuse(
            'INVALID_REQUEST',
            'The signed post has an id already used: prepare it again.',
          );
        }
        // The uploads are taken in this transaction: a refused post leaves them free.
        const taken =
          uploadIds.length > 0
            ? await uploads!.attachToPost(tx, { ownerId: user.id, postId, uploadIds, at: now })
            : ok(new Map<string, AttachedUpload>());
        if (!taken.ok) return taken;
        const media = mediaRows(taken.value);
        mediaUrls = media.map((m) => m.url);
        if (media.length > 0) await tx.mediaItem.createMany({ data: media });
        const author = await tx.user.update({
          where: { id: user.id },
          data: { postsCount: { increment: 1 } },
          select: { isNsfw: true },
        });
        const source = pushSource(begun.value, postId, createdAt, media);
        const pushed = source ? pushedPostOf(source) : null;
        if (input.signed) {
          if (!pushed) {
            return refuse('INVALID_REQUEST', 'An unlisted post is not pushed: send it unsigned.');
          }
          const valid = await verifyPostSignature(
            user,
            self,
            pushed,
            input.signed.signature,
            delegated?.value.appKeyDid,
          );
          if (!valid.ok) return valid;
          await tx.post.update({
            where: { id: postId },
            data: {
              postSignature: input.signed.signature,
              postDelegation: delegated ? JSON.stringify(delegated.value.document) : null,
            },
          });
        }
        const deliveries: string[] = [];
        let notified: string | null = null;
        if (replyTo) {
          const parentRow = replyTo.kind === 'local' ? replyTo.postId : replyTo.copyId;
          await tx.post.update({
            where: { id: parentRow },
            data: { repliesCount: { increment: 1 } },
          });
          if (replyTo.kind === 'local') {
            await notify(tx, {
              recipientId: replyTo.authorId,
              type: 'reply',
              actor,
              at: now,
              postId,
              content: text,
            });
            notified = replyTo.authorId;
          } else {
            deliveries.push(
              await delivery.enqueue(tx, {
                targetDomain: replyTo.domain,
                kind: 'reply',
                createdById: user.id,
                interactionId: postId,
                body: {
                  postId: replyTo.remotePostId,
                  reply: {
                    id: postId,
                    content: input.content,
                    createdAt: formatTimestamp(now),
                    author: {
                      handle: user.handle,
                      displayName: user.displayName,
                      ...wireUrlMember('avatarUrl', user.avatarUrl),
                    },
                    nodeDomain: self,
                    mediaUrls,
                  },
                },
              }),
            );
          }
        }
        for (const { id } of mentioned) {
          if (id === notified) continue;
          await notify(tx, {
            recipientId: id,
            type: 'mention',
            actor,
            at: now,
            postId,
            content: text,
          });
        }
        for (const mention of remoteMentions) {
          const interactionId = randomUUID();
          deliveries.push(
            await delivery.enqueue(tx, {
              targetDomain: mention.domain,
              kind: 'mention',
              createdById: user.id,
              interactionId,
              body: {
                mentionedHandle: mention.handle,
                mention: {
                  ...actorFields(user, self),
                  postId,
                  postContent: input.content,
                  interactionId,
                  timestamp: formatTimestamp(now),
                },
              },
            }),
          );
        }
        if (pushed) {
          const body = postPushBody({
            post: pushed,
            author: { ...user, isNsfw: author.isNsfw },
            self,
            at: now,
            postSignature: input.signed?.signature ?? null,
            postDelegation: delegated?.value.document ?? null,
          });
          pushedTo = await queuePostPushes(tx, delivery, {
            authorId: user.id,
            postId,
            self,
            body,
            delegated: Boolean(delegated),
          });
        }
        return ok(deliveries);
      });
      if (!written.ok) return written;
      const deliveries = await delivery.attempt(written.value);
      // The nodes told of it count it now (a reply): reads ask them again, not the cache.
      for (const domain of new Set(deliveries.map((d) => d.targetDomain))) {
        reads?.reader.forget(domain);
      }
      return ok({ post: await viewOf(user, postId), deliveries, pushedTo });
    },

    async delete(userId, postId) {
      if (!uuidSchema.safeParse(postId).success) {
        return refuse('POST_NOT_FOUND', `There is no post ${postId}.`);
      }
      const post = await prisma.post.findFirst({
        where: { id: postId, deletedAt: null, apId: null },
        select: { id: true, authorId: true, replyToId: true, repostOfId: true },
      });
      if (!post) return refuse('POST_NOT_FOUND', `There is no post ${postId}.`);
      if (post.authorId !== userId) {
        return refuse('FORBIDDEN', 'Only its author can delete a post.');
      }
      const now = clock.now();
      let discarded = false;
      let told: string | null = null;
      await commitIfOk(db, async (tx) => {
        // Counted by what this statement changed: a concurrent delete undoes the counters once.
        const { count } = await tx.post.updateMany({
          where: { id: post.id, deletedAt: null },
          data: { deletedAt: now, updatedAt: now },
        });
        if (count === 0) return ok(undefined);
        if (post.repostOfId) {
          // Deleting a repost takes the repost back, as an unrepost here does (its post too).
          await removeRepost(tx, { postId: post.repostOfId, actorKey: localActorKey(userId) });
          return ok(undefined);
        }
        await tx.user.updateMany({
          where: { id: userId, postsCount: { gt: 0 } },
          data: { postsCount: { decrement: 1 } },
        });
        if (post.replyToId) {
          await tx.post.updateMany({
            where: { id: post.replyToId, repliesCount: { gt: 0 } },
            data: { repliesCount: { decrement: 1 } },
          });
          const reply = { id: post.id, replyToId: post.replyToId, authorId: userId };
          told = await queueOriginReplyDeletion(tx, { delivery, self }, reply);
        }
        // Its pushes not sent yet go nowhere (one sent already is undone by the deletion's
        // statement to the nodes holding something of the author).
        await delivery.cancelPending(tx, post.id, 'post');
        // Notifications about it would lead to nothing.
        await tx.notification.deleteMany({
          where: { postId: post.id, type: { in: ['reply', 'mention'] } },
        });
        // Its photos go with it: the files are removed right after, or by the next sweep.
        if (uploads && (await uploads.discardForPost(tx, post.id, now)) > 0) discarded = true;
        return ok(undefined);
      });
      if (discarded) uploads?.sweepSoon();
      if (told) await delivery.attempt([told]);
      return ok({ id: post.id });
    },
  };
}
