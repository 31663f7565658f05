/** Consent is a page of the web app (it needs the person's session), not of the client API. */
export const OAUTH_AUTHORIZE_PATH = '/oauth/authorize';

/**
 * The paths the client API answers in the web app's process (docs/architecture.md, "A third
 * edge"), the authorization server's `/oauth/*` among them, except the consent page.
 */
export function isClientApiPath(pathname: string): boolean {
  return (
    pathname.startsWith('/api/v1/') ||
    pathname === '/api/v1' ||
    pathname.startsWith('/api/v2/') ||
    pathname === '/api/v2' ||
    (pathname.startsWith('/oauth/') && pathname !== OAUTH_AUTHORIZE_PATH) ||
    pathname === '/.well-known/oauth-authorization-server' ||
    pathname === '/.well-known/nodeinfo' ||
    pathname === '/nodeinfo/2.1'
  );
}
