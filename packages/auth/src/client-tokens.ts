import type { Db } from '@swarm/db';
import { hashOAuthSecret } from './client-oauth.ts';
import { parseScopes } from './client-scopes.ts';
import type { AuthClock } from './types.ts';

/**
 * What a bearer token opens, and the person's view of the apps they allowed. A token works while
 * its row, its app and its user exist and the user may act (not suspended, not waiting for
 * approval); revoking deletes the row, so the next request is refused.
 */

/** `lastUsedAt` is written at most once a minute per token: a read must not cost a write. */
const LAST_USED_EVERY_MS = 60_000;

export interface TokenGrant {
  tokenId: string;
  scopes: string[];
  app: { id: string; name: string; website: string | null; scopes: string[] };
  /** Null for an app-only token (client credentials). */
  userId: string | null;
}

export interface AuthorizedApp {
  appId: string;
  name: string;
  website: string | null;
  /** Every scope the person granted the app, across its tokens. */
  scopes: string[];
  /** When the first token still standing was issued. */
  authorizedAt: Date;
  lastUsedAt: Date | null;
}

export interface ClientTokenService {
  /** The grant behind a bearer token, or null for an unknown, revoked or unusable one. */
  authenticate(token: string): Promise<TokenGrant | null>;
  authorizedApps(userId: string): Promise<AuthorizedApp[]>;
  /** Revokes every token and pending code the person gave the app; returns how many tokens. */
  revokeApp(userId: string, appId: string): Promise<number>;
}

export function createClientTokenService(deps: { db: Db; clock: AuthClock }): ClientTokenService {
  const { prisma } = deps.db;
  return {
    async authenticate(token) {
      if (typeof token !== 'string' || token === '' || token.length > 200) return null;
      const row = await prisma.oAuthToken.findUnique({
        where: { tokenHash: hashOAuthSecret(token) },
        include: {
          app: { select: { id: true, name: true, website: true, scopes: true } },
          user: { select: { suspendedAt: true, pendingApproval: true } },
        },
      });
      if (!row) return null;
      if (row.user && (row.user.suspendedAt || row.user.pendingApproval)) return null;
      const at = deps.clock.now();
      if (!row.lastUsedAt || at.getTime() - row.lastUsedAt.getTime() >= LAST_USED_EVERY_MS) {
        await prisma.oAuthToken.updateMany({ where: { id: row.id }, data: { lastUsedAt: at } });
      }
      return {
        tokenId: row.id,
        scopes: parseScopes(row.scopes),
        app: { ...row.app, scopes: parseScopes(row.app.scopes) },
        userId: row.userId,
      };
    },

    async authorizedApps(userId) {
      const rows = await prisma.oAuthToken.findMany({
        where: { userId },
        orderBy: { createdAt: 'asc' },
        include: { app: { select: { id: true, name: true, website: true } } },
      });
      const byApp = new Map<string, AuthorizedApp>();
      for (const row of rows) {
        const seen = byApp.get(row.appId);
        if (!seen) {
          byApp.set(row.appId, {
            appId: row.appId,
            name: row.app.name,
            website: row.app.website,
            scopes: parseScopes(row.scopes),
            authorizedAt: row.createdAt,
            lastUsedAt: row.lastUsedAt,
          });
          continue;
        }
        seen.scopes = [...new Set([...seen.scopes, ...parseScopes(row.scopes)])];
        if (row.lastUsedAt && (!seen.lastUsedAt || row.lastUsedAt > seen.lastUsedAt)) {
          seen.lastUsedAt = row.lastUsedAt;
        }
      }
      return [...byApp.values()];
    },

    async revokeApp(userId, appId) {
      const [, tokens] = await prisma.$transaction([
        prisma.oAuthCode.deleteMany({ where: { userId, appId } }),
        prisma.oAuthToken.deleteMany({ where: { userId, appId } }),
      ]);
      return tokens.count;
    },
  };
}
