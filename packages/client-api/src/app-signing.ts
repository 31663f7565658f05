import type { TokenGrant } from '@swarm/auth';
import { ok, type CreatePostInput, type PostSigned, type Result } from '@swarm/contract';
import type { NodeContext, Refusal, SignedBody, SignedKind } from '@swarm/domain';

/**
 * The one place where an app's act needs its person's signature (docs/clients.md "Signatures").
 * A person's key lives in their browser; an app acts under the delegation that browser signed at
 * consent (docs/protocol.md "App delegations"), with the key the node holds for the app:
 *
 * - a like or repost of another node's post, and their undoing, are signed by
 *   `node.appDelegations.signInteraction` for the token's grant; without a usable delegation
 *   (no key in the browser at consent, scopes without the action, revoked) a 422 says why;
 * - a post is prepared as followers' nodes will get it (`posts.prepare`) and signed by
 *   `node.appDelegations.signPost`; without a usable delegation it goes unsigned, as a post of
 *   someone without a key does (`signPostForApp`).
 */

export interface AppAct {
  action: SignedKind;
  userId: string;
  postId: string;
}

export const APP_CANNOT_SIGN =
  'This app cannot act toward other nodes yet: likes and reposts of posts on other nodes need ' +
  'your signature, or your delegation to the app signed in your browser when you allowed it.';

/** The signature an act carries: null when none is needed (a post of this node). */
export async function signForApp(
  node: NodeContext,
  grant: TokenGrant,
  act: AppAct,
): Promise<Result<SignedBody | null, Refusal>> {
  const prepared = await node.actions.interactions.prepare(act.userId, {
    kind: act.action,
    postId: act.postId,
  });
  if (!prepared.ok) {
    // A person without a key cannot sign in any case: the app's answer is the same.
    if (prepared.reason.code !== 'INVALID_REQUEST') return prepared;
    return { ok: false, reason: { code: 'INVALID_REQUEST', message: APP_CANNOT_SIGN } };
  }
  if (prepared.value.local) return ok(null);
  const { local: _remote, ...toSign } = prepared.value;
  const signed = await node.appDelegations.signInteraction(
    { userId: act.userId, appId: grant.app.id },
    toSign,
  );
  if (signed.ok) return signed;
  return {
    ok: false,
    reason: { code: 'INVALID_REQUEST', message: `${APP_CANNOT_SIGN} ${signed.reason.message}` },
  };
}

/**
 * The signature of a new post by an app: null when it goes unsigned (nothing is pushed, the
 * person has no key, or the app holds no delegation for posts). A refusal of the input itself is
 * left to `posts.create`, which answers it as the composer's would be.
 */
export async function signPostForApp(
  node: NodeContext,
  grant: TokenGrant,
  userId: string,
  input: CreatePostInput,
): Promise<PostSigned | null> {
  const prepared = await node.actions.posts.prepare(userId, input);
  if (!prepared.ok || !prepared.value) return null;
  const signed = await node.appDelegations.signPost(
    { userId, appId: grant.app.id },
    prepared.value,
  );
  return signed.ok ? signed.value : null;
}
