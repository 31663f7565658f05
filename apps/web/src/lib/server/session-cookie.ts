import type { Cookies } from '@sveltejs/kit';

/** The session token `<id>.<secret>` lives in this cookie (httpOnly: scripts never see it). */
export const SESSION_COOKIE = 'swarm_session';

/** `secure` follows the request: https in production, plain http on loopback during development. */
export function setSessionCookie(cookies: Cookies, url: URL, token: string, expiresAt: Date): void {
  cookies.set(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: url.protocol === 'https:',
    expires: expiresAt,
  });
}

/**
 * Pass the request URL when you have it: the deletion must carry the same `secure` flag as the
 * cookie, or a browser on plain http (other than localhost) ignores it.
 */
export function clearSessionCookie(cookies: Cookies, url?: URL): void {
  cookies.delete(SESSION_COOKIE, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    ...(url ? { secure: url.protocol === 'https:' } : {}),
  });
}
