import { HSTS, NON_PAGE_CSP, WEB_SECURITY_HEADERS } from '@swarm/contract';

/**
 * `response` with the web app's security headers (docs/security.md, "Headers"). Pages keep the
 * Content-Security-Policy SvelteKit wrote for them (with this response's nonce); every other
 * answer gets one that allows nothing. HSTS when the node's origin is https.
 */
/** The fixed headers as pairs, listed once (every answer sets them, some twice). */
const FIXED = Object.entries(WEB_SECURITY_HEADERS);

export function withSecurityHeaders(response: Response, url: URL): Response {
  const apply = (headers: Headers) => {
    for (const [name, value] of FIXED) headers.set(name, value);
    if (!headers.has('content-security-policy')) {
      headers.set('content-security-policy', NON_PAGE_CSP);
    }
    if (url.protocol === 'https:') headers.set('strict-transport-security', HSTS);
  };
  try {
    apply(response.headers);
    return response;
  } catch {
    // Immutable headers (a Response.redirect or a fetched response): copy, then set.
    const copy = new Response(response.body, response);
    apply(copy.headers);
    return copy;
  }
}
