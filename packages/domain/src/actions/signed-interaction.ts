import { randomUUID } from 'node:crypto';
import {
  LIMITS,
  didKeyToPublicKey,
  formatTimestamp,
  isWithinClockWindow,
  likeBodySchema,
  ok,
  parseWith,
  repostBodySchema,
  unlikeBodySchema,
  unrepostBodySchema,
  uuidSchema,
  verifyUserAction,
  type Delegation,
  type Result,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import { delegatedAppKey, type AppDelegations } from '../delegations/index.ts';
import type { PeerClient } from '../peers/index.ts';
import { withCapability } from '../registry/capabilities.ts';
import type { Clock } from '../clock.ts';
import { refuse } from '../refusal.ts';
import { actorFields, type ActingUser } from './action-support.ts';
import type { PostTarget } from './action-targets.ts';
import type { Refusal } from '../refusal.ts';

/**
 * Like, unlike, repost and unrepost carry the user's own signature (docs/protocol.md "User signatures"):
 * `prepare` builds the exact body, the browser signs `userSignaturePayload({action, targetDomain,
 * body})` with the user's key, and the action checks the signed body before anything is written.
 * The node cannot make these for its users; from our pages follows, unfollows, mentions and
 * replies go unsigned (the signature is optional there). An app's follow or unfollow is signed
 * under the person's delegation where the target takes it (`appSigned`).
 */
export type SignedKind = 'like' | 'unlike' | 'repost' | 'unrepost';

export interface SignedBody {
  body: Record<string, unknown>;
  signature: string;
  /**
   * Present when an app's key signed it (`appDelegations.signInteraction`): the person's
   * delegation to that key, sent as the body's `delegation` member, inside what the key signed.
   */
  delegation?: Delegation | undefined;
}

export type RemoteTarget = Extract<PostTarget, { kind: 'remote' }>;

interface Inner {
  actorHandle: string;
  actorNodeDomain: string;
  interactionId: string;
  timestamp: string;
  actorDisplayName?: string | undefined;
  actorAvatarUrl?: string | undefined;
  repostId?: string | undefined;
}

/** A signed body that passed every check: as signed, with its ids. */
export interface CheckedSigned {
  raw: Record<string, unknown>;
  interactionId: string;
  repostId?: string;
}

const BODY_SCHEMAS = {
  like: likeBodySchema,
  unlike: unlikeBodySchema,
  repost: repostBodySchema,
  unrepost: unrepostBodySchema,
};

export const NO_SIGNING_KEY =
  'Your account has no signing key yet: sign in again in your browser to create one.';

/** What an action prepared for an app's key: the spec's body, its action and its target node. */
export interface PreparedForSigning {
  action: 'follow' | 'unfollow';
  targetDomain: string;
  body: Record<string, unknown>;
}

/**
 * Signs a follow or unfollow for an app (the client API's `appSignerFor`): they are built inside
 * the action, so an app's call passes this instead of a body. Null when the app holds no usable
 * delegation for the act: it then goes as our pages send it.
 */
export type AppSigner = (prepared: PreparedForSigning) => Promise<SignedBody | null>;

export interface SignedInteractions {
  /**
   * The wire body of a follow or unfollow an app asked for: signed with its key under the
   * user's delegation when the target node takes delegations and the app holds one for the act,
   * else unsigned as our pages send it (the signature is optional there), never refused for it.
   */
  appSigned(sign: AppSigner, prepared: PreparedForSigning): Promise<Record<string, unknown>>;
  /** What the browser signs: the spec's body for this action, with a fresh id and time. */
  bodyFor(kind: SignedKind, user: ActingUser, target: RemoteTarget): Record<string, unknown>;
  verifySigned(
    kind: SignedKind,
    user: ActingUser,
    target: RemoteTarget,
    signed: SignedBody | null | undefined,
  ): Promise<Result<CheckedSigned, Refusal>>;
}

export function createSignedInteractions(deps: {
  db: Db;
  clock: Clock;
  self: string;
  peers: Pick<PeerClient, 'getJson'>;
  delegations?: Pick<AppDelegations, 'usable'> | undefined;
}): SignedInteractions {
  const { clock, self } = deps;
  const prisma = deps.db.prisma;

  function bodyFor(kind: SignedKind, user: ActingUser, target: RemoteTarget) {
    const common = {
      interactionId: randomUUID(),
      timestamp: formatTimestamp(clock.now()),
    };
    const actor = actorFields(user, self);
    const undo = {
      actorHandle: actor.actorHandle,
      actorNodeDomain: actor.actorNodeDomain,
      ...common,
    };
    switch (kind) {
      case 'like':
        return { postId: target.remotePostId, like: { ...actor, ...common } };
      case 'unlike':
        return { postId: target.remotePostId, unlike: undo };
      case 'unrepost':
        return { postId: target.remotePostId, unrepost: undo };
      case 'repost':
        // The id the local repost post will have (it is signed, so it is reserved here).
        return {
          postId: target.remotePostId,
          repost: { ...actor, repostId: randomUUID(), ...common },
        };
    }
  }

  /**
   * The checks of a signed body, all before any write: it is the spec's shape, for this post,
   * by this user as this node describes them, made within ±5 minutes, not used before, and
   * signed with the user's registered key for the post's node.
   */
  async function verifySigned(
    kind: SignedKind,
    user: ActingUser,
    target: RemoteTarget,
    signed: SignedBody | null | undefined,
  ): Promise<Result<CheckedSigned, Refusal>> {
    if (!signed) {
      return refuse(
        'INVALID_REQUEST',
        `A ${kind} of a post on ${target.domain} needs your signature: prepare it, sign it, then send it.`,
      );
    }
    if (!user.did) return refuse('INVALID_REQUEST', NO_SIGNING_KEY);
    const { signature: _s, delegation: _d, ...unsigned } = signed.body;
    const raw: Record<string, unknown> = {
      ...unsigned,
      ...(signed.delegation ? { delegation: signed.delegation } : {}),
      signature: signed.signature,
    };
    if (JSON.stringify(raw).length > LIMITS.interactionBodyBytes) {
      return refuse('INVALID_REQUEST', `The signed ${kind} is too large.`);
    }
    const parsed = parseWith(BODY_SCHEMAS[kind], raw);
    if (!parsed.ok)
      return refuse('INVALID_REQUEST', `The signed ${kind} is malformed: ${parsed.reason}.`);
    const body = parsed.value;
    if (body.postId !== target.remotePostId) {
      return refuse('INVALID_REQUEST', `The signed ${kind} is about another post.`);
    }
    const inner = innerOf(body);
    if (inner.actorHandle !== user.handle || inner.actorNodeDomain !== self) {
      return refuse(
        'UNAUTHORIZED',
        `The signed ${kind} names someone else: you can act only as yourself.`,
      );
    }
    if (kind === 'like' || kind === 'repost') {
      const mine = actorFields(user, self);
      if (
        inner.actorDisplayName !== mine.actorDisplayName ||
        (inner.actorAvatarUrl ?? '') !== (mine.actorAvatarUrl ?? '')
      ) {
        return refuse(
          'INVALID_REQUEST',
          `The signed ${kind} shows another name or avatar than your profile: prepare it again.`,
        );
      }
    }
    if (!isWithinClockWindow(inner.timestamp, clock.now())) {
      return refuse(
        'INVALID_REQUEST',
        `The signed ${kind} is older than 5 minutes or dated in the future: prepare it again.`,
      );
    }
    const signer = signed.delegation
      ? await appKeyOf({ ...user, did: user.did }, kind, target.domain, signed.delegation)
      : await didKeyToPublicKey(user.did);
    if (!signer.ok) {
      const reason = signer.reason;
      return typeof reason === 'string'
        ? refuse('INVALID_REQUEST', `Your registered key is unusable: ${reason}.`)
        : { ok: false, reason };
    }
    const valid = await verifyUserAction({
      publicKey: signer.value,
      action: kind,
      targetDomain: target.domain,
      body: raw,
    });
    if (!valid) {
      return refuse(
        'UNAUTHORIZED',
        signed.delegation
          ? `The app's signature of this ${kind} does not match its key.`
          : `The signature of this ${kind} does not match your key.`,
      );
    }
    const used = await prisma.outboxDelivery.findFirst({
      where: { interactionId: inner.interactionId },
      select: { id: true },
    });
    if (used) {
      return refuse('INVALID_REQUEST', `This signed ${kind} was sent already: prepare a new one.`);
    }
    if (kind === 'repost') {
      const repostId = inner.repostId ?? '';
      const taken =
        !uuidSchema.safeParse(repostId).success ||
        (await prisma.post.count({ where: { id: repostId } })) > 0;
      if (taken)
        return refuse(
          'INVALID_REQUEST',
          'The signed repost has an unusable repostId: prepare it again.',
        );
      return ok({ raw, interactionId: inner.interactionId, repostId });
    }
    return ok({ raw, interactionId: inner.interactionId });
  }

  /**
   * The app key of a delegation of the user's, usable for `kind` now (delegatedAppKey), sent
   * only to a node that takes delegations: one that does not would refuse the app key's
   * signature, so the action is refused here with a clear sentence.
   */
  async function appKeyOf(
    user: ActingUser & { did: string },
    kind: SignedKind,
    domain: string,
    delegation: Delegation,
  ): Promise<Result<CryptoKey, Refusal>> {
    const key = await delegatedAppKey(deps.delegations, user, kind, delegation);
    if (!key.ok) return key;
    const takes = await takesDelegations(domain);
    return takes.ok ? key : takes;
  }

  async function takesDelegations(domain: string): Promise<Result<void, Refusal>> {
    const { told } = await withCapability(
      { db: deps.db, peers: deps.peers },
      [domain],
      'delegations',
    );
    if (told.length > 0) return ok(undefined);
    return refuse(
      'FORBIDDEN',
      `${domain} does not take actions signed by apps (no "delegations" capability): do it from this node's pages instead.`,
    );
  }

  async function appSigned(
    sign: AppSigner,
    prepared: PreparedForSigning,
  ): Promise<Record<string, unknown>> {
    // A node that takes no delegations (an origin-profile node) would refuse the app key.
    const takes = await takesDelegations(prepared.targetDomain);
    if (!takes.ok) return prepared.body;
    const signed = await sign(prepared);
    if (!signed?.delegation) return prepared.body;
    const { body, delegation, signature } = signed;
    return { ...body, delegation, signature };
  }

  return { bodyFor, verifySigned, appSigned };
}

/** The actor part of a signed body, whichever kind it is. */
function innerOf(
  body: { like: Inner } | { unlike: Inner } | { repost: Inner } | { unrepost: Inner },
): Inner {
  if ('like' in body) return body.like;
  if ('unlike' in body) return body.unlike;
  if ('repost' in body) return body.repost;
  return body.unrepost;
}
