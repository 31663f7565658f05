// Response headers every page and file of the web app carries (docs/security.md, "Headers").
// Shared by the web app's hook (pages, endpoints, error pages) and the embedded entry point's
// HTTP server (the web app's static files, which the hook never sees). The Content-Security-
// Policy of pages comes from SvelteKit (`kit.csp` in apps/web/vite.config.ts, with nonces); the
// gateway sets its own headers (apps/gateway/src/app.ts).

/** Browser features no page of the node uses: denied to the page and to anything it embeds. */
export const PERMISSIONS_POLICY = [
  'accelerometer=()',
  'camera=()',
  'display-capture=()',
  'geolocation=()',
  'gyroscope=()',
  'magnetometer=()',
  'microphone=()',
  'midi=()',
  'payment=()',
  'usb=()',
].join(', ');

/**
 * On every response of the web app. `Referrer-Policy: same-origin`: other sites learn nothing of
 * where their visitors came from, while our own form posts keep their `Origin` (under
 * `no-referrer` a browser sends `Origin: null` with a form post, which the CSRF check refuses).
 */
export const WEB_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'permissions-policy': PERMISSIONS_POLICY,
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * For responses that are not pages (JSON endpoints, tRPC, redirects, files): nothing in them may
 * run, load or be framed.
 */
export const NON_PAGE_CSP =
  "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * HSTS, sent only on https (browsers ignore it on plain http anyway). One year, without
 * `includeSubDomains`: a node's operator does not necessarily own its sibling subdomains.
 */
export const HSTS = 'max-age=31536000';
