import { randomUUID } from 'node:crypto';
import {
  didKeyToPublicKey,
  exportPrivateKeyPkcs8Pem,
  formatTimestamp,
  generateSigningKeyPair,
  DELEGATION_LIMITS,
  ok,
  publicKeyToDidKey,
  verifyUserAction,
  type Delegation,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import { refuse } from '../refusal.ts';
import {
  DELEGATION_DEFAULT_DAYS,
  PENDING_DELEGATION_MS,
  PENDING_DELEGATIONS_PER_USER,
  type DelegationResult,
  type PreparedDelegation,
} from './delegation-types.ts';
import { actionsForScopes } from './scope-actions.ts';

/**
 * Consent (docs/protocol.md "App delegations"): when a person allows an app whose scopes let it
 * act, the node makes a P-256 key pair for that grant and answers the delegation to sign; the
 * person's browser signs it with their own key, and `confirm` checks and keeps the signature.
 * The private half stays in this node's database like the node's own key.
 */
export function createDelegationGrant(deps: { db: Db; clock: Clock; self: string }) {
  const { clock, self } = deps;
  const prisma = deps.db.prisma;

  /** Null when the scopes delegate nothing (a reading app needs no key). */
  async function prepare(
    userId: string,
    input: { appId: string; scopes: readonly string[] },
  ): DelegationResult<PreparedDelegation | null> {
    const actions = actionsForScopes(input.scopes);
    if (actions.length === 0) return ok(null);
    const [user, app] = await Promise.all([
      prisma.user.findUnique({ where: { id: userId }, select: { handle: true, did: true } }),
      prisma.clientApp.findUnique({ where: { id: input.appId }, select: { name: true } }),
    ]);
    if (!user) return refuse('USER_NOT_FOUND', 'This account does not exist.');
    if (!app) return refuse('NOT_FOUND', 'This app is not registered here.');
    if (!user.did) {
      return refuse(
        'INVALID_REQUEST',
        'Your account has no signing key: the app can read, but cannot act toward other nodes.',
      );
    }
    const did = user.did;
    const now = clock.now();
    // Consent pages left open make keys nobody signs: swept, and bounded per person.
    const stale = new Date(now.getTime() - PENDING_DELEGATION_MS);
    await prisma.appDelegation.deleteMany({
      where: { document: null, createdAt: { lt: stale } },
    });
    // The consent page shown again (a reload) answers the one it made before.
    const pending = await prisma.appDelegation.findFirst({
      where: { userId, appId: input.appId, document: null, createdAt: { gte: stale } },
      orderBy: { createdAt: 'desc' },
    });
    if (pending && pending.actions.join(' ') === actions.join(' ')) {
      const { signature: _none, ...body } = documentOf(
        pending,
        { handle: user.handle, did },
        app.name,
        '',
      );
      return ok({ action: 'delegate', targetDomain: self, body });
    }
    const waiting = await prisma.appDelegation.count({ where: { userId, document: null } });
    if (waiting >= PENDING_DELEGATIONS_PER_USER) {
      return refuse(
        'RATE_LIMITED',
        'Too many app authorizations are waiting for your signature: try again in an hour.',
      );
    }
    const pair = await generateSigningKeyPair(true);
    const appKey = await publicKeyToDidKey(pair.publicKey);
    const expiresAt = new Date(now.getTime() + DELEGATION_DEFAULT_DAYS * 86_400_000);
    const id = randomUUID();
    await prisma.appDelegation.create({
      data: {
        id,
        userId,
        appId: input.appId,
        appKeyDid: appKey,
        appPrivateKeyPem: await exportPrivateKeyPkcs8Pem(pair.privateKey),
        actions,
        issuedAt: now,
        expiresAt,
      },
    });
    const { signature: _none, ...body } = documentOf(
      { id, appKeyDid: appKey, actions, issuedAt: now, expiresAt },
      { handle: user.handle, did },
      app.name,
      '',
    );
    return ok({ action: 'delegate', targetDomain: self, body });
  }

  /** The delegation of a row, as the person signs it (built the same way each time). */
  function documentOf(
    row: { id: string; appKeyDid: string; actions: string[]; issuedAt: Date; expiresAt: Date },
    user: { handle: string; did: string },
    appName: string,
    signature: string,
  ): Delegation {
    return {
      id: row.id,
      user: `${user.handle}@${self}`,
      did: user.did,
      appKey: row.appKeyDid,
      appName: appName.slice(0, DELEGATION_LIMITS.appNameChars),
      actions: row.actions as Delegation['actions'],
      issuedAt: formatTimestamp(row.issuedAt),
      expiresAt: formatTimestamp(row.expiresAt),
      signature,
    };
  }

  /** Keeps the person's signature of a delegation `prepare` made for them and this app. */
  async function confirm(
    userId: string,
    input: { appId: string; delegationId: string; signature: string },
  ): DelegationResult<Delegation> {
    const row = await prisma.appDelegation.findFirst({
      where: { id: input.delegationId, userId, appId: input.appId, document: null },
    });
    const user = await prisma.user.findUnique({
      where: { id: userId },
      select: { handle: true, did: true },
    });
    if (!row || !user) {
      return refuse('NOT_FOUND', 'This app authorization is unknown or already signed.');
    }
    if (!user.did) return refuse('INVALID_REQUEST', 'Your account has no signing key.');
    const app = await prisma.clientApp.findUniqueOrThrow({
      where: { id: row.appId },
      select: { name: true },
    });
    const document = documentOf(
      row,
      { handle: user.handle, did: user.did },
      app.name,
      input.signature,
    );
    const key = await didKeyToPublicKey(user.did);
    const valid =
      key.ok &&
      (await verifyUserAction({
        publicKey: key.value,
        action: 'delegate',
        targetDomain: self,
        body: document,
      }));
    if (!valid) {
      return refuse(
        'UNAUTHORIZED',
        'The signature of this app authorization does not match your key.',
      );
    }
    await prisma.appDelegation.update({
      where: { id: row.id },
      data: { document: JSON.stringify(document) },
    });
    return ok(document);
  }

  return { prepare, confirm };
}
