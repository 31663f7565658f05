import { err, ok, uuidSchema, type Result } from '@swarm/contract';
import { createPostInteractions, type ApplyToPost } from '../interactions/post-interaction.ts';
import { BLOCKED_MESSAGE, isBlockedBy } from '../views/blocks.ts';
import { commitIfOk, refuse, type Refusal, type Tx } from '../refusal.ts';
import type { ActionResult } from '../views/index.ts';
import { loadActingUser, localKey, type ActionDeps, type ActingUser } from './action-support.ts';
import { createTargetResolver, type PostTarget, type TargetResolver } from './action-targets.ts';
import {
  createSignedInteractions,
  type CheckedSigned,
  type RemoteTarget,
  type AppSigner,
  type SignedBody,
  type SignedInteractions,
  type SignedKind,
} from './signed-interaction.ts';

export interface InteractionInput {
  postId: string;
  /** Required when the post lives on another node. */
  signed?: SignedBody | null;
  /**
   * The post's author as the page showed it (`bob@beta.example`): used only for a first action
   * on a remote post whose node cannot be asked now and that no read here just showed.
   */
  authorAddress?: string | null;
}

/** A follow or unfollow: the person's address; `sign` when an app asks (signed-interaction.ts). */
export interface PersonInput {
  address: string;
  sign?: AppSigner | undefined;
}

export const nothing: ActionResult = { delivery: null };

/**
 * An idempotent repeat (already liked, reposted, followed), carrying the earlier action's
 * interaction id. Not a refusal: it is a failed result only so that the transaction rolls back
 * what it wrote; `settled` answers it with the earlier action's delivery, so it never reaches an
 * edge.
 */
export interface Repeat {
  repeatOf: string | null;
}

export function repeated(existing: { interactionId: string | null } | null): {
  ok: false;
  reason: Repeat;
} {
  return err({ repeatOf: existing?.interactionId ?? null });
}

/**
 * What every interaction action shares: who acts on what, the signed-body checks, and how an
 * action on another node is recorded, queued and answered. Each action is a file of its own.
 */
export interface InteractionKit extends SignedInteractions {
  deps: ActionDeps;
  self: string;
  targets: TargetResolver;
  /** A like or repost onto a post here: the same path as another node's (post-interaction.ts). */
  applyToPost: ApplyToPost;
  /** The action's user and target post, with the rule that remote ids must be UUIDs (spec). */
  begin(
    userId: string,
    postId: string,
  ): Promise<Result<{ user: ActingUser; target: PostTarget }, Refusal>>;
  /** The action's user and the person it is about (`resolve` finds them from the address). */
  beginOnPerson<P>(
    userId: string,
    resolve: () => Promise<Result<P, Refusal>>,
  ): Promise<Result<{ user: ActingUser; followee: P }, Refusal>>;
  /** The answer to an action on `domain`: the new delivery attempted, or a repeat's earlier one. */
  settled(
    domain: string,
    outcome: Result<string | null, Repeat>,
  ): Promise<Result<ActionResult, Refusal>>;
  /**
   * An undo (unlike, unrepost, unfollow) of an action whose own delivery is `undoneInteractionId`: when
   * that delivery never left this node it is cancelled and nothing is sent; otherwise `send`.
   */
  undoRemotely(
    tx: Tx,
    undoneInteractionId: string | null,
    send: () => Promise<string | null>,
  ): Promise<string | null>;
  /** The outbox row of a signed action, exactly as the user signed it. */
  enqueueSigned(
    tx: Tx,
    kind: SignedKind,
    user: ActingUser,
    target: RemoteTarget,
    checked: { raw: Record<string, unknown>; interactionId: string },
  ): Promise<string>;
  /** The user's like or repost record on a post, with its interaction id. */
  recordOf(
    tx: Tx,
    kind: 'like' | 'repost',
    postId: string,
    actorKey: string,
  ): Promise<{ interactionId: string | null } | null>;
  /**
   * A like or repost of another node's post: the signed body checked, the post's copy here
   * found or made, then `record` on the copy and the outbox row in one transaction (when
   * `record` finds it done already, a repeat: answered with the earlier action's delivery).
   */
  onRemoteCopy(
    kind: 'like' | 'repost',
    user: ActingUser,
    target: RemoteTarget,
    input: InteractionInput,
    record: (tx: Tx, copyId: string, checked: Omit<CheckedSigned, 'raw'>) => Promise<boolean>,
  ): Promise<Result<ActionResult, Refusal>>;
}

export function createInteractionKit(deps: ActionDeps): InteractionKit {
  const { db, clock, config, delivery, reads } = deps;
  const prisma = db.prisma;
  const self = config.domain;
  const targets = createTargetResolver(deps);
  const signed = createSignedInteractions({
    db,
    clock,
    self,
    peers: deps.peers,
    delegations: deps.delegations,
  });
  const applyToPost = createPostInteractions(db);

  /** After an action reached (or is queued for) `domain`: reads ask it again, not the cache. */
  function changed<T>(domain: string, result: T): T {
    reads?.reader.forget(domain);
    return result;
  }

  async function begin(
    userId: string,
    postId: string,
  ): Promise<Result<{ user: ActingUser; target: PostTarget }, Refusal>> {
    const user = await loadActingUser(db, userId);
    if (!user.ok) return user;
    const target = await targets.post(postId);
    if (!target.ok) return target;
    if (
      target.value.kind === 'local' &&
      (await isBlockedBy(prisma, target.value.authorId, `${user.value.handle}@${self}`))
    ) {
      return refuse('FORBIDDEN', BLOCKED_MESSAGE);
    }
    if (
      target.value.kind === 'remote' &&
      !uuidSchema.safeParse(target.value.remotePostId).success
    ) {
      return refuse(
        'INVALID_REQUEST',
        `Posts of ${target.value.domain} cannot be liked or reposted from here: their ids are not UUIDs.`,
      );
    }
    return ok({ user: user.value, target: target.value });
  }

  async function beginOnPerson<P>(
    userId: string,
    resolve: () => Promise<Result<P, Refusal>>,
  ): Promise<Result<{ user: ActingUser; followee: P }, Refusal>> {
    const user = await loadActingUser(db, userId);
    if (!user.ok) return user;
    const person = await resolve();
    if (!person.ok) return person;
    const followee = person.value as { kind?: string; userId?: string };
    if (
      followee.kind === 'local' &&
      followee.userId &&
      (await isBlockedBy(prisma, followee.userId, `${user.value.handle}@${self}`))
    ) {
      return refuse('FORBIDDEN', BLOCKED_MESSAGE);
    }
    return ok({ user: user.value, followee: person.value });
  }

  /**
   * The delivery of an earlier action (an idempotent repeat answers its state). Called after
   * the transaction: on PGlite a query outside an open transaction waits for it to end.
   */
  async function earlier(interactionId: string | null): Promise<ActionResult> {
    if (!interactionId) return nothing;
    return { delivery: await delivery.findByInteraction(interactionId) };
  }

  async function sent(id: string | null): Promise<ActionResult> {
    if (!id) return nothing;
    const [view] = await delivery.attempt([id]);
    return { delivery: view ?? null };
  }

  async function settled(
    domain: string,
    outcome: Result<string | null, Repeat>,
  ): Promise<Result<ActionResult, Refusal>> {
    if (outcome.ok) return ok(changed(domain, await sent(outcome.value)));
    return ok(changed(domain, await earlier(outcome.reason.repeatOf)));
  }

  async function undoRemotely(
    tx: Tx,
    undoneInteractionId: string | null,
    send: () => Promise<string | null>,
  ): Promise<string | null> {
    if (undoneInteractionId) {
      const cancelled = await delivery.cancelPending(tx, undoneInteractionId);
      if (cancelled === 'unsent') return null;
    }
    return send();
  }

  function enqueueSigned(
    tx: Tx,
    kind: SignedKind,
    user: ActingUser,
    target: RemoteTarget,
    checked: { raw: Record<string, unknown>; interactionId: string },
  ) {
    return delivery.enqueue(tx, {
      targetDomain: target.domain,
      kind,
      body: checked.raw,
      interactionId: checked.interactionId,
      createdById: user.id,
    });
  }

  function recordOf(tx: Tx, kind: 'like' | 'repost', postId: string, actorKey: string) {
    const query = {
      where: { postId_actorKey: { postId, actorKey } },
      select: { interactionId: true },
    };
    return kind === 'like' ? tx.like.findUnique(query) : tx.repost.findUnique(query);
  }

  async function onRemoteCopy(
    kind: 'like' | 'repost',
    user: ActingUser,
    target: RemoteTarget,
    input: InteractionInput,
    record: (tx: Tx, copyId: string, checked: Omit<CheckedSigned, 'raw'>) => Promise<boolean>,
  ): Promise<Result<ActionResult, Refusal>> {
    const checked = await signed.verifySigned(kind, user, target, input.signed);
    if (!checked.ok) return checked;
    const copy = await targets.remoteCopy(target, input);
    if (!copy.ok) return copy;
    const { copyId } = copy.value;
    const outcome = await commitIfOk(db, async (tx): Promise<Result<string, Repeat>> => {
      if (!(await record(tx, copyId, checked.value))) {
        return repeated(await recordOf(tx, kind, copyId, localKey(user)));
      }
      return ok(await enqueueSigned(tx, kind, user, target, checked.value));
    });
    return settled(target.domain, outcome);
  }

  return {
    ...signed,
    deps,
    self,
    targets,
    applyToPost,
    begin,
    beginOnPerson,
    settled,
    undoRemotely,
    enqueueSigned,
    recordOf,
    onRemoteCopy,
  };
}
