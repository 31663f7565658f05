import { ok, verifyUserAction, type Result } from '@swarm/contract';
import type { Logger } from '../logger.ts';
import { importDidKey } from '../peers/key-cache.ts';
import { refuse, type Refusal } from '../refusal.ts';
import type { UserDids } from '../security/user-dids.ts';

// The author's own signature on a pushed post (docs/protocol.md "Post delivery"): the node
// signature says which node pushed, this one says the author wrote it. Same did rules as the
// interactions' (interactions/inbound-verification.ts): a did pinned here must sign; a pinned did
// that fails may mean a rotation, so the author's node is asked again (rate-limited per user).

/** A did proved by the push's signature, to store: a first pin, or one replacing `replaces`. */
export interface InboxDidPin {
  did: string;
  replaces: string | null;
}

export interface AuthorSignatureInput {
  author: { handle: string; domain: string };
  /** The did pinned here for the author, if any (a remote actor's `did`). */
  pinned: string | null;
  /** `origin`: the origin profile has no post signatures at all. */
  profile: 'swarm' | 'origin';
  /** The post member exactly as received (the signature covers unknown members too). */
  rawPost: unknown;
  postSignature: string | undefined;
  /** The did the pushing node states for the author (our dialect's `author.did`). */
  claimedDid: string | undefined;
}

/** True when `did` names a key of ours (origin users' dids name none). */
async function isKeyDid(did: string | null): Promise<boolean> {
  return did !== null && (await importDidKey(did)).ok;
}

export function createInboxAuthorSignature(deps: { userDids: UserDids; logger: Logger }) {
  const { userDids, logger } = deps;

  /** The author signed `{action: 'post', targetDomain: the author's node, body: post}`. */
  async function signedBy(
    did: string,
    domain: string,
    rawPost: unknown,
    signature: string,
  ): Promise<boolean> {
    const key = await importDidKey(did);
    if (!key.ok || typeof rawPost !== 'object' || rawPost === null || Array.isArray(rawPost)) {
      return false;
    }
    return verifyUserAction({
      publicKey: key.value,
      action: 'post',
      targetDomain: domain,
      body: { ...(rawPost as Record<string, unknown>), signature },
    });
  }

  /**
   * Everything about the author's signature that can refuse a push; the did to pin when a
   * valid signature proved one. Reads only (the author's node may be asked for the did).
   */
  async function check(
    input: AuthorSignatureInput,
  ): Promise<Result<InboxDidPin | undefined, Refusal<'INVALID_SIGNATURE'>>> {
    const { author, pinned, rawPost, postSignature } = input;
    const who = `${author.handle}@${author.domain}`;
    const pinnedKey = await isKeyDid(pinned);
    if (input.profile === 'origin' || postSignature === undefined) {
      if (!pinnedKey) return ok(undefined);
      return refuse(
        'INVALID_SIGNATURE',
        input.profile === 'origin'
          ? `The key of ${who} is pinned here: their posts must carry their own signature, which the origin profile's format has no place for.`
          : `The key of ${who} is pinned here: their posts must carry their signature (postSignature).`,
      );
    }
    if (pinned && (await signedBy(pinned, author.domain, rawPost, postSignature))) {
      return ok(undefined);
    }
    // Nothing pinned yet: the did the author's own node states (the sender is that node, so
    // asking it would tell the same), else what it publishes. A pinned did that fails: the
    // author may have rotated their key, so their node is asked again (at most every 5 min).
    const current = pinned
      ? await userDids.recheck(author)
      : input.claimedDid
        ? ok(input.claimedDid)
        : await userDids.fetch(author);
    if (!current.ok) {
      logger.info({ actor: who, reason: current.reason }, 'post author key unresolved');
    } else if (
      current.value !== pinned &&
      (await signedBy(current.value, author.domain, rawPost, postSignature))
    ) {
      if (pinned) logger.info({ actor: who }, 'user did re-pinned: the user rotated their key');
      return ok({ did: current.value, replaces: pinned });
    }
    return refuse('INVALID_SIGNATURE', `The post signature does not match ${who}'s key.`);
  }

  return { check };
}
