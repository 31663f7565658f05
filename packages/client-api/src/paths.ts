/**
 * The paths the client API answers in the web app's process (docs/architecture.md, "A third
 * edge"). `/oauth/*` is reserved for the authorization server of the next slice: until then it
 * answers JSON 404s from here rather than a page.
 */
export function isClientApiPath(pathname: string): boolean {
  return (
    pathname.startsWith('/api/v1/') ||
    pathname === '/api/v1' ||
    pathname.startsWith('/api/v2/') ||
    pathname === '/api/v2' ||
    pathname.startsWith('/oauth/') ||
    pathname === '/.well-known/nodeinfo' ||
    pathname === '/nodeinfo/2.1'
  );
}
