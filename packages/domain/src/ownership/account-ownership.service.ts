import { randomUUID } from 'node:crypto';
import {
  deletionAction,
  deletionBodySchema,
  formatTimestamp,
  isWithinClockWindow,
  moveBodySchema,
  ok,
  parseHandleAddress,
  swarmUserResponseSchema,
  SWARM_PATHS,
  uuidSchema,
  verifyUserAction,
  type UserAction,
  type Result,
} from '@swarm/contract';
import { commitIfOk, refuse, type Refusal } from '../refusal.ts';
import type { PostActions } from '../actions/post-actions.service.ts';
import { delegatedAppKey, type AppDelegations } from '../delegations/index.ts';
import type { NodeConfig } from '../config.ts';
import type { DeliveryService } from '../delivery/index.ts';
import type { Limits } from '../replicas/limits.ts';
import { describePeerError } from '../peers/index.ts';
import { importDidKey } from '../peers/key-cache.ts';
import type { DeliveryView } from '../views/index.ts';
import { localUserCounterFixesSql } from '../persistence/ownership.sql.ts';
import { createAccountArchives } from './account-archive.ts';
import type { ImportInput, PreparedStatement, SignedStatement } from './ownership-types.ts';
import { withCapability } from '../registry/capabilities.ts';
import { holderDomains } from './holders.ts';
import type { InboundOwnershipService } from './inbound-ownership.service.ts';
import type { PeerServiceDeps } from '../peers/service-deps.ts';

/**
 * What a local user does with their account as a whole (issue #15, docs/protocol.md "Deleting
 * posts and accounts", "Account archive", "Moving an account"): delete it, delete a post and tell
 * the nodes holding copies, export it as one signed archive, import an archive here, and move
 * here from the node it came from. Statements peers act on (deletions, moves) are prepared by
 * the node and signed in the user's browser with their own key; the node checks them before it
 * changes or sends anything.
 */

/** A handle of a deleted account stays out of use this long (docs/protocol.md). */
export const HANDLE_RESERVED_MS = 365 * 24 * 3_600_000;

export interface NoticeReport {
  /** Nodes the statement was sent to (outbox rows). */
  told: string[];
  /** Nodes that hold something but do not advertise the capability. */
  skipped: string[];
  deliveries: DeliveryView[];
}

export interface AccountOwnershipService {
  /** The statement to sign for deleting the account or one post. */
  prepareDeletion(
    userId: string,
    input: { kind: 'account' } | { kind: 'post'; postId: string },
  ): Promise<Result<PreparedStatement, Refusal>>;
  /**
   * Deletes the account here (posts, media, likes, reposts, follows, notifications, messages,
   * sessions; counters of others set right), keeps its handle out of use, and sends the signed
   * deletion to the nodes holding its content. The password is checked by the caller.
   */
  deleteAccount(
    userId: string,
    signed: SignedStatement | null,
  ): Promise<Result<NoticeReport, Refusal>>;
  /**
   * Deletes a post here and, with a signed statement, tells the nodes holding a copy: those that
   * take deletions, and when an app's key signed it under a delegation, only those that also
   * take delegations (the others would refuse the app key's signature).
   */
  deletePost(
    userId: string,
    postId: string,
    signed: SignedStatement | null,
  ): Promise<Result<NoticeReport & { id: string }, Refusal>>;
  /** The archive to sign (action `export`, this node): everything of the account. */
  prepareExport(userId: string): Promise<Result<PreparedStatement, Refusal>>;
  /** Creates the archived account here, posts marked moved in; all or nothing. */
  importArchive(
    input: ImportInput,
  ): Promise<Result<{ handle: string; posts: number; pending: boolean }, Refusal>>;
  /** The move statement to sign: from the node the account was imported from, to here. */
  prepareMove(userId: string): Promise<Result<PreparedStatement, Refusal>>;
  /** Sends the signed move to the old node and to the followers' nodes the archive named. */
  move(userId: string, signed: SignedStatement): Promise<Result<NoticeReport, Refusal>>;
}

export interface AccountOwnershipDeps extends PeerServiceDeps {
  config: Pick<NodeConfig, 'domain' | 'signUpLimitPerHour'>;
  /** The node's shared rate limits (imports per address). */
  limits: Pick<Limits, 'take'>;
  delivery: DeliveryService;
  posts: Pick<PostActions, 'delete'>;
  /** The receiver's handling of a move, applied to this node's own followers of the old address. */
  applyMove: InboundOwnershipService['move'];
  /** App delegations: without it, a deletion an app's key signed is refused. */
  delegations?: Pick<AppDelegations, 'usable'> | undefined;
}

/** Statements must be signed within this window of the node's clock (like prepared likes). */
const SIGNED_WINDOW_MS = 5 * 60_000;

const userSelect = {
  id: true,
  handle: true,
  did: true,
  movedFrom: true,
  movedTo: true,
} as const;

export function createAccountOwnershipService(deps: AccountOwnershipDeps): AccountOwnershipService {
  const { db, clock, logger, config, peers, delivery } = deps;
  const prisma = db.prisma;
  const self = config.domain;

  async function loadUser(userId: string) {
    const user = await prisma.user.findUnique({ where: { id: userId }, select: userSelect });
    return user
      ? ok(user)
      : refuse('UNAUTHORIZED', 'Your account does not exist any more: sign in again.');
  }

  async function signedByDid(
    did: string,
    action: UserAction,
    targetDomain: string,
    body: unknown,
  ): Promise<boolean> {
    const key = await importDidKey(did);
    if (!key.ok) return false;
    return verifyUserAction({ publicKey: key.value, action, targetDomain, body });
  }

  /** Enqueues `body` for each domain in one transaction, then attempts them after the commit. */
  async function send(
    domains: readonly string[],
    kind: 'delete-post' | 'delete-account' | 'move',
    body: Record<string, unknown>,
    interactionId: string,
    createdById: string | null,
    local?: (tx: Parameters<DeliveryService['enqueue']>[0]) => Promise<void>,
  ): Promise<string[]> {
    const written = await commitIfOk(db, async (tx) => {
      if (local) await local(tx);
      const ids: string[] = [];
      for (const targetDomain of domains) {
        ids.push(
          await delivery.enqueue(tx, { targetDomain, kind, body, interactionId, createdById }),
        );
      }
      return ok(ids);
    });
    return written.value;
  }

  /** The raw statement as sent: the delegation, when an app's key signed it, inside. */
  function wireOf(signed: SignedStatement): Record<string, unknown> {
    const { signature: _s, delegation: _d, ...body } = signed.body;
    return {
      ...body,
      ...(signed.delegation ? { delegation: signed.delegation } : {}),
      signature: signed.signature,
    };
  }

  /**
   * The key that signed a deletion: the user's own, or for a post the app key of a delegation
   * of theirs usable for `delete-post` now (this node's own record, not the body's copy). An
   * app can never delete an account.
   */
  async function signerOf(
    user: { id: string; did: string },
    signed: SignedStatement,
    kind: 'account' | 'post',
  ): Promise<Result<CryptoKey, Refusal>> {
    const delegation = signed.delegation;
    if (!delegation) {
      const key = await importDidKey(user.did);
      return key.ok ? key : refuse('FORBIDDEN', 'The deletion is not signed with your key.');
    }
    if (kind !== 'post') {
      return refuse('FORBIDDEN', 'An app can never delete your account: only your own key can.');
    }
    return delegatedAppKey(deps.delegations, user, 'delete-post', delegation);
  }

  /** Checks a signed deletion statement against what was asked and the user's (or app's) key. */
  async function checkDeletion(
    user: { id: string; handle: string; did: string | null },
    signed: SignedStatement,
    expected: { kind: 'account' } | { kind: 'post'; postId: string },
  ): Promise<Result<void, Refusal>> {
    const raw = wireOf(signed);
    const parsed = deletionBodySchema.safeParse(raw);
    if (!parsed.success) return refuse('INVALID_REQUEST', 'The signed deletion is malformed.');
    const d = parsed.data.deletion;
    if (
      d.kind !== expected.kind ||
      d.actorHandle !== user.handle ||
      d.actorNodeDomain !== self ||
      d.did !== user.did ||
      (expected.kind === 'post' && d.postId !== expected.postId)
    ) {
      return refuse('INVALID_REQUEST', 'The signed deletion is not the one asked for.');
    }
    if (!isWithinClockWindow(d.timestamp, clock.now(), SIGNED_WINDOW_MS)) {
      return refuse('INVALID_REQUEST', 'The signed deletion is out of date: try again.');
    }
    const signer = await signerOf({ id: user.id, did: d.did }, signed, d.kind);
    if (!signer.ok) return signer;
    const valid = await verifyUserAction({
      publicKey: signer.value,
      action: deletionAction(d.kind),
      targetDomain: self,
      body: raw,
    });
    if (!valid) {
      return refuse(
        'FORBIDDEN',
        signed.delegation
          ? "The deletion does not match the app's key."
          : 'The deletion is not signed with your key.',
      );
    }
    return ok(undefined);
  }

  async function tell(
    domains: string[],
    capability: 'deletions' | 'moves',
  ): Promise<{ told: string[]; skipped: string[] }> {
    return withCapability({ db, peers }, domains, capability);
  }

  const archives = createAccountArchives({
    db,
    clock,
    logger,
    config,
    signedByDid,
    limits: deps.limits,
  });

  return {
    async prepareDeletion(userId, input) {
      const user = await loadUser(userId);
      if (!user.ok) return user;
      if (!user.value.did) {
        return refuse('INVALID_REQUEST', 'Your account has no key, so it cannot sign a deletion.');
      }
      if (input.kind === 'post') {
        if (!uuidSchema.safeParse(input.postId).success) {
          return refuse('POST_NOT_FOUND', `There is no post ${input.postId}.`);
        }
        const post = await prisma.post.findFirst({
          where: { id: input.postId, authorId: userId, apId: null, deletedAt: null },
          select: { id: true },
        });
        if (!post) return refuse('POST_NOT_FOUND', `You have no post ${input.postId}.`);
      }
      const body = {
        deletion: {
          kind: input.kind,
          actorHandle: user.value.handle,
          actorNodeDomain: self,
          did: user.value.did,
          ...(input.kind === 'post' ? { postId: input.postId } : {}),
          interactionId: randomUUID(),
          timestamp: formatTimestamp(clock.now()),
        },
      };
      return ok({ action: deletionAction(input.kind), targetDomain: self, body });
    },

    async deleteAccount(userId, signed) {
      const loaded = await loadUser(userId);
      if (!loaded.ok) return loaded;
      const user = loaded.value;
      if (user.did) {
        if (!signed) {
          return refuse(
            'INVALID_REQUEST',
            'Sign the deletion with your key so other nodes can act on it.',
          );
        }
        const bad = await checkDeletion(user, signed, { kind: 'account' });
        if (!bad.ok) return bad;
      }
      const holders = await prisma.$transaction((tx) => holderDomains(tx, { userId, self }));
      const { told, skipped } =
        user.did && signed ? await tell(holders, 'deletions') : { told: [], skipped: holders };
      const body = signed ? wireOf(signed) : {};
      const interactionId = signed
        ? String((signed.body.deletion as { interactionId?: unknown }).interactionId)
        : randomUUID();
      const now = clock.now();
      const ids = await send(told, 'delete-account', body, interactionId, null, async (tx) => {
        await eraseLocalUser(tx, userId);
        await tx.accountTombstone.upsert({
          where: { handle: user.handle },
          create: {
            handle: user.handle,
            did: user.did,
            deletedAt: now,
            reservedUntil: new Date(now.getTime() + HANDLE_RESERVED_MS),
          },
          update: {
            did: user.did,
            deletedAt: now,
            reservedUntil: new Date(now.getTime() + HANDLE_RESERVED_MS),
          },
        });
      });
      logger.info(
        { handle: user.handle, told: told.length, skipped: skipped.length },
        'account deleted',
      );
      return ok({ told, skipped, deliveries: await delivery.attempt(ids) });
    },

    async deletePost(userId, postId, signed) {
      const loaded = await loadUser(userId);
      if (!loaded.ok) return loaded;
      const user = loaded.value;
      if (signed) {
        const bad = await checkDeletion(user, signed, { kind: 'post', postId });
        if (!bad.ok) return bad;
      }
      const deleted = await deps.posts.delete(userId, postId);
      if (!deleted.ok) return deleted;
      if (!signed) return ok({ id: deleted.value.id, told: [], skipped: [], deliveries: [] });
      const holders = await prisma.$transaction((tx) =>
        holderDomains(tx, { userId, self, postId }),
      );
      const takers = await tell(holders, 'deletions');
      // An app's statement only to nodes that check delegations; the rest keep their copy.
      const apt = signed.delegation
        ? await withCapability({ db, peers }, takers.told, 'delegations')
        : { told: takers.told, skipped: [] };
      const { told } = apt;
      const skipped = [...takers.skipped, ...apt.skipped];
      const interactionId = String(
        (signed.body.deletion as { interactionId?: unknown }).interactionId,
      );
      const body = wireOf(signed);
      const ids = await send(told, 'delete-post', body, interactionId, userId);
      return ok({ id: deleted.value.id, told, skipped, deliveries: await delivery.attempt(ids) });
    },

    prepareExport: archives.prepareExport,
    importArchive: archives.importArchive,

    async prepareMove(userId) {
      const loaded = await loadUser(userId);
      if (!loaded.ok) return loaded;
      const user = loaded.value;
      if (!user.movedFrom) {
        return refuse(
          'INVALID_REQUEST',
          'This account was not imported from another node, so there is nothing to move.',
        );
      }
      if (!user.did) return refuse('INVALID_REQUEST', 'Your account has no key to sign the move.');
      const from = parseHandleAddress(user.movedFrom);
      if (!from.ok)
        return refuse('INVALID_REQUEST', 'The old address of this account is not valid.');
      const body = {
        move: {
          did: user.did,
          from: user.movedFrom,
          to: `${user.handle}@${self}`,
          interactionId: randomUUID(),
          timestamp: formatTimestamp(clock.now()),
        },
      };
      return ok({ action: 'move', targetDomain: from.value.domain, body });
    },

    async move(userId, signed) {
      const loaded = await loadUser(userId);
      if (!loaded.ok) return loaded;
      const user = loaded.value;
      if (!user.movedFrom || !user.did) {
        return refuse(
          'INVALID_REQUEST',
          'This account was not imported from another node, so there is nothing to move.',
        );
      }
      const raw = { ...signed.body, signature: signed.signature };
      const parsed = moveBodySchema.safeParse(raw);
      if (!parsed.success) return refuse('INVALID_REQUEST', 'The signed move is malformed.');
      const m = parsed.data.move;
      const from = parseHandleAddress(m.from);
      if (
        !from.ok ||
        m.from !== user.movedFrom ||
        m.to !== `${user.handle}@${self}` ||
        m.did !== user.did
      ) {
        return refuse('INVALID_REQUEST', 'The signed move is not the one asked for.');
      }
      if (!isWithinClockWindow(m.timestamp, clock.now(), SIGNED_WINDOW_MS)) {
        return refuse('INVALID_REQUEST', 'The signed move is out of date: try again.');
      }
      if (!(await signedByDid(m.did, 'move', from.value.domain, raw))) {
        return refuse('FORBIDDEN', 'The move is not signed with your key.');
      }
      // The old node must still know the account under this key, or the move means nothing.
      const old = await peers.getJson(
        from.value.domain,
        `${SWARM_PATHS.user(from.value.handle)}?limit=0`,
        swarmUserResponseSchema,
      );
      if (!old.ok) {
        const e = old.reason;
        if (e.kind === 'http' && e.status === 404) {
          return refuse('USER_NOT_FOUND', `${m.from} does not exist (any more).`);
        }
        return refuse(
          'PEER_UNAVAILABLE',
          `${from.value.domain} cannot be asked: ${describePeerError(e)}.`,
        );
      }
      if (old.value.profile.did !== m.did) {
        return refuse('FORBIDDEN', `${m.from} is another account (it has another key).`);
      }
      // People here who follow the old address follow this account instead (as on any
      // follower's node); then the old node marks the account moved and relays the statement
      // to its followers' nodes.
      const here = await deps.applyMove(self, parsed.data, raw);
      if (!here.ok) return refuse('INVALID_REQUEST', here.reason.message);
      const { told, skipped } = await tell([from.value.domain], 'moves');
      const ids = await send(told, 'move', raw, m.interactionId, userId);
      return ok({ told, skipped, deliveries: await delivery.attempt(ids) });
    },
  };
}

/**
 * Removes a local user and everything of theirs, setting the counters of others right first:
 * likes and reposts they gave, follows both ways, replies they wrote. The rows go with the user
 * (foreign keys cascade); their copies elsewhere are the deletion statement's business.
 */
async function eraseLocalUser(tx: Parameters<DeliveryService['enqueue']>[0], userId: string) {
  for (const fix of localUserCounterFixesSql) await tx.$executeRaw(fix(userId));
  // Notifications of others about the user's posts, and of the user's own making.
  await tx.notification.deleteMany({ where: { actorUserId: userId } });
  await tx.user.delete({ where: { id: userId } });
}
