import {
  didKeyToPublicKey,
  isWithinClockWindow,
  ok,
  verifyUserAction,
  type PostSigned,
  type Result,
} from '@swarm/contract';
import { refuse, type Refusal } from '../refusal.ts';
import type { ActingUser } from './action-support.ts';
import { NO_SIGNING_KEY } from './signed-interaction.ts';

/**
 * The author's signature of a new post (docs/protocol.md "Post delivery"): user action `post`,
 * target this node's domain, over the post as pushed (post-push-body.ts). Made once in the
 * author's browser, over the object `posts.prepare` answered, and stored with the post so that
 * every push of it (and every later one, with new counts) carries the same signature.
 */

/** What the browser signs: `userSignaturePayload({action, targetDomain, body})`. */
export interface PreparedPost {
  action: 'post';
  targetDomain: string;
  body: Record<string, unknown>;
}

/**
 * The reserved id and time of a signed post, checked before anything is written: a fresh UUID,
 * made within the clock window (±5 minutes), by a user who has a key.
 */
export async function checkReserved(
  prisma: { post: { count(args: { where: { id: string } }): Promise<number> } },
  user: ActingUser,
  signed: PostSigned,
  now: Date,
): Promise<Result<{ id: string; createdAt: Date }, Refusal>> {
  if (!user.did) return refuse('INVALID_REQUEST', NO_SIGNING_KEY);
  if (!isWithinClockWindow(signed.createdAt, now)) {
    return refuse(
      'INVALID_REQUEST',
      'The signed post is older than 5 minutes or dated in the future: prepare it again.',
    );
  }
  if ((await prisma.post.count({ where: { id: signed.id } })) > 0) {
    return refuse('INVALID_REQUEST', 'The signed post has an id already used: prepare it again.');
  }
  return ok({ id: signed.id, createdAt: new Date(signed.createdAt) });
}

/**
 * Whether `signature` is the user's over `post` as this node built it from the input (never
 * the browser's copy: what is stored and pushed is what was signed, or nothing is written).
 */
export async function verifyPostSignature(
  user: ActingUser,
  self: string,
  post: Record<string, unknown>,
  signature: string,
  /** An app's post: the app key of the person's delegation signed it, not the person's key. */
  appKeyDid?: string,
): Promise<Result<void, Refusal>> {
  if (!user.did) return refuse('INVALID_REQUEST', NO_SIGNING_KEY);
  const key = await didKeyToPublicKey(appKeyDid ?? user.did);
  if (!key.ok) return refuse('INVALID_REQUEST', `Your registered key is unusable: ${key.reason}.`);
  const valid = await verifyUserAction({
    publicKey: key.value,
    action: 'post',
    targetDomain: self,
    body: { ...post, signature },
  });
  if (!valid) {
    return refuse(
      'UNAUTHORIZED',
      'The signature of this post does not match your key or what you wrote: prepare it again.',
    );
  }
  return ok(undefined);
}
