import { errorBody } from '@swarm/contract';

// Cross-site request forgery (docs/security.md, "Sessions and forms"). SvelteKit's own check
// looks only at form content types, so a POST without a body or with a JSON body from a
// same-site origin (another port, a sibling subdomain: SameSite=Lax lets the cookie through)
// reached the handler. Here every state-changing request, whatever its content type or lack of
// one, must come from the node's own origin; the hook applies it before anything else runs.

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Where the browser says a request came from, relative to `origin` (the node's own). */
export type RequestSource = 'same-origin' | 'cross-origin' | 'unknown';

/**
 * `Origin` when present (`null` included, which is cross-origin); without it `Sec-Fetch-Site`
 * (only `same-origin` counts as ours: `same-site` is exactly the case SameSite cookies miss);
 * without that the `Referer`'s origin. `unknown` when the request carries none of the three.
 */
export function requestSource(headers: Headers, origin: string): RequestSource {
  const claimed = headers.get('origin');
  if (claimed !== null) return claimed === origin ? 'same-origin' : 'cross-origin';
  const site = headers.get('sec-fetch-site');
  if (site !== null) return site === 'same-origin' ? 'same-origin' : 'cross-origin';
  const referer = headers.get('referer');
  if (referer !== null) {
    try {
      return new URL(referer).origin === origin ? 'same-origin' : 'cross-origin';
    } catch {
      return 'cross-origin';
    }
  }
  return 'unknown';
}

/** Paths whose answers are JSON (`{ error, code }`): the web app's `/api/*` and tRPC. */
function answersJson(request: Request, pathname: string): boolean {
  return (
    pathname === '/trpc' ||
    pathname.startsWith('/trpc/') ||
    pathname === '/api' ||
    pathname.startsWith('/api/') ||
    (request.headers.get('accept') ?? '').includes('application/json')
  );
}

/**
 * The refusal of a state-changing request that did not come from `origin`, or null when the
 * request may proceed. A request with none of Origin, Sec-Fetch-Site and Referer is refused
 * too: every browser of the last years sends Origin with a POST, so only old browsers (whose
 * Referer a page can suppress) and scripts arrive without, and a script can send the header.
 */
export function refuseForeignRequest(request: Request, url: URL): Response | null {
  if (SAFE_METHODS.has(request.method)) return null;
  const source = requestSource(request.headers, url.origin);
  if (source === 'same-origin') return null;
  const message =
    source === 'unknown'
      ? `${request.method} refused: the request does not say where it comes from (no Origin, Sec-Fetch-Site or Referer header). This node accepts changes only from its own pages at ${url.origin}; other clients must send "Origin: ${url.origin}".`
      : `${request.method} refused: the request comes from another site. This node accepts changes only from its own pages at ${url.origin}.`;
  if (answersJson(request, url.pathname)) {
    return Response.json(errorBody('FORBIDDEN', message), { status: 403 });
  }
  return new Response(message, {
    status: 403,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  });
}
