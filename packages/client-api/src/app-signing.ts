import type { TokenGrant } from '@swarm/auth';
import { ok, type Result } from '@swarm/contract';
import type { NodeContext, Refusal, SignedBody, SignedKind } from '@swarm/domain';

/**
 * The one place where an app's act needs its person's signature (docs/clients.md "Signatures").
 * A person's key lives in their browser, so the node cannot sign for an app today:
 *
 * - a post goes out unsigned, as a post of someone without a key does (its followers' nodes
 *   take it on the node's signature, docs/protocol.md "Post delivery"): `null` here;
 * - a like or repost of another node's post, and their undoing, must carry the person's
 *   signature: refused with a 422 until the person delegates signing to the app.
 *
 * When delegations land (`node.appDelegations.signPost` / `signInteraction` with the grant), they
 * are wired here and nowhere else.
 */

export type AppAct =
  { kind: 'interaction'; action: SignedKind; userId: string; postId: string } | { kind: 'post' };

export const APP_CANNOT_SIGN =
  'This app cannot act toward other nodes yet: likes and reposts of posts on other nodes are ' +
  "signed with your key, which stays in your browser. Use this node's pages for them.";

/** The signature an act carries: null when none is needed (or none can be made, for posts). */
export async function signForApp(
  node: NodeContext,
  _grant: TokenGrant,
  act: AppAct,
): Promise<Result<SignedBody | null, Refusal>> {
  if (act.kind === 'post') return ok(null);
  const prepared = await node.actions.interactions.prepare(act.userId, {
    kind: act.action,
    postId: act.postId,
  });
  if (!prepared.ok) {
    // A person without a key cannot sign in any case: the app's answer is the same.
    if (prepared.reason.code !== 'INVALID_REQUEST') return prepared;
  } else if (prepared.value.local) {
    return ok(null);
  }
  return { ok: false, reason: { code: 'INVALID_REQUEST', message: APP_CANNOT_SIGN } };
}
