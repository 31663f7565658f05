import type { TokenGrant } from '@swarm/auth';
import { ok, type CreatePostInput, type PostSigned, type Result } from '@swarm/contract';
import type {
  AppSigner,
  NodeContext,
  Refusal,
  SignedBody,
  SignedKind,
  SignedStatement,
} from '@swarm/domain';

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
 *   someone without a key does (`signPostForApp`);
 * - a follow or unfollow is signed by `signInteraction` when the app holds a usable delegation
 *   for it (`appSignerFor`) and the target node takes delegations (the domain's rule, in
 *   `kit.appSigned`); otherwise it goes unsigned, as our pages' follows do, never refused;
 * - a deletion of the person's post is a deletion statement signed by `signInteraction` with
 *   the delegation inside (`signDeletionForApp`); without a usable delegation the post is
 *   deleted here only, as from a page without the key.
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

/**
 * What signs an app's follow or unfollow: the grant's delegation when one covers the act, else
 * nothing (null), and the follow goes unsigned as from our pages. A token made in Settings →
 * Development, or an app allowed without a key in the browser, follows all the same.
 */
export function appSignerFor(node: NodeContext, grant: TokenGrant, userId: string): AppSigner {
  return async (prepared) => {
    const signed = await node.appDelegations.signInteraction(
      { userId, appId: grant.app.id },
      prepared,
    );
    return signed.ok ? signed.value : null;
  };
}

/**
 * The deletion statement of the person's post, signed by the app's key under their delegation
 * (`delete-post`, scope write:statuses): null when the app cannot sign it (no key in the
 * browser at consent, scopes without it, revoked), and the post is then deleted here only.
 */
export async function signDeletionForApp(
  node: NodeContext,
  grant: TokenGrant,
  userId: string,
  postId: string,
): Promise<SignedStatement | null> {
  const prepared = await node.ownership.prepareDeletion(userId, { kind: 'post', postId });
  if (!prepared.ok) return null;
  const signed = await node.appDelegations.signInteraction(
    { userId, appId: grant.app.id },
    { ...prepared.value, action: 'delete-post' },
  );
  return signed.ok ? signed.value : null;
}
