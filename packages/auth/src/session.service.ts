import { sha256 } from '@oslojs/crypto/sha2';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';
import type { Db } from '@swarm/db';
import type { AuthClock, SessionUser, ValidatedSession } from './types.ts';

/** Sessions last 30 days of inactivity: each use in the second half moves the expiry forward. */
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const REFRESH_BELOW_MS = SESSION_TTL_MS / 2;

// 120-bit id, 160-bit secret, lower-case base32: cookie-safe, no padding, fixed lengths.
const ID_BYTES = 15;
const SECRET_BYTES = 20;
const TOKEN_PART = (bytes: number) => new RegExp(`^[a-z2-7]{${Math.ceil((bytes * 8) / 5)}}$`);
const ID_PATTERN = TOKEN_PART(ID_BYTES);
const SECRET_PATTERN = TOKEN_PART(SECRET_BYTES);

/** The columns a request needs about its user, loaded with the session in one query. */
export const SESSION_USER_SELECT = {
  id: true,
  handle: true,
  displayName: true,
  avatarUrl: true,
  isAdmin: true,
  did: true,
  showNsfw: true,
} as const;

export interface NewSession {
  /** `<id>.<secret>`: goes to the client once; only the secret's hash is stored. */
  token: string;
  sessionId: string;
  expiresAt: Date;
}

export interface SessionService {
  create(userId: string): Promise<NewSession>;
  /** The session and its user, or null for a malformed, unknown, tampered or expired token. */
  validate(token: string): Promise<ValidatedSession | null>;
  invalidate(sessionId: string): Promise<void>;
  /** Ends every session of the user, except `keepSessionId` when given; returns how many ended. */
  invalidateAllOfUser(userId: string, keepSessionId?: string): Promise<number>;
  /** Housekeeping: removes expired sessions; returns how many. */
  deleteExpired(): Promise<number>;
}

function randomPart(bytes: number): string {
  return encodeBase32LowerCaseNoPadding(crypto.getRandomValues(new Uint8Array(bytes)));
}

function hashSecret(secret: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(sha256(new TextEncoder().encode(secret)));
}

/** Splits `<id>.<secret>`; null unless both parts have exactly the shape we issue. */
export function parseSessionToken(token: string): { id: string; secret: string } | null {
  if (typeof token !== 'string') return null;
  const [id, secret, extra] = token.split('.');
  if (extra !== undefined || !id || !secret) return null;
  if (!ID_PATTERN.test(id) || !SECRET_PATTERN.test(secret)) return null;
  return { id, secret };
}

export function toSessionUser(row: SessionUser): SessionUser {
  return {
    id: row.id,
    handle: row.handle,
    displayName: row.displayName,
    avatarUrl: row.avatarUrl,
    isAdmin: row.isAdmin,
    did: row.did,
    showNsfw: row.showNsfw,
  };
}

export function createSessionService(deps: { db: Db; clock: AuthClock }): SessionService {
  const { prisma } = deps.db;
  const now = () => deps.clock.now();

  return {
    async create(userId) {
      const id = randomPart(ID_BYTES);
      const secret = randomPart(SECRET_BYTES);
      const expiresAt = new Date(now().getTime() + SESSION_TTL_MS);
      await prisma.session.create({
        data: { id, secretHash: hashSecret(secret), userId, expiresAt, createdAt: now() },
      });
      return { token: `${id}.${secret}`, sessionId: id, expiresAt };
    },

    async validate(token) {
      const parts = parseSessionToken(token);
      if (!parts) return null;
      const row = await prisma.session.findUnique({
        where: { id: parts.id },
        select: {
          id: true,
          secretHash: true,
          expiresAt: true,
          user: { select: { ...SESSION_USER_SELECT, suspendedAt: true, pendingApproval: true } },
        },
      });
      if (!row) return null;
      // A suspended account's sessions end (they are deleted on suspension; this covers races).
      if (row.user.suspendedAt || row.user.pendingApproval) return null;
      // The id is a lookup key only; the secret decides, compared in constant time.
      if (!constantTimeEqual(hashSecret(parts.secret), new Uint8Array(row.secretHash))) return null;
      const at = now().getTime();
      if (at >= row.expiresAt.getTime()) {
        await prisma.session.deleteMany({ where: { id: row.id } });
        return null;
      }
      let expiresAt = row.expiresAt;
      let refreshed = false;
      if (row.expiresAt.getTime() - at < REFRESH_BELOW_MS) {
        expiresAt = new Date(at + SESSION_TTL_MS);
        // updateMany: a concurrent logout may have removed the row; then the session is gone.
        const updated = await prisma.session.updateMany({
          where: { id: row.id },
          data: { expiresAt },
        });
        if (updated.count === 0) return null;
        refreshed = true;
      }
      return { sessionId: row.id, expiresAt, user: toSessionUser(row.user), refreshed };
    },

    async invalidate(sessionId) {
      await prisma.session.deleteMany({ where: { id: sessionId } });
    },

    async invalidateAllOfUser(userId, keepSessionId) {
      const deleted = await prisma.session.deleteMany({
        where: { userId, ...(keepSessionId ? { id: { not: keepSessionId } } : {}) },
      });
      return deleted.count;
    },

    async deleteExpired() {
      const deleted = await prisma.session.deleteMany({ where: { expiresAt: { lte: now() } } });
      return deleted.count;
    },
  };
}
