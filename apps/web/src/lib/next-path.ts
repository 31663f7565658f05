/**
 * Where to go after logging in. Only same-site paths are honoured (`/settings`, not
 * `//evil.example` or `https://…`), so `?next=` cannot become an open redirect.
 */
export function safeNextPath(raw: string | null | undefined, fallback = '/'): string {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) {
    return fallback;
  }
  return raw;
}

/** `/login?next=<this page>`: where a protected page sends a visitor who is not signed in. */
export function loginPath(url: URL): string {
  return `/login?next=${encodeURIComponent(url.pathname + url.search)}`;
}
