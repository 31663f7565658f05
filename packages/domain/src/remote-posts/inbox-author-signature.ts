import { ok, verifyUserAction, type Result } from '@swarm/contract';
import type { Logger } from '../logger.ts';
import { importDidKey } from '../peers/key-cache.ts';
import { refuse, type Refusal } from '../refusal.ts';
import type { UserDids } from '../security/user-dids.ts';
import type { DelegationChecks } from '../delegations/index.ts';

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
  /** `postDelegation` as received: an app's key made `postSignature` under it. */
  rawDelegation?: unknown;
}

/** True when `did` names a key of ours (origin users' dids name none). */
async function isKeyDid(did: string | null): Promise<boolean> {
  return did !== null && (await importDidKey(did)).ok;
}

export function createInboxAuthorSignature(deps: {
  userDids: UserDids;
  delegations: DelegationChecks;
  logger: Logger;
}) {
  const { userDids, delegations, logger } = deps;

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
  ): Promise<
    Result<InboxDidPin | undefined, Refusal<'INVALID_SIGNATURE' | 'FORBIDDEN' | 'RATE_LIMITED'>>
  > {
    const { author, pinned, rawPost, postSignature, rawDelegation } = input;
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
    // An app posted: the delegation holds up first, then the author's did proves it (below)
    // instead of the post, then their node says it still holds.
    const delegated = rawDelegation !== undefined;
    if (delegated) {
      const signedObject =
        typeof rawPost === 'object' && rawPost !== null && !Array.isArray(rawPost)
          ? { ...(rawPost as Record<string, unknown>), signature: postSignature }
          : null;
      const pre = await delegations.precheck({
        actor: author,
        action: 'post',
        targetDomain: author.domain,
        rawDelegation,
        signedObject,
      });
      if (!pre.ok) return refuse(pre.reason.code, pre.reason.message);
    }
    const proves = (did: string) =>
      delegated
        ? delegations.signedByUser(did, rawDelegation, author.domain)
        : signedBy(did, author.domain, rawPost, postSignature);
    const proved = await provedBy(input, proves);
    if (!proved.ok || !delegated) return proved;
    const id = String((rawDelegation as Record<string, unknown>).id);
    const holds = await delegations.holds(author.domain, id);
    return holds.ok ? proved : refuse(holds.reason.code, holds.reason.message);
  }

  /** The author's did proves the push (pinned, stated by their node, or published now). */
  async function provedBy(
    input: AuthorSignatureInput,
    proves: (did: string) => Promise<boolean>,
  ): Promise<Result<InboxDidPin | undefined, Refusal<'INVALID_SIGNATURE'>>> {
    const { author, pinned } = input;
    const who = `${author.handle}@${author.domain}`;
    if (pinned && (await proves(pinned))) {
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
    } else if (current.value !== pinned && (await proves(current.value))) {
      if (pinned) logger.info({ actor: who }, 'user did re-pinned: the user rotated their key');
      return ok({ did: current.value, replaces: pinned });
    }
    return refuse('INVALID_SIGNATURE', `The post signature does not match ${who}'s key.`);
  }

  return { check };
}
