import { formatActorUrl } from '@swarm/contract';
import type { Db } from '@swarm/db';
import { createBatchedStatement, runBatchedOnce } from '../persistence/batched-statement.ts';
import {
  postInteractionSql,
  type PostInteraction,
  type RemoteActorFields,
} from '../persistence/interactions.sql.ts';
import { actorKeyOf, type EffectActor, type Tx } from './interaction-effects.ts';

/** Who likes or reposts: a local user, or another node's actor as its request describes them. */
export type PostInteractionActor =
  | { local: Extract<EffectActor, { kind: 'local' }> }
  | {
      remote: RemoteActorFields;
      /** A did proved by the request's signature, to pin (over `replaces`, or none). */
      pin?: { did: string; replaces: string | null } | undefined;
    };

/** A like or a repost of a post of this node (its own, or its copy of another node's). */
export interface PostInteractionInput {
  postId: string;
  actor: PostInteractionActor;
  /** The action's id (another node's, or a local action sent to one); null for a local-only one. */
  interactionId: string | null;
  at: Date;
  /** Local reposts: the post row that shows the repost in the reposter's feed. */
  repostPostId?: string | undefined;
  /** Remote reposts: the repost's id on the actor's node. */
  remoteRepostId?: string | undefined;
}

export interface PostInteractionOutcome {
  /** The post exists, is not deleted and its author is shown. */
  found: boolean;
  /** Another node's actor whom the post's author blocked: nothing was written. */
  blocked: boolean;
  /** The like or repost is new (false: this actor had done it already). */
  added: boolean;
}

function rowOf(input: PostInteractionInput): Record<string, string | null> {
  const { actor } = input;
  const common = {
    post_id: input.postId,
    interaction_id: input.interactionId,
    remote_repost_id: input.remoteRepostId ?? null,
    repost_post_id: input.repostPostId ?? null,
    at: input.at.toISOString(),
  };
  if ('local' in actor) {
    const user = actor.local;
    return {
      ...common,
      actor_url: actorKeyOf(user),
      user_id: user.userId,
      handle: user.handle,
      node_domain: null,
      display_name: user.displayName,
      avatar_url: user.avatarUrl || null,
      did: null,
      replaces: null,
    };
  }
  const remote = actor.remote;
  return {
    ...common,
    actor_url: formatActorUrl(remote),
    user_id: null,
    handle: remote.handle,
    node_domain: remote.domain,
    display_name: remote.displayName,
    avatar_url: remote.avatarUrl || null,
    did: actor.pin?.did ?? null,
    replaces: actor.pin?.replaces ?? null,
  };
}

const outcomeOf = (row: Record<string, unknown>): PostInteractionOutcome => ({
  found: row.found === true,
  blocked: row.blocked === true,
  added: row.added === true,
});

/**
 * The one path of a like or a repost onto a post of this node, for a local user's action and
 * for another node's request alike: row, counter, the author's notification and idempotency are
 * one statement (`postInteractionSql`). Given a transaction it runs inside it (a local action,
 * committed with its outbox row); without one, requests arriving together share a statement
 * (the busiest writes a node receives).
 */
export function createPostInteractions(db: Db) {
  const spec = (kind: PostInteraction) => ({
    ...postInteractionSql[kind],
    row: rowOf,
    result: outcomeOf,
  });
  const batched: Record<
    PostInteraction,
    (input: PostInteractionInput) => Promise<PostInteractionOutcome>
  > = {
    like: createBatchedStatement({ db, ...spec('like') }),
    repost: createBatchedStatement({ db, ...spec('repost') }),
  };
  return function applyToPost(
    kind: PostInteraction,
    input: PostInteractionInput,
    tx?: Tx,
  ): Promise<PostInteractionOutcome> {
    return tx ? runBatchedOnce(tx, spec(kind), input) : batched[kind](input);
  };
}

export type ApplyToPost = ReturnType<typeof createPostInteractions>;
