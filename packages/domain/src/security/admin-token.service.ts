import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { err, ok, uuidSchema, type Result } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';

// Admin API authentication: `Authorization: Bearer <token>`. The bootstrap token comes from
// ADMIN_TOKEN; further tokens are created through the admin API or CLI and stored as SHA-256
// hashes only, so a database dump does not hand out admin access.

export interface AdminPrincipal {
  /** `bootstrap` for ADMIN_TOKEN, `token` for a stored token. */
  kind: 'bootstrap' | 'token';
  /** Stored token id; undefined for the bootstrap token. */
  tokenId: string | undefined;
  name: string;
}

export interface AdminTokenSummary {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export interface CreatedAdminToken extends AdminTokenSummary {
  /** The plain token, shown once; only its hash is stored. */
  token: string;
}

export interface AdminTokenService {
  /** The principal a bearer token stands for, or why it is refused. */
  verifyBearer(token: string | undefined): Promise<Result<AdminPrincipal, string>>;
  /** `createdById`: the admin user who made it from the web app (none from the admin API). */
  createToken(name: string, createdById?: string): Promise<CreatedAdminToken>;
  listTokens(): Promise<AdminTokenSummary[]>;
  /** True when the token exists (revoking twice keeps the first revocation time). */
  revokeToken(id: string): Promise<boolean>;
}

export interface AdminTokenDeps {
  db: Db;
  config: Pick<NodeConfig, 'adminToken'>;
  clock: Clock;
}

export const ADMIN_TOKEN_PREFIX = 'swarm_';
/** Longer bearer values are refused before hashing (no honest token is this long). */
const MAX_TOKEN_CHARS = 512;

/** SHA-256 (hex) of a token: what the database keeps. */
export function hashAdminToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const SUMMARY = {
  id: true,
  name: true,
  createdAt: true,
  lastUsedAt: true,
  expiresAt: true,
  revokedAt: true,
} as const;

export function createAdminTokenService(deps: AdminTokenDeps): AdminTokenService {
  const { prisma } = deps.db;
  // Compared as digests: equal length, so timingSafeEqual leaks neither content nor length.
  const bootstrapDigest = deps.config.adminToken
    ? createHash('sha256').update(deps.config.adminToken, 'utf8').digest()
    : undefined;

  async function verifyBearer(token: string | undefined): Promise<Result<AdminPrincipal, string>> {
    if (!token) return err('missing bearer token');
    if (token.length > MAX_TOKEN_CHARS) return err('invalid bearer token');
    const digest = createHash('sha256').update(token, 'utf8').digest();
    if (bootstrapDigest && timingSafeEqual(digest, bootstrapDigest)) {
      return ok({ kind: 'bootstrap', tokenId: undefined, name: 'ADMIN_TOKEN' });
    }
    // Lookup by hash: the index compares digests of a secret, not the secret itself.
    const row = await prisma.adminApiToken.findUnique({
      where: { tokenHash: digest.toString('hex') },
      select: { id: true, name: true, revokedAt: true, expiresAt: true },
    });
    const now = deps.clock.now();
    if (!row || row.revokedAt || (row.expiresAt && row.expiresAt <= now)) {
      return err('invalid bearer token');
    }
    await prisma.adminApiToken.update({ where: { id: row.id }, data: { lastUsedAt: now } });
    return ok({ kind: 'token', tokenId: row.id, name: row.name });
  }

  async function createToken(name: string, createdById?: string): Promise<CreatedAdminToken> {
    const token = ADMIN_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const row = await prisma.adminApiToken.create({
      data: {
        name: name.trim().slice(0, 100) || 'admin token',
        tokenHash: hashAdminToken(token),
        createdById: createdById ?? null,
        createdAt: deps.clock.now(),
      },
      select: SUMMARY,
    });
    return { ...row, token };
  }

  async function listTokens(): Promise<AdminTokenSummary[]> {
    return prisma.adminApiToken.findMany({ select: SUMMARY, orderBy: { createdAt: 'asc' } });
  }

  async function revokeToken(id: string): Promise<boolean> {
    if (!uuidSchema.safeParse(id).success) return false;
    const existing = await prisma.adminApiToken.count({ where: { id } });
    if (existing === 0) return false;
    await prisma.adminApiToken.updateMany({
      where: { id, revokedAt: null },
      data: { revokedAt: deps.clock.now() },
    });
    return true;
  }

  return { verifyBearer, createToken, listTokens, revokeToken };
}
