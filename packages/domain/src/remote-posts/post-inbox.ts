import {
  formatActorUrl,
  isAcceptableInteractionTime,
  ok,
  parseDomain,
  type PostPushAnswer,
  type Result,
} from '@swarm/contract';
import type { PeerServiceDeps } from '../peers/service-deps.ts';
import { createBatchedStatement } from '../persistence/batched-statement.ts';
import { inboxLookUpSql } from '../persistence/remote-posts.sql.ts';
import { refuse, type Refusal } from '../refusal.ts';
import { createUserDids } from '../security/user-dids.ts';
import { createDelegationChecks } from '../delegations/index.ts';
import { createInboxAuthorSignature, type InboxDidPin } from './inbox-author-signature.ts';
import { viewPostId, viewPostRef } from '../feeds/post-views.ts';
import { pushedPostView, type AnyPostPush } from './inbox-post-view.ts';
import { POLL_POLICY } from './poller-policy.ts';
import type { RemotePostStore } from './remote-post-store.ts';

/**
 * The receiving end of post delivery (`POST /api/swarm/inbox`, docs/protocol.md "Post
 * delivery"): a node hands the nodes of its users' followers each new post, once per node. The
 * gateway has checked the body size, the node signature, the block list and the per-node rate
 * limit, and parsed the body in the sender's dialect; this checks the rest in the documented
 * order and writes only when all pass, through the remote post store (the one way remote posts
 * enter the database). A repost is kept as the reposter's entry pointing at the reposted post
 * when that post is held here; the push says nothing of that post that could be stored (the
 * sender may not be its node): one not held makes the reposter's next poll come sooner, which
 * reads it from its own node.
 */

export type InboxRefusal = Refusal<
  'FORBIDDEN' | 'INVALID_SIGNATURE' | 'NOT_FOLLOWED' | 'RATE_LIMITED'
>;

export interface InboxPush {
  /** The verified sender (node signature: headers, or the origin's body signature). */
  sourceDomain: string;
  profile: 'swarm' | 'origin';
  push: AnyPostPush;
  /** The `post` member exactly as received: what the author's signature covers. */
  rawPost: unknown;
  /** `postDelegation` exactly as received, when an app posted (docs/protocol.md "App delegations"). */
  rawDelegation?: unknown;
}

export interface PostInbox {
  receive(input: InboxPush): Promise<Result<PostPushAnswer, InboxRefusal>>;
}

export const INBOX_MESSAGES = {
  created: 'Post received',
  updated: 'Post refreshed',
  repost: 'Repost received',
  repostRefreshed: 'Repost refreshed',
  repostNotHeld: 'Repost received; not kept: the reposted post is not held here yet',
  repostNotKept: 'Repost received; not kept',
  removed: 'Post removed here; not kept',
} as const;

export interface PostInboxDeps extends PeerServiceDeps {
  store: RemotePostStore;
}

export function createPostInbox(deps: PostInboxDeps): PostInbox {
  const { db, clock, logger, config, peers, store } = deps;
  const prisma = db.prisma;
  const self = config.domain;
  const authorSignature = createInboxAuthorSignature({
    userDids: createUserDids({ peers, clock }),
    delegations: createDelegationChecks({ peers, clock }),
    logger,
  });

  /**
   * What this node holds of the post and its author: the copy, a local follower, the did. One
   * statement, shared with the pushes arriving at the same time.
   */
  const lookUp = createBatchedStatement({
    db,
    ...inboxLookUpSql,
    row: (at: { postId: string; actorUrl: string }) => ({
      ap_id: at.postId,
      actor_url: at.actorUrl,
    }),
    result: (row) => ({
      copy: row.held
        ? {
            likesCount: Number(row.likes_count),
            repostsCount: Number(row.reposts_count),
            repliesCount: Number(row.replies_count),
            authorUrl: (row.copy_author as string | null) ?? null,
          }
        : null,
      followed: row.followed === true,
      pinned: (row.did as string | null) ?? null,
    }),
  });

  /** Stores a did the push's signature proved, over exactly the one that was checked. */
  async function pinDid(actorUrl: string, pin: InboxDidPin | undefined) {
    if (!pin) return;
    await prisma.remoteActor.updateMany({
      where: { actorUrl, did: pin.replaces },
      data: { did: pin.did, didPinnedAt: clock.now() },
    });
  }

  async function receive(input: InboxPush): Promise<Result<PostPushAnswer, InboxRefusal>> {
    const { push, profile } = input;
    const { nodeDomain } = push;
    // 1. Only the author's own node pushes their posts.
    const source = parseDomain(input.sourceDomain);
    if (!source.ok || source.value !== nodeDomain) {
      return refuse(
        'FORBIDDEN',
        `A node may only push its own users' posts: ${input.sourceDomain} pushed a post of ${nodeDomain}.`,
      );
    }
    // 2. The push's time: outbox retries keep their body for up to 7 days.
    const now = clock.now();
    if (!isAcceptableInteractionTime(push.timestamp, now)) {
      return refuse(
        'INVALID_SIGNATURE',
        'The push timestamp is stale (over 7 days old) or in the future (over 5 minutes ahead).',
      );
    }
    // 3. Someone here asked for it: a local follower of the author, or a copy to refresh.
    const author = { handle: push.author.handle, domain: nodeDomain };
    const actorUrl = formatActorUrl(author);
    const postId = viewPostId(nodeDomain, push.post.id, self);
    const held = await lookUp({ postId, actorUrl });
    if (held.copy && held.copy.authorUrl !== actorUrl) {
      return refuse('FORBIDDEN', `The post ${postId} here is not by ${author.handle}.`);
    }
    if (!held.followed && !held.copy) {
      return refuse(
        'NOT_FOLLOWED',
        `Nobody on ${self} follows ${author.handle}@${nodeDomain}: posts are pushed only to the nodes of the author's followers.`,
      );
    }
    // 4. The author's own signature (required once their did is pinned here).
    const signed = await authorSignature.check({
      author,
      pinned: held.pinned,
      profile,
      rawPost: input.rawPost,
      postSignature: 'postSignature' in push ? push.postSignature : undefined,
      claimedDid: 'did' in push.author ? push.author.did : undefined,
      rawDelegation: profile === 'swarm' ? input.rawDelegation : undefined,
    });
    if (!signed.ok) return signed;

    const visibility = 'visibility' in push.post ? push.post.visibility : 'public';
    // All checks passed.
    if (push.post.repostOfId) {
      return receiveRepost(push, push.post.repostOfId, { postId, actorUrl, visibility }, signed);
    }
    const counts = ('counts' in push ? push.counts : undefined) ??
      held.copy ?? { likesCount: 0, repostsCount: 0, repliesCount: 0 };
    const view = pushedPostView(
      push,
      {
        likesCount: counts.likesCount,
        repostsCount: counts.repostsCount,
        repliesCount: counts.repliesCount,
      },
      self,
    );
    const outcome = await store.store([{ view, visibility }], 'push');
    if (outcome.skipped > 0) return ok(answer(INBOX_MESSAGES.removed, postId));
    await pinDid(actorUrl, signed.value);
    if (outcome.created.length > 0) {
      // An app's post names the delegation it was taken under, so an operator can trace it.
      const delegation =
        profile === 'swarm' && typeof input.rawDelegation === 'object' && input.rawDelegation
          ? String((input.rawDelegation as Record<string, unknown>).id)
          : undefined;
      logger.info(
        { peer: nodeDomain, post: postId, visibility, ...(delegation ? { delegation } : {}) },
        'pushed post stored',
      );
      return ok(answer(INBOX_MESSAGES.created, postId));
    }
    return ok(answer(INBOX_MESSAGES.updated, postId));
  }

  /** A repost: its entry kept when the reposted post is held here (see above). */
  async function receiveRepost(
    push: AnyPostPush,
    repostOfId: string,
    at: { postId: string; actorUrl: string; visibility: 'public' | 'followers' },
    signed: { value: InboxDidPin | undefined },
  ): Promise<Result<PostPushAnswer, InboxRefusal>> {
    const { postId, actorUrl, visibility } = at;
    const zero = { likesCount: 0, repostsCount: 0, repliesCount: 0 };
    const repostOf = viewPostRef(repostOfId, push.nodeDomain, self);
    if (!repostOf) return ok(answer(INBOX_MESSAGES.repostNotKept, postId));
    const view = pushedPostView(push, zero, self);
    const outcome = await store.store([{ view, visibility, repostOf }], 'push');
    if (outcome.missingOriginals.length > 0) {
      // Read soon (bounded by the poller's shortest interval), never at once per push.
      const soon = new Date(clock.now().getTime() + POLL_POLICY.minMs);
      await prisma.remoteAuthorPoll.updateMany({
        where: { remoteActor: { actorUrl }, nextPollAt: { gt: soon } },
        data: { nextPollAt: soon },
      });
      return ok(answer(INBOX_MESSAGES.repostNotHeld, postId));
    }
    if (outcome.skipped > 0) return ok(answer(INBOX_MESSAGES.repostNotKept, postId));
    await pinDid(actorUrl, signed.value);
    if (outcome.created.length > 0) {
      logger.info({ peer: push.nodeDomain, post: postId, repostOf }, 'pushed repost stored');
      return ok(answer(INBOX_MESSAGES.repost, postId));
    }
    return ok(answer(INBOX_MESSAGES.repostRefreshed, postId));
  }

  return { receive };
}

const answer = (message: string, postId: string): PostPushAnswer => ({
  success: true,
  message,
  postId,
});
