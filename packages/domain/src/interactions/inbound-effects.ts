import { err, formatActorUrl, ok, uuidSchema, type Result } from '@swarm/contract';
import {
  type PostInteraction,
  type RemoteActorFields,
  type RemoteActorUpsertOptions,
} from '../persistence/interactions.sql.ts';
import { remoteEffectActor, upsertRemoteActor, type Tx } from './interaction-effects.ts';
import type { InboundInteractionDeps, InboundInteractionError } from './inbound-types.ts';
import type { Actor, DidPin } from './inbound-verification.ts';
import { createPostInteractions } from './post-interaction.ts';
import { commitIfOk as commitInDb } from '../refusal.ts';
import { ACCOUNT_FLAGS_SELECT, SHOWN_POST_AUTHOR, isHiddenAccount } from '../views/visibility.ts';
import { isBlockedBy } from '../views/blocks.ts';

/** 403 for someone the local user blocked: the same words whatever they tried. */
export const blockedRefusal = (): InboundInteractionError => ({
  code: 'FORBIDDEN',
  message: 'This user of this node does not accept interactions from you.',
});

// The effects of an admitted inbound interaction, in a transaction: the idempotency ledger, the
// actor's stored profile and pinned did, the post or user acted on; likes and reposts go the
// one path of local and remote ones (post-interaction.ts).

/** What `applyOnPost` writes. */
export interface PostEffects {
  postId: string;
  actor: RemoteActorFields;
  interactionId: string;
  /** A did proved by the request's signature, to pin. */
  pin?: DidPin | undefined;
  /** Reposts: the repost's id on the actor's node. */
  remoteRepostId?: string | undefined;
}

/** What `applyOnPost` found: the post (live, its author shown), and whether they blocked the actor. */
export interface OnPost {
  found: boolean;
  blocked: boolean;
}

const NO_POST: OnPost = { found: false, blocked: false };

export function createInboundEffects(deps: Pick<InboundInteractionDeps, 'db' | 'clock'>) {
  const { db, clock } = deps;

  /** The effects' transaction: a refusal returned by `work` rolls back the claim and the rest. */
  const commitIfOk = <R extends Result<unknown, InboundInteractionError>>(
    work: (tx: Tx) => Promise<R>,
  ) => commitInDb(db, work);

  /**
   * The idempotency ledger, inside the effects' transaction: a concurrent duplicate waits on the
   * unique key and then sees the row (ON CONFLICT DO NOTHING), so effects apply at most once.
   */
  async function claim(tx: Tx, domain: string, interactionId: string, kind: string) {
    const { count } = await tx.inboundInteraction.createMany({
      data: [{ actorNodeDomain: domain, interactionId, kind, receivedAt: clock.now() }],
      skipDuplicates: true,
    });
    return count === 1;
  }

  /** Insert-or-refresh the actor's cached profile; pins a proven did. */
  async function upsertActor(tx: Tx, actor: Actor, pin: DidPin | undefined) {
    const stored = await upsertRemoteActor(tx, actor, pinOptions(pin));
    return remoteEffectActor(actor, stored);
  }

  function pinOptions(pin: DidPin | undefined): RemoteActorUpsertOptions {
    return { now: clock.now(), didToPin: pin?.did, replaces: pin?.replaces };
  }

  /**
   * Stores a proven did: only over the did that was checked (none, or the one that failed), so
   * concurrent requests cannot pin an older answer over a newer one.
   */
  async function pinDid(tx: Tx, actor: Actor, pin: DidPin | undefined) {
    if (!pin) return;
    await tx.remoteActor.updateMany({
      where: { actorUrl: formatActorUrl(actor), did: pin.replaces },
      data: { did: pin.did, didPinnedAt: clock.now() },
    });
  }

  function postNotFound(postId: string): InboundInteractionError {
    return { code: 'POST_NOT_FOUND', message: `No post ${postId} on this node.` };
  }

  async function findPost(
    tx: Tx,
    postId: string,
  ): Promise<Result<{ id: string; authorId: string | null }, InboundInteractionError>> {
    const post = await tx.post.findFirst({
      where: { id: postId, deletedAt: null, ...SHOWN_POST_AUTHOR },
      select: { id: true, authorId: true },
    });
    return post ? ok(post) : err(postNotFound(postId));
  }

  /**
   * Refused with 403 when the local user `ownerId` blocked the actor (issue #15): their follows,
   * replies, mentions, likes and reposts reach them no more. Inside the transaction: the claim
   * rolls back, so a retry after an unblock goes through.
   */
  async function refuseIfBlocked(
    tx: Tx,
    ownerId: string | null,
    actor: Actor,
  ): Promise<Result<void, InboundInteractionError>> {
    if (!ownerId) return ok(undefined);
    const blocked = await isBlockedBy(tx, ownerId, `${actor.handle}@${actor.domain}`);
    return blocked ? err(blockedRefusal()) : ok(undefined);
  }

  const applyToPost = createPostInteractions(db);

  /**
   * A like or a repost, through the one path of local and remote ones (post-interaction.ts),
   * which also refuses an actor the post's author blocked. An id that is no post id of ours
   * names no post (the statement's column is a uuid).
   */
  const onPost =
    (kind: PostInteraction) =>
    async ({ postId, actor, interactionId, pin, remoteRepostId }: PostEffects) => {
      if (!uuidSchema.safeParse(postId).success) return NO_POST;
      const outcome = await applyToPost(kind, {
        postId,
        actor: { remote: actor, pin },
        interactionId,
        at: clock.now(),
        remoteRepostId,
      });
      return { found: outcome.found, blocked: outcome.blocked };
    };

  const applyOnPost: Record<PostInteraction, (effects: PostEffects) => Promise<OnPost>> = {
    like: onPost('like'),
    repost: onPost('repost'),
  };

  async function findUser(tx: Tx, handle: string) {
    // Local handles are stored lower-case; peers may send any case.
    const user = await tx.user.findUnique({
      where: { handle: handle.toLowerCase() },
      select: { id: true, ...ACCOUNT_FLAGS_SELECT },
    });
    if (!user || isHiddenAccount(user)) {
      return err<InboundInteractionError>({
        code: 'USER_NOT_FOUND',
        message: `No user ${handle} on this node.`,
      });
    }
    return ok(user);
  }

  return {
    commitIfOk,
    claim,
    upsertActor,
    pinDid,
    postNotFound,
    findPost,
    applyOnPost,
    findUser,
    refuseIfBlocked,
  };
}
