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
