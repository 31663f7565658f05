/** The signed-in user as every request sees it (loaded with the session, one query). */
export interface SessionUser {
  id: string;
  handle: string;
  displayName: string;
  avatarUrl: string | null;
  isAdmin: boolean;
  /** `did:key` of the user's signing key; null until a browser registered one. */
  did: string | null;
  /** Preference: show NSFW content without a click-through. */
  showNsfw: boolean;
}

export interface ValidatedSession {
  sessionId: string;
  expiresAt: Date;
  user: SessionUser;
  /** The expiry moved forward (sliding expiry): send the cookie again. */
  refreshed: boolean;
}

/** Time as a port (the node's clock), so tests move it instead of sleeping. */
export interface AuthClock {
  now(): Date;
}

/**
 * Named token-bucket limits as a port: the login and sign-up throttles take from it. The entry
 * point injects the node context's `limits` (memory, Postgres or Redis, shared by the node's
 * processes), which has this shape; auth itself depends on `db` only (docs/architecture.md,
 * Layers).
 */
export interface AuthLimits {
  take(
    name: string,
    key: string,
    rule: { points: number; windowMs: number; burst?: number },
  ): Promise<{ ok: true } | { ok: false; retryAfterSec: number }>;
  reset(name: string, key: string): Promise<void>;
}

/** What a browser needs to restore the user's signing key elsewhere (docs/security.md). */
export interface KeyBackup {
  did: string;
  /** SPKI PEM. */
  publicKey: string;
  /** The private key, encrypted in the browser with a key derived from the password (JSON text). */
  encryptedBackup: string;
}

/** The profile fields a user edits on /settings. */
export interface UserSettings {
  handle: string;
  displayName: string;
  bio: string;
  avatarUrl: string | null;
  headerUrl: string | null;
  website: string | null;
  isNsfw: boolean;
  showNsfw: boolean;
  /** Shown as a bot (apps' `bot`, `isBot` on the wire): the account posts automatically. */
  isBot: boolean;
}
