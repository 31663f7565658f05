import {
  delegationSchema,
  formatTimestamp,
  ok,
  parseWith,
  type DelegableAction,
  type DelegationStatus,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import { refuse } from '../refusal.ts';
import {
  CODE_WINDOW_MS,
  type DelegationResult,
  type UsableDelegation,
} from './delegation-types.ts';

/**
 * Whether a delegation of this node's people still holds (docs/protocol.md "App delegations",
 * "Revocation"): signed, not expired, not revoked, and its app still holds a token of the
 * person. Revoking the app (Settings → Authorized apps, or `/oauth/revoke` of its last token)
 * deletes the tokens, so the delegation ends with them without either path knowing of it; the
 * first look that finds no token records the revocation, so that a later token (the person
 * allows the app again, under a new delegation) never brings an old one back.
 */
export function createDelegationState(deps: { db: Db; clock: Clock }) {
  const { clock } = deps;
  const prisma = deps.db.prisma;

  type Row = {
    id: string;
    userId: string;
    appId: string;
    appKeyDid: string;
    document: string | null;
    expiresAt: Date;
    revokedAt: Date | null;
    issuedAt: Date;
  };
  const select = {
    id: true,
    userId: true,
    appId: true,
    appKeyDid: true,
    document: true,
    expiresAt: true,
    revokedAt: true,
    issuedAt: true,
  } as const;

  /** The row's state now; records a revocation found by the missing token. */
  async function settle(
    row: Row,
  ): Promise<{ state: DelegationStatus['state']; revokedAt: Date | null }> {
    const now = clock.now();
    if (row.revokedAt) return { state: 'revoked', revokedAt: row.revokedAt };
    if (row.expiresAt.getTime() <= now.getTime()) return { state: 'expired', revokedAt: null };
    const tokens = await prisma.oAuthToken.count({
      where: { userId: row.userId, appId: row.appId },
    });
    if (tokens > 0) return { state: 'active', revokedAt: null };
    // Within the code's life the app may not have its token yet: not active, not recorded.
    if (now.getTime() - row.issuedAt.getTime() < CODE_WINDOW_MS) {
      return { state: 'revoked', revokedAt: null };
    }
    await prisma.appDelegation.updateMany({
      where: { id: row.id, revokedAt: null },
      data: { revokedAt: now },
    });
    return { state: 'revoked', revokedAt: now };
  }

  /** What `GET /api/swarm/delegations/{id}` answers; null for an unknown or unsigned one. */
  async function status(id: string): Promise<DelegationStatus | null> {
    const row = await prisma.appDelegation.findFirst({
      where: { id, document: { not: null } },
      select,
    });
    if (!row) return null;
    const { state, revokedAt } = await settle(row);
    return {
      id: row.id,
      state,
      ...(revokedAt ? { revokedAt: formatTimestamp(revokedAt) } : {}),
      expiresAt: formatTimestamp(row.expiresAt),
    };
  }

  function usableOf(row: Row): UsableDelegation | null {
    const parsed = parseWith(delegationSchema, JSON.parse(row.document ?? 'null'));
    if (!parsed.ok) return null;
    // The stored text, as signed (zod's copy would normalise it).
    const document = JSON.parse(row.document!) as UsableDelegation['document'];
    return { id: row.id, userId: row.userId, appId: row.appId, appKeyDid: row.appKeyDid, document };
  }

  const NOT_ALLOWED =
    'This app holds no authorization from you to act toward other nodes: allow it again in a browser that holds your signing key.';

  /** The newest delegation of this grant that allows `action` now. */
  async function forGrant(
    grant: { userId: string; appId: string },
    action: DelegableAction,
  ): DelegationResult<UsableDelegation> {
    const rows = await prisma.appDelegation.findMany({
      where: {
        userId: grant.userId,
        appId: grant.appId,
        document: { not: null },
        revokedAt: null,
        expiresAt: { gt: clock.now() },
      },
      orderBy: { issuedAt: 'desc' },
      take: 5,
      select: { ...select, actions: true },
    });
    if (rows.length === 0) return refuse('FORBIDDEN', NOT_ALLOWED);
    const allowing = rows.find((row) => row.actions.includes(action));
    if (!allowing) {
      return refuse(
        'FORBIDDEN',
        `This app may not ${action.replace('-', ' ')} for you: the scopes you allowed it do not include it.`,
      );
    }
    return usable(allowing, action);
  }

  /** A delegation of `userId`'s by id, usable for `action` now (a post an app signed). */
  async function byId(
    userId: string,
    id: string,
    action: DelegableAction,
  ): DelegationResult<UsableDelegation> {
    const row = await prisma.appDelegation.findFirst({
      where: { id, userId, document: { not: null } },
      select: { ...select, actions: true },
    });
    if (!row) return refuse('FORBIDDEN', NOT_ALLOWED);
    if (!row.actions.includes(action)) {
      return refuse('FORBIDDEN', `This app may not ${action.replace('-', ' ')} for you.`);
    }
    return usable(row, action);
  }

  async function usable(row: Row, action: DelegableAction): DelegationResult<UsableDelegation> {
    const { state } = await settle(row);
    if (state !== 'active') {
      return refuse('FORBIDDEN', `Your authorization of this app is ${state}: allow it again.`);
    }
    const found = usableOf(row);
    if (!found || !found.document.actions.includes(action)) {
      return refuse('FORBIDDEN', NOT_ALLOWED);
    }
    return ok(found);
  }

  /** Revokes every delegation of a grant at once (the person revoked the app). */
  async function revoke(grant: { userId: string; appId: string }): Promise<number> {
    const { count } = await prisma.appDelegation.updateMany({
      where: { userId: grant.userId, appId: grant.appId, revokedAt: null },
      data: { revokedAt: clock.now() },
    });
    return count;
  }

  return { status, forGrant, byId, revoke };
}

export type DelegationState = ReturnType<typeof createDelegationState>;
