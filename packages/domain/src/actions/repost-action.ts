import { randomUUID } from 'node:crypto';
import { ok, type Result } from '@swarm/contract';
import { inTransaction, type Tx } from '../refusal.ts';
import type { ActionResult } from '../views/index.ts';
import { localEffectActor } from './action-support.ts';
import {
  nothing,
  repeated,
  type InteractionInput,
  type InteractionKit,
} from './interaction-kit.ts';
import type { Refusal } from '../refusal.ts';

/** A local user reposts a post: here, or on another node (signed, then delivered). */
export function createRepostAction(kit: InteractionKit) {
  const { db, clock } = kit.deps;
  return async function repost(
    userId: string,
    input: InteractionInput,
  ): Promise<Result<ActionResult, Refusal>> {
    const begun = await kit.begin(userId, input.postId);
    if (!begun.ok) return begun;
    const { user, target } = begun.value;
    const actor = localEffectActor(user);
    const at = clock.now();
    /** The repost's own post row (what shows it in feeds), then the repost (count, notification). */
    const write = async (
      tx: Tx,
      postId: string,
      repostPostId: string,
      interactionId: string | null,
    ) => {
      await tx.post.create({
        data: {
          id: repostPostId,
          authorId: user.id,
          repostOfId: postId,
          createdAt: at,
          updatedAt: at,
        },
      });
      const repost = { postId, actor: { local: actor }, interactionId, at, repostPostId };
      return (await kit.applyToPost('repost', repost, tx)).added;
    };
    if (target.kind === 'local') {
      await inTransaction(db, async (tx) => {
        if (!(await write(tx, target.postId, randomUUID(), null))) repeated(null);
      });
      return ok(nothing);
    }
    return kit.onRemoteCopy(
      'repost',
      user,
      target,
      input,
      (tx, copyId, { interactionId, repostId }) =>
        write(tx, copyId, repostId ?? randomUUID(), interactionId),
    );
  };
}
