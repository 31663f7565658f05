/**
 * On every image answer of this origin (the media proxy, uploaded files) and their errors:
 * never sniffed, never a document that runs anything, never framed (docs/security.md, "Uploads").
 */
export const MEDIA_HARDENED: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

/** A JSON error answer with the hardened headers, never cached. */
export function mediaRefusal(
  status: number,
  code: string,
  message: string,
  extra: Record<string, string> = {},
): Response {
  // `new Response`, not `Response.json`: embedded mode replaces the global Response class.
  return new Response(JSON.stringify({ error: message, code }), {
    status,
    headers: {
      ...MEDIA_HARDENED,
      'cross-origin-resource-policy': 'same-origin',
      ...extra,
      'content-type': 'application/json',
      'cache-control': 'no-store',
    },
  });
}
